import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { IS_EVENTS } from '@lorawan/api';
import { openDataSource } from '@lorawan/persistence';
import { eventsDataSourceOptions } from '../events-data-source';
import { app, dev, filterFor, makeEvent, prepare } from '../fixtures.conformance';
import { describeEventHistory, deviceIds, T0 } from './event-history.conformance';
import { SqlEventHistory, type SqlEventHistoryOptions } from './sql-history';

const UPDATE = IS_EVENTS.endDevice.update;
const app1 = filterFor([app('app1')]);

/** The embedded history in its SQLite file (`events.sqlite` under a DATA_DIR of the suite's own). */
describe('SqlEventHistory (embedded mode)', () => {
  const root = mkdtempSync(join(tmpdir(), 'lw-events-history-'));
  let dirs = 0;
  const dataDir = () => join(root, String(++dirs));
  const open = (dir: string, o: SqlEventHistoryOptions) => SqlEventHistory.open(eventsDataSourceOptions({ dataDir: dir }), true, o);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  describeEventHistory('answers as the memory ring', async (max, retentionMs, now) => {
    const history = await open(dataDir(), { max, retentionMs, now });
    return { history, count: () => history.count() };
  });

  describe('on disk', () => {
    let now = T0;
    const clock = () => now;
    const opened: Array<SqlEventHistory | DataSource> = [];
    afterEach(async () => {
      for (const o of opened.splice(0)) await (o instanceof SqlEventHistory ? o.close() : o.destroy());
      jest.restoreAllMocks();
    });
    async function history(dir: string, o: Partial<SqlEventHistoryOptions> = {}): Promise<SqlEventHistory> {
      const h = await open(dir, { max: 100, retentionMs: 3_600_000, now: clock, ...o });
      opened.push(h);
      return h;
    }
    /** A second connection to the history's file, to see what is written. */
    async function file(dir: string): Promise<DataSource> {
      const ds = await openDataSource(eventsDataSourceOptions({ dataDir: dir }), false);
      opened.push(ds);
      return ds;
    }
    const rows = async (ds: DataSource) => Number(((await ds.query('SELECT COUNT(*) AS n FROM event_history')) as Array<{ n: number }>)[0].n);
    function recordDevices(h: SqlEventHistory, ...ids: string[]): void {
      for (const id of ids) {
        now += 1000;
        h.record(prepare(makeEvent(UPDATE, dev('app1', id), { at: now })));
      }
    }

    it('answers the events recorded before a restart (a new instance on the same file)', async () => {
      const dir = dataDir();
      const before = await history(dir);
      recordDevices(before, 'dev0', 'dev1', 'dev2');
      await before.close();
      const after = await history(dir);
      expect(deviceIds(await after.query(app1, { tail: 10 }, 100))).toEqual(['dev0', 'dev1', 'dev2']);
      expect(deviceIds(await after.query(app1, { afterMicros: 0 }, 100))).toEqual(['dev0', 'dev1', 'dev2']);
      recordDevices(after, 'dev3');
      expect(deviceIds(await after.query(app1, { tail: 2 }, 100))).toEqual(['dev2', 'dev3']);
    });

    it('writes the events soon after they are recorded, without a close (what a crash keeps)', async () => {
      const dir = dataDir();
      const h = await history(dir);
      recordDevices(h, 'dev0', 'dev1');
      const db = await file(dir);
      for (let i = 0; i < 100 && (await rows(db)) < 2; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await rows(db)).toBe(2);
      const other = await history(dir);
      expect(deviceIds(await other.query(app1, { tail: 10 }, 100))).toEqual(['dev0', 'dev1']);
    });

    it('answers an event recorded but not yet written', async () => {
      const dir = dataDir();
      const h = await history(dir);
      const db = await file(dir);
      recordDevices(h, 'dev0');
      expect(await rows(db)).toBe(0);
      expect(deviceIds(await h.query(app1, { tail: 1 }, 100))).toEqual(['dev0']);
      expect(await rows(db)).toBe(1);
    });

    it('keeps at most `max` rows in the file, and the bound holds across a restart with a smaller one', async () => {
      const dir = dataDir();
      const h = await history(dir, { max: 5 });
      const db = await file(dir);
      for (let i = 0; i < 20; i++) {
        recordDevices(h, `dev${i}`);
        if (i % 3 === 0) await h.query(app1, { tail: 1 }, 100);
      }
      expect(deviceIds(await h.query(app1, { tail: 10 }, 100))).toEqual(['dev15', 'dev16', 'dev17', 'dev18', 'dev19']);
      expect(await rows(db)).toBe(5);
      await h.close();
      const smaller = await history(dir, { max: 2 });
      expect(deviceIds(await smaller.query(app1, { tail: 10 }, 100))).toEqual(['dev18', 'dev19']);
      expect(await smaller.count()).toBe(2);
      recordDevices(smaller, 'dev20');
      expect(deviceIds(await smaller.query(app1, { afterMicros: 0 }, 100))).toEqual(['dev19', 'dev20']);
      expect(await rows(db)).toBe(2);
    });

    it('deletes the rows older than the retention as it writes', async () => {
      const dir = dataDir();
      const h = await history(dir, { retentionMs: 10_000 });
      const db = await file(dir);
      recordDevices(h, 'dev0', 'dev1', 'dev2');
      expect(await h.count()).toBe(3);
      now += 60_000;
      expect(await h.query(app1, { tail: 10 }, 100)).toEqual([]);
      recordDevices(h, 'dev3');
      expect(deviceIds(await h.query(app1, { tail: 10 }, 100))).toEqual(['dev3']);
      expect(await rows(db)).toBe(1);
      await h.close();
      now += 60_000;
      expect(await (await history(dir, { retentionMs: 10_000 })).query(app1, { afterMicros: 0 }, 100)).toEqual([]);
    });

    it('logs a failed write, keeps the events (a bounded buffer, oldest dropped) and writes them once it can', async () => {
      const dir = dataDir();
      const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const h = await history(dir, { bufferMax: 3 });
      const db = await file(dir);
      recordDevices(h, 'dev0');
      expect(await h.count()).toBe(1);
      // The table away: every write fails until it is back.
      await db.query('ALTER TABLE event_history RENAME TO event_history_away');
      expect(() => recordDevices(h, 'dev1', 'dev2', 'dev3', 'dev4')).not.toThrow();
      for (let i = 0; i < 100 && errors.mock.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(errors).toHaveBeenCalledWith(expect.objectContaining({ buffered: 3 }), 'event history: write failed, retrying');
      expect(warnings).toHaveBeenCalledWith(expect.anything(), 'event history: write buffer full, dropping the oldest unwritten events');
      await db.query('ALTER TABLE event_history_away RENAME TO event_history');
      expect(deviceIds(await h.query(app1, { tail: 10 }, 100))).toEqual(['dev0', 'dev2', 'dev3', 'dev4']);
      expect(await rows(db)).toBe(4);
      expect(warnings).toHaveBeenCalledWith({ dropped: 1 }, 'event history: writing again; events dropped meanwhile');
    });

    it('stores the event as published (no re-encoding) and nothing else', async () => {
      const dir = dataDir();
      const h = await history(dir);
      const event = makeEvent(UPDATE, dev('app1', 'dev0'), { at: T0 });
      const published = JSON.stringify(event);
      h.record(prepare(event));
      await h.close();
      const db = await file(dir);
      const stored = (await db.query('SELECT * FROM event_history')) as Array<Record<string, unknown>>;
      expect(stored).toEqual([{ seq: expect.any(Number), received_at: now, time_micros: T0 * 1000, event: published }]);
    });
  });
});
