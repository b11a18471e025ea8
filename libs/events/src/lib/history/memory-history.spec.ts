import { IS_EVENTS } from '@lorawan/api';
import { app, dev, filterFor, makeEvent, prepare } from '../fixtures.conformance';
import type { PreparedEvent } from '../prepared-event';
import { MemoryEventHistory } from './memory-history';

const UPDATE = IS_EVENTS.endDevice.update;
const T0 = Date.UTC(2024, 4, 1, 10);
const names = (events: PreparedEvent[]) => events.map((e) => (e.event.identifiers[0] as { device_ids: { device_id: string } }).device_ids.device_id);

describe('MemoryEventHistory (embedded mode)', () => {
  let now = T0;
  const clock = () => now;
  /** dev0…dev9 of app1 one second apart, with app2's dev-x interleaved. */
  function filled(max = 100, retentionMs = 3_600_000): MemoryEventHistory {
    const history = new MemoryEventHistory(max, retentionMs, clock);
    for (let i = 0; i < 10; i++) {
      now = T0 + i * 1000;
      history.record(prepare(makeEvent(UPDATE, dev('app1', `dev${i}`), { at: now })));
      history.record(prepare(makeEvent(UPDATE, dev('app2', 'dev-x'), { at: now })));
    }
    return history;
  }
  const app1 = filterFor([app('app1')]);

  it('answers the last `tail` matching events, oldest first', async () => {
    expect(names(await filled().query(app1, { tail: 3 }, 100))).toEqual(['dev7', 'dev8', 'dev9']);
    expect(names(await filled().query(app1, { tail: 50 }, 100))).toHaveLength(10);
  });

  it('answers the events after `after` (exclusive), oldest first', async () => {
    expect(names(await filled().query(app1, { afterMicros: (T0 + 6000) * 1000 }, 100))).toEqual(['dev7', 'dev8', 'dev9']);
    expect(names(await filled().query(app1, { afterMicros: (T0 + 6000) * 1000 - 1 }, 100))).toEqual(['dev6', 'dev7', 'dev8', 'dev9']);
  });

  it('with both, the last `tail` of those after `after`', async () => {
    expect(names(await filled().query(app1, { afterMicros: (T0 + 2000) * 1000, tail: 2 }, 100))).toEqual(['dev8', 'dev9']);
    expect(names(await filled().query(app1, { afterMicros: (T0 + 7000) * 1000, tail: 5 }, 100))).toEqual(['dev8', 'dev9']);
  });

  it('filters with the stream’s matcher (identifiers, names)', async () => {
    expect(names(await filled().query(filterFor([dev('app1', 'dev4')]), { tail: 5 }, 100))).toEqual(['dev4']);
    expect(await filled().query(filterFor([app('app1')], { names: ['end_device.create'] }), { tail: 5 }, 100)).toEqual([]);
  });

  it('orders what it answers by event time (the tail is the last received, as JetStream keeps them)', async () => {
    const history = new MemoryEventHistory(10, 3_600_000, clock);
    now = T0 + 10_000;
    for (const [id, at] of [
      ['late', 3000],
      ['early', 1000],
      ['middle', 2000],
    ] as const)
      history.record(prepare(makeEvent(UPDATE, dev('app1', id), { at: T0 + at })));
    expect(names(await history.query(app1, { afterMicros: 0 }, 100))).toEqual(['early', 'middle', 'late']);
    expect(names(await history.query(app1, { tail: 2 }, 100))).toEqual(['early', 'middle']);
  });

  it('keeps at most `max` events, dropping the oldest', async () => {
    const history = filled(6);
    expect(history.length).toBe(6);
    expect(names(await history.query(app1, { tail: 10 }, 100))).toEqual(['dev7', 'dev8', 'dev9']);
    expect(filled(0).length).toBe(0);
  });

  it('forgets events older than the retention', async () => {
    const history = filled(100, 4_500);
    expect(names(await history.query(app1, { tail: 10 }, 100))).toEqual(['dev5', 'dev6', 'dev7', 'dev8', 'dev9']);
    now += 60_000;
    expect(await history.query(app1, { tail: 10 }, 100)).toEqual([]);
    expect(history.length).toBe(0);
  });

  it('without a tail, stops once more than `limit` matched (the stream would overflow anyway)', async () => {
    expect(await filled().query(app1, { afterMicros: 0 }, 4)).toHaveLength(5);
  });
});
