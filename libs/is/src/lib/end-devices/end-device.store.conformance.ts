import type { EndDeviceStore, IsEndDevice } from './end-device.model';

/**
 * The behaviour every EndDeviceStore must have, run against each implementation (MySQL and
 * SQLite through TypeORM) by `typeorm-end-device.store.int-spec.ts`.
 */
export interface StoreUnderTest {
  store: EndDeviceStore;
  close(): Promise<void>;
}

let seq = 0;
function ts(offsetMs = 0): string {
  seq += 1;
  return new Date(Date.UTC(2024, 4, 1, 10, 0, 0) + offsetMs)
    .toISOString()
    .replace(/\.(\d{3})Z$/, (_, ms: string) => `.${ms}${String(seq % 1000).padStart(3, '0')}Z`);
}

export function device(app: string, id: string, extra: Partial<IsEndDevice> = {}): IsEndDevice {
  const now = ts();
  return { ids: { device_id: id, application_ids: { application_id: app } }, created_at: now, updated_at: now, ...extra };
}

export function describeEndDeviceStoreConformance(name: string, open: () => Promise<StoreUnderTest>): void {
  describe(`EndDeviceStore conformance: ${name}`, () => {
    let sut: StoreUnderTest;
    let store: EndDeviceStore;
    beforeAll(async () => {
      sut = await open();
      store = sut.store;
    });
    afterAll(async () => sut.close());

    it('creates and gets a device with every IS field, round-tripped exactly', async () => {
      const d = device('app-rt', 'dev-1', {
        ids: { device_id: 'dev-1', application_ids: { application_id: 'app-rt' }, dev_eui: '70B3D57ED005B59E', join_eui: '0000000000000000' },
        name: 'Dévice ✓',
        description: 'd'.repeat(2000),
        attributes: { key: 'value' },
        version_ids: { brand_id: 'brand', model_id: 'model', hardware_version: '1.0', firmware_version: '2.0' },
        service_profile_id: 'sp',
        network_server_address: 'ns.example.com:8884',
        application_server_address: 'as.example.com',
        join_server_address: 'js.example.com',
        locations: { user: { latitude: 52.1, longitude: 4.3, altitude: 12, source: 'SOURCE_REGISTRY' } },
        picture: { sizes: { '0': 'https://example.com/p.png' } },
      });
      expect(await store.create(d)).toEqual({ ok: true });
      expect(await store.get('app-rt', 'dev-1')).toEqual(d);
      expect(await store.findByEuis('0000000000000000', '70B3D57ED005B59E')).toEqual(d);
    });

    it('answers undefined for a missing device and false when deleting it', async () => {
      expect(await store.get('app-rt', 'nope')).toBeUndefined();
      expect(await store.findByEuis('0000000000000001', '0000000000000001')).toBeUndefined();
      expect(await store.delete('app-rt', 'nope')).toBe(false);
    });

    it('device IDs are unique per application, not globally', async () => {
      expect(await store.create(device('app-u1', 'same'))).toEqual({ ok: true });
      expect(await store.create(device('app-u1', 'same'))).toEqual({ ok: false, conflict: 'id' });
      expect(await store.create(device('app-u2', 'same'))).toEqual({ ok: true });
    });

    it('the (JoinEUI, DevEUI) pair is unique across applications when both are set', async () => {
      const ids = (app: string, id: string, dev_eui?: string, join_eui?: string) =>
        device(app, id, { ids: { device_id: id, application_ids: { application_id: app }, dev_eui, join_eui } });
      expect(await store.create(ids('app-e1', 'holder', '0102030405060708', '1112131415161718'))).toEqual({ ok: true });
      expect(await store.create(ids('app-e2', 'taker', '0102030405060708', '1112131415161718'))).toEqual({
        ok: false,
        conflict: 'euis',
        holder: { device_id: 'holder', application_ids: { application_id: 'app-e1' }, dev_eui: '0102030405060708', join_eui: '1112131415161718' },
      });
      expect(await store.get('app-e2', 'taker')).toBeUndefined();
      expect(await store.create(ids('app-e2', 'other-join', '0102030405060708', '2122232425262728'))).toEqual({ ok: true });
      expect(await store.create(ids('app-e2', 'dev-only-1', '0102030405060708'))).toEqual({ ok: true });
      expect(await store.create(ids('app-e2', 'dev-only-2', '0102030405060708'))).toEqual({ ok: true });
    });

    describe('list', () => {
      const app = 'app-list';
      beforeAll(async () => {
        const rows: Array<[string, string, string, string]> = [
          ['d-c', 'Bravo', 'zulu', '0000000000000003'],
          ['d-a', 'alpha', 'yankee', '0000000000000002'],
          ['d-b', 'Bravo', 'x-ray', '0000000000000001'],
          ['d-d', '', '', '0000000000000004'],
        ];
        let offset = 0;
        for (const [id, name, description, eui] of rows) {
          const now = ts((offset += 1000));
          await store.create({
            ids: { device_id: id, application_ids: { application_id: app }, dev_eui: eui, join_eui: 'FFFFFFFFFFFFFFFF' },
            created_at: now,
            updated_at: now,
            name: name || undefined,
            description: description || undefined,
          });
        }
        await store.create(device('app-list-other', 'd-z'));
      });
      const ids = async (order: Parameters<EndDeviceStore['list']>[1]['order'], descending = false, limit = 10, offset = 0) =>
        (await store.list(app, { order, descending, limit, offset })).devices.map((d) => d.ids.device_id);

      it('orders by device_id by default, and reverses with descending', async () => {
        expect(await ids('device_id')).toEqual(['d-a', 'd-b', 'd-c', 'd-d']);
        expect(await ids('device_id', true)).toEqual(['d-d', 'd-c', 'd-b', 'd-a']);
      });

      it('orders by name in code-point order, ties broken by device_id in the same direction', async () => {
        expect(await ids('name')).toEqual(['d-d', 'd-b', 'd-c', 'd-a']);
        expect(await ids('name', true)).toEqual(['d-a', 'd-c', 'd-b', 'd-d']);
      });

      it('orders by description, created_at, dev_eui and join_eui', async () => {
        expect(await ids('description')).toEqual(['d-d', 'd-b', 'd-a', 'd-c']);
        expect(await ids('created_at')).toEqual(['d-c', 'd-a', 'd-b', 'd-d']);
        expect(await ids('created_at', true)).toEqual(['d-d', 'd-b', 'd-a', 'd-c']);
        expect(await ids('dev_eui')).toEqual(['d-b', 'd-a', 'd-c', 'd-d']);
        expect(await ids('join_eui')).toEqual(['d-a', 'd-b', 'd-c', 'd-d']);
      });

      it('paginates with limit and offset and counts all devices of the application only', async () => {
        expect(await ids('device_id', false, 2, 0)).toEqual(['d-a', 'd-b']);
        expect(await ids('device_id', false, 2, 2)).toEqual(['d-c', 'd-d']);
        const past = await store.list(app, { order: 'device_id', descending: false, limit: 2, offset: 10 });
        expect(past).toEqual({ devices: [], total: 4 });
      });
    });

    it('replace succeeds only against the expected updated_at (optimistic concurrency)', async () => {
      const d = device('app-r', 'dev-r', { name: 'before', attributes: { a: '1' } });
      await store.create(d);
      const changed = { ...d, name: 'after', attributes: undefined, description: 'now', updated_at: ts(60000) };
      expect(await store.replace(changed, d.updated_at)).toBe(true);
      expect(await store.get('app-r', 'dev-r')).toEqual({ ...changed, attributes: undefined });
      expect(await store.replace({ ...changed, name: 'stale' }, d.updated_at)).toBe(false);
      expect((await store.get('app-r', 'dev-r'))?.name).toBe('after');
    });

    it('deletes', async () => {
      await store.create(device('app-d', 'dev-d'));
      expect(await store.delete('app-d', 'dev-d')).toBe(true);
      expect(await store.get('app-d', 'dev-d')).toBeUndefined();
    });
  });
}
