import type { PackageAssociationStore } from '../packages/package-association.store';
import type { StoredUpRow, StoredUpStore } from './stored-up.store';

export interface StorageStoresHarness {
  stored: StoredUpStore;
  associations: PackageAssociationStore;
  close(): Promise<void>;
}

const T0 = Date.parse('2026-11-20T10:00:00Z');

/** A stored uplink of `dev` in `app`, `minutes` after T0, on `fPort`. */
function uplink(app: string, dev: string, minutes: number, fPort = 1, type = 'uplink_message'): StoredUpRow {
  const receivedAt = T0 + minutes * 60_000;
  const up = {
    end_device_ids: { device_id: dev, application_ids: { application_id: app } },
    received_at: new Date(receivedAt).toISOString(),
    [type]: { f_port: fPort },
  };
  return { applicationId: app, deviceId: dev, type, receivedAt, fPort: type === 'uplink_message' ? fPort : undefined, up: JSON.stringify(up) };
}

const minutesOf = (rows: { receivedAt: number }[]) => rows.map((r) => (r.receivedAt - T0) / 60_000);

/** The behaviour of the Storage Integration's stores (run against MySQL/MariaDB and SQLite). */
export function describeStorageStoresConformance(name: string, open: () => Promise<StorageStoresHarness>): void {
  describe(`Storage Integration stores: ${name}`, () => {
    let h: StorageStoresHarness;
    beforeAll(async () => {
      h = await open();
      await h.stored.insert([
        uplink('app-a', 'dev-1', 0, 1),
        uplink('app-a', 'dev-1', 1, 2),
        uplink('app-a', 'dev-2', 2, 1),
        uplink('app-a', 'dev-1', 3, 1),
        uplink('app-a', 'dev-2', 4, 2),
        uplink('app-a', 'dev-1', 5, 1, 'join_accept'),
        uplink('app-b', 'dev-1', 2, 1),
      ]);
    });
    afterAll(() => h.close());

    it('inserts a batch in one statement and reads it back in time order, the message as written', async () => {
      const rows = await h.stored.query({ applicationId: 'app-a', type: 'uplink_message', descending: false, limit: 100 });
      expect(minutesOf(rows)).toEqual([0, 1, 2, 3, 4]);
      expect(JSON.parse(rows[0].up)).toEqual(JSON.parse(uplink('app-a', 'dev-1', 0, 1).up));
      await expect(h.stored.insert([])).resolves.toBeUndefined();
    });

    it('selects one device, a type, an FPort, a time window, newest first, a limit; never another application', async () => {
      const q = { applicationId: 'app-a', descending: false, limit: 100 };
      expect(minutesOf(await h.stored.query({ ...q, deviceId: 'dev-1', type: 'uplink_message' }))).toEqual([0, 1, 3]);
      expect(minutesOf(await h.stored.query({ ...q, deviceId: 'dev-1' }))).toEqual([0, 1, 3, 5]);
      expect(minutesOf(await h.stored.query({ ...q, type: 'join_accept' }))).toEqual([5]);
      expect(minutesOf(await h.stored.query({ ...q, type: 'uplink_message', fPort: 2 }))).toEqual([1, 4]);
      expect(minutesOf(await h.stored.query({ ...q, type: 'uplink_message', after: T0 + 60_000, before: T0 + 4 * 60_000 }))).toEqual([2, 3]);
      expect(minutesOf(await h.stored.query({ ...q, type: 'uplink_message', descending: true, limit: 2 }))).toEqual([4, 3]);
      expect(minutesOf(await h.stored.query({ ...q, applicationId: 'app-b' }))).toEqual([2]);
      expect(await h.stored.query({ ...q, applicationId: 'app-c' })).toEqual([]);
    });

    it('continues after a cursor in either order, rows of the same time by write order', async () => {
      await h.stored.insert([uplink('app-tie', 'dev', 0), uplink('app-tie', 'dev', 0), uplink('app-tie', 'dev', 0)]);
      const all = await h.stored.query({ applicationId: 'app-tie', descending: false, limit: 10 });
      expect(all.map((r) => r.id)).toEqual([...all.map((r) => r.id)].sort((a, b) => a - b));
      const next = await h.stored.query({ applicationId: 'app-tie', descending: false, limit: 10, cursor: { receivedAt: all[0].receivedAt, id: all[0].id } });
      expect(next.map((r) => r.id)).toEqual([all[1].id, all[2].id]);
      const back = await h.stored.query({ applicationId: 'app-tie', descending: true, limit: 10, cursor: { receivedAt: all[2].receivedAt, id: all[2].id } });
      expect(back.map((r) => r.id)).toEqual([all[1].id, all[0].id]);
    });

    it('counts by device with the same filters', async () => {
      expect(await h.stored.count({ applicationId: 'app-a', type: 'uplink_message' })).toEqual({ 'dev-1': 3, 'dev-2': 2 });
      expect(await h.stored.count({ applicationId: 'app-a', deviceId: 'dev-2' })).toEqual({ 'dev-2': 2 });
      expect(await h.stored.count({ applicationId: 'app-a', type: 'uplink_message', fPort: 1, after: T0 })).toEqual({ 'dev-1': 1, 'dev-2': 1 });
      expect(await h.stored.count({ applicationId: 'app-none' })).toEqual({});
    });

    it('deletes what was received before a time, at most a batch at a time, oldest first', async () => {
      await h.stored.insert([uplink('app-old', 'dev', -300), uplink('app-old', 'dev', -200), uplink('app-old', 'dev', -100)]);
      expect(await h.stored.deleteReceivedBefore(T0 - 50 * 60_000, 2)).toBe(2);
      expect(minutesOf(await h.stored.query({ applicationId: 'app-old', descending: false, limit: 10 }))).toEqual([-100]);
      expect(await h.stored.deleteReceivedBefore(T0 - 50 * 60_000, 2)).toBe(1);
      expect(await h.stored.deleteReceivedBefore(T0 - 50 * 60_000, 2)).toBe(0);
      expect(minutesOf(await h.stored.query({ applicationId: 'app-a', type: 'uplink_message', descending: false, limit: 100 }))).toEqual([0, 1, 2, 3, 4]);
    });

    it('keeps associations per device and per application by FPort; upserts, pages, deletes; tells where a package is used', async () => {
      const base = { packageName: 'storage-integration', createdAt: '2026-11-20T10:00:00Z', updatedAt: '2026-11-20T10:00:00Z' };
      await h.associations.put({ ...base, applicationId: 'app-p', fPort: 100, data: { a: 1 } });
      await h.associations.put({ ...base, applicationId: 'app-p', deviceId: 'dev-1', fPort: 2 });
      await h.associations.put({ ...base, applicationId: 'app-p', deviceId: 'dev-1', fPort: 1, packageName: 'other-package' });
      await h.associations.put({ ...base, applicationId: 'app-p', deviceId: 'dev-1', fPort: 2, data: { b: 'x' }, updatedAt: '2026-11-20T11:00:00Z' });
      expect(await h.associations.get({ applicationId: 'app-p' }, 100)).toEqual({ ...base, applicationId: 'app-p', fPort: 100, data: { a: 1 } });
      expect(await h.associations.get({ applicationId: 'app-p', deviceId: 'dev-1' }, 2)).toEqual({
        ...base,
        applicationId: 'app-p',
        deviceId: 'dev-1',
        fPort: 2,
        data: { b: 'x' },
        updatedAt: '2026-11-20T11:00:00Z',
      });
      expect(await h.associations.get({ applicationId: 'app-p', deviceId: 'dev-1' }, 100)).toBeUndefined();
      const page = await h.associations.list({ applicationId: 'app-p', deviceId: 'dev-1' }, 1, 1);
      expect([page.total, page.items.map((a) => a.fPort)]).toEqual([2, [2]]);
      expect((await h.associations.list({ applicationId: 'app-p' }, 0, 0)).items.map((a) => a.fPort)).toEqual([100]);
      const usage = await h.associations.usage('app-p');
      expect(usage.get('storage-integration')).toEqual({ application: true, devices: new Set(['dev-1']) });
      expect(usage.get('other-package')).toEqual({ application: false, devices: new Set(['dev-1']) });
      await h.associations.delete({ applicationId: 'app-p' }, 100);
      expect(await h.associations.get({ applicationId: 'app-p' }, 100)).toBeUndefined();
      expect((await h.associations.usage('app-p')).get('storage-integration')?.application).toBe(false);
      expect((await h.associations.usage('app-none')).size).toBe(0);
    });
  });
}
