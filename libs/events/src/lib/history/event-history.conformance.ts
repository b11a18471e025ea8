import { IS_EVENTS } from '@lorawan/api';
import { app, dev, filterFor, makeEvent, prepare } from '../fixtures.conformance';
import type { PreparedEvent } from '../prepared-event';
import type { EventHistory } from './event-history';

const UPDATE = IS_EVENTS.endDevice.update;
export const T0 = Date.UTC(2024, 4, 1, 10);
/** The device ID of each event (the fixtures' events are about one device each). */
export const deviceIds = (events: PreparedEvent[]) => events.map((e) => (e.event.identifiers[0] as { device_ids: { device_id: string } }).device_ids.device_id);

/** A history under test and how many events it keeps (what a query may look at). */
export interface HistoryUnderTest {
  history: EventHistory;
  count(): Promise<number>;
}

/** Opens a history keeping `max` events for `retentionMs`, on the clock `now`. */
export type OpenHistory = (max: number, retentionMs: number, now: () => number) => Promise<HistoryUnderTest>;

/**
 * What every history that records events (the memory ring, the SQL table) answers for the same
 * events: `tail`, `after`, both, the stream's filter, the order, the `max` and retention bounds,
 * and the `limit + 1` cut. Each history is closed after its case.
 */
export function describeEventHistory(name: string, open: OpenHistory): void {
  describe(name, () => {
    let now = T0;
    const clock = () => now;
    const opened: EventHistory[] = [];
    afterEach(async () => {
      for (const history of opened.splice(0)) await history.close();
    });
    async function fresh(max: number, retentionMs: number): Promise<HistoryUnderTest> {
      const h = await open(max, retentionMs, clock);
      opened.push(h.history);
      return h;
    }
    /** dev0…dev9 of app1 one second apart, with app2's dev-x interleaved. */
    async function filled(max = 100, retentionMs = 3_600_000): Promise<HistoryUnderTest> {
      const h = await fresh(max, retentionMs);
      for (let i = 0; i < 10; i++) {
        now = T0 + i * 1000;
        h.history.record(prepare(makeEvent(UPDATE, dev('app1', `dev${i}`), { at: now })));
        h.history.record(prepare(makeEvent(UPDATE, dev('app2', 'dev-x'), { at: now })));
      }
      return h;
    }
    const filledHistory = async (max?: number, retentionMs?: number) => (await filled(max, retentionMs)).history;
    const app1 = filterFor([app('app1')]);

    it('answers the last `tail` matching events, oldest first', async () => {
      expect(deviceIds(await (await filledHistory()).query(app1, { tail: 3 }, 100))).toEqual(['dev7', 'dev8', 'dev9']);
      expect(deviceIds(await (await filledHistory()).query(app1, { tail: 50 }, 100))).toHaveLength(10);
    });

    it('answers the events after `after` (exclusive), oldest first', async () => {
      expect(deviceIds(await (await filledHistory()).query(app1, { afterMicros: (T0 + 6000) * 1000 }, 100))).toEqual(['dev7', 'dev8', 'dev9']);
      expect(deviceIds(await (await filledHistory()).query(app1, { afterMicros: (T0 + 6000) * 1000 - 1 }, 100))).toEqual(['dev6', 'dev7', 'dev8', 'dev9']);
    });

    it('with both, the last `tail` of those after `after`', async () => {
      expect(deviceIds(await (await filledHistory()).query(app1, { afterMicros: (T0 + 2000) * 1000, tail: 2 }, 100))).toEqual(['dev8', 'dev9']);
      expect(deviceIds(await (await filledHistory()).query(app1, { afterMicros: (T0 + 7000) * 1000, tail: 5 }, 100))).toEqual(['dev8', 'dev9']);
    });

    it('filters with the stream’s matcher (identifiers, names)', async () => {
      expect(deviceIds(await (await filledHistory()).query(filterFor([dev('app1', 'dev4')]), { tail: 5 }, 100))).toEqual(['dev4']);
      expect(await (await filledHistory()).query(filterFor([app('app1')], { names: ['end_device.create'] }), { tail: 5 }, 100)).toEqual([]);
    });

    it('orders what it answers by event time (the tail is the last received, as JetStream keeps them)', async () => {
      const { history } = await fresh(10, 3_600_000);
      now = T0 + 10_000;
      for (const [id, at] of [
        ['late', 3000],
        ['early', 1000],
        ['middle', 2000],
      ] as const)
        history.record(prepare(makeEvent(UPDATE, dev('app1', id), { at: T0 + at })));
      expect(deviceIds(await history.query(app1, { afterMicros: 0 }, 100))).toEqual(['early', 'middle', 'late']);
      expect(deviceIds(await history.query(app1, { tail: 2 }, 100))).toEqual(['early', 'middle']);
    });

    it('replays an event recorded twice (a retried publish) once', async () => {
      const { history } = await fresh(10, 3_600_000);
      now = T0 + 10_000;
      const once = makeEvent(UPDATE, dev('app1', 'twice'), { at: T0 + 1000 });
      history.record(prepare(once));
      history.record(prepare(makeEvent(UPDATE, dev('app1', 'between'), { at: T0 + 2000 })));
      history.record(prepare(once));
      expect(deviceIds(await history.query(app1, { afterMicros: 0 }, 100))).toEqual(['twice', 'between']);
      expect(deviceIds(await history.query(app1, { tail: 1 }, 100))).toEqual(['twice']);
      expect(deviceIds(await history.query(app1, { tail: 5 }, 100))).toEqual(['twice', 'between']);
    });

    it('keeps at most `max` events, dropping the oldest', async () => {
      const h = await filled(6);
      expect(await h.count()).toBe(6);
      expect(deviceIds(await h.history.query(app1, { tail: 10 }, 100))).toEqual(['dev7', 'dev8', 'dev9']);
      expect(deviceIds(await h.history.query(app1, { afterMicros: 0 }, 100))).toEqual(['dev7', 'dev8', 'dev9']);
      expect(await (await filled(0)).count()).toBe(0);
      expect(await (await filled(0)).history.query(app1, { tail: 10 }, 100)).toEqual([]);
    });

    it('forgets events older than the retention', async () => {
      const h = await filled(100, 4_500);
      expect(deviceIds(await h.history.query(app1, { tail: 10 }, 100))).toEqual(['dev5', 'dev6', 'dev7', 'dev8', 'dev9']);
      now += 60_000;
      expect(await h.history.query(app1, { tail: 10 }, 100)).toEqual([]);
      expect(await h.count()).toBe(0);
    });

    it('without a tail, stops once more than `limit` matched (the stream would overflow anyway)', async () => {
      expect(await (await filledHistory()).query(app1, { afterMicros: 0 }, 4)).toHaveLength(5);
    });
  });
}
