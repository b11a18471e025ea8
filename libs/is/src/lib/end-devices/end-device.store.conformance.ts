import { type EndDeviceStore, type IsEndDevice, type ListOptions, SEARCH_COUNT_MAX, type SearchFilter } from './end-device.model';

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

    describe('search', () => {
      const app = 'app-search';
      const rows: Array<[string, string, string, string, Record<string, string>]> = [
        ['sensor-a', 'Kitchen Sensor', 'first floor', '70B3D57ED005B59E', { room: 'Kitchen-North', floor: '1' }],
        ['sensor-b', 'kitchen light', 'ground floor', '70B3D57ED005B5AA', { room: 'pantry' }],
        ['meter-1', 'Meter', '100% sure', '0004A30B001C0530', { room: 'cellar' }],
        ['meter-2', 'meter_2', 'under 100', '0004A30B001C0531', {}],
        ['valve', '', '', '', {}],
      ];
      beforeAll(async () => {
        for (const [id, name, description, eui, attributes] of rows) {
          await store.create(
            device(app, id, {
              ids: { device_id: id, application_ids: { application_id: app }, ...(eui ? { dev_eui: eui, join_eui: eui.split('').reverse().join('') } : {}) },
              ...(name ? { name } : {}),
              ...(description ? { description } : {}),
              ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
            }),
          );
        }
        await store.create(device('app-search-other', 'sensor-z', { name: 'Kitchen Sensor' }));
      });
      const search = async (filter: SearchFilter, order: ListOptions['order'] = 'device_id', descending = false, limit = 10, offset = 0) => {
        const { devices, total } = await store.search(app, filter, { order, descending, limit, offset });
        return { ids: devices.map((d) => d.ids.device_id), total };
      };

      it('matches substrings of the ID, name and description, case-insensitively, within the application only', async () => {
        expect(await search({ id_contains: 'SENSOR' })).toEqual({ ids: ['sensor-a', 'sensor-b'], total: 2 });
        expect(await search({ name_contains: 'kitchen' })).toEqual({ ids: ['sensor-a', 'sensor-b'], total: 2 });
        expect(await search({ description_contains: 'FLOOR' })).toEqual({ ids: ['sensor-a', 'sensor-b'], total: 2 });
        expect(await search({ name_contains: 'nothing' })).toEqual({ ids: [], total: 0 });
      });

      it('matches EUIs as hexadecimal substrings in either case', async () => {
        expect(await search({ dev_eui_contains: 'b5a' })).toEqual({ ids: ['sensor-b'], total: 1 });
        expect(await search({ dev_eui_contains: '0004a30b' })).toEqual({ ids: ['meter-1', 'meter-2'], total: 2 });
        expect(await search({ join_eui_contains: '0350C1' })).toEqual({ ids: ['meter-1'], total: 1 });
      });

      it('matches attribute values by key, each pair given must hold', async () => {
        expect(await search({ attributes_contain: { room: 'kitchen' } })).toEqual({ ids: ['sensor-a'], total: 1 });
        expect(await search({ attributes_contain: { room: 'E' } })).toEqual({ ids: ['meter-1', 'sensor-a'], total: 2 });
        expect(await search({ attributes_contain: { room: 'e', floor: '1' } })).toEqual({ ids: ['sensor-a'], total: 1 });
        expect(await search({ attributes_contain: { room: 'e', floor: '2' } })).toEqual({ ids: [], total: 0 });
        expect(await search({ attributes_contain: { missing: 'a' } })).toEqual({ ids: [], total: 0 });
      });

      it('every filter given must hold; query matches the ID, name, description or an EUI', async () => {
        expect(await search({ id_contains: 'sensor', name_contains: 'light' })).toEqual({ ids: ['sensor-b'], total: 1 });
        expect(await search({ query: 'METER' })).toEqual({ ids: ['meter-1', 'meter-2'], total: 2 });
        expect(await search({ query: 'ground' })).toEqual({ ids: ['sensor-b'], total: 1 });
        expect(await search({ query: 'd005b59' })).toEqual({ ids: ['sensor-a'], total: 1 });
        expect(await search({ query: 'valve', name_contains: 'x' })).toEqual({ ids: [], total: 0 });
      });

      it('takes % and _ literally', async () => {
        expect(await search({ description_contains: '100%' })).toEqual({ ids: ['meter-1'], total: 1 });
        expect(await search({ description_contains: '%' })).toEqual({ ids: ['meter-1'], total: 1 });
        expect(await search({ name_contains: '_' })).toEqual({ ids: ['meter-2'], total: 1 });
        expect(await search({ name_contains: 'r_2' })).toEqual({ ids: ['meter-2'], total: 1 });
        expect(await search({ id_contains: 'meter_' })).toEqual({ ids: [], total: 0 });
        expect(await search({ id_contains: '!' })).toEqual({ ids: [], total: 0 });
      });

      it('orders and pages the matches as List does, the total counting every match', async () => {
        const filter = { query: 'e' };
        expect(await search(filter)).toEqual({ ids: ['meter-1', 'meter-2', 'sensor-a', 'sensor-b', 'valve'], total: 5 });
        expect(await search(filter, 'device_id', true)).toEqual({ ids: ['valve', 'sensor-b', 'sensor-a', 'meter-2', 'meter-1'], total: 5 });
        expect(await search(filter, 'name')).toEqual({ ids: ['valve', 'sensor-a', 'meter-1', 'sensor-b', 'meter-2'], total: 5 });
        expect(await search(filter, 'dev_eui', true, 2, 0)).toEqual({ ids: ['sensor-b', 'sensor-a'], total: 5 });
        // Each page, from the start or (past the middle) from the end, is the slice of the whole.
        for (const [limit, offset] of [
          [2, 0],
          [2, 2],
          [2, 4],
          [3, 3],
        ]) {
          const all = (await search(filter, 'created_at', true)).ids;
          expect(await search(filter, 'created_at', true, limit, offset)).toEqual({ ids: all.slice(offset, offset + limit), total: 5 });
        }
        expect(await search(filter, 'device_id', false, 2, 10)).toEqual({ ids: [], total: 5 });
      });

      it(`counts at most ${SEARCH_COUNT_MAX} matches; pages below the bound are read from the start`, async () => {
        const many = 'app-search-many';
        for (let start = 0; start <= SEARCH_COUNT_MAX; start += 1000) {
          const batch = Array.from({ length: Math.min(1000, SEARCH_COUNT_MAX + 1 - start) }, (_, i) => device(many, `d-${String(start + i).padStart(5, '0')}`));
          expect(await store.createMany(batch)).toEqual({ ok: true });
        }
        const last = await store.search(many, { id_contains: 'd-' }, { order: 'device_id', descending: false, limit: 2, offset: SEARCH_COUNT_MAX - 2 });
        expect(last.total).toBe(SEARCH_COUNT_MAX);
        expect(last.devices.map((d) => d.ids.device_id)).toEqual(['d-09998', 'd-09999']);
        // Below the bound the count is exact, and a page past the middle is read from the end.
        const exact = await store.search(many, { id_contains: 'd-01' }, { order: 'device_id', descending: false, limit: 3, offset: 998 });
        expect(exact.total).toBe(1000);
        expect(exact.devices.map((d) => d.ids.device_id)).toEqual(['d-01998', 'd-01999']);
      });

      it('without filters is the whole application', async () => {
        expect(await search({})).toEqual({ ids: ['meter-1', 'meter-2', 'sensor-a', 'sensor-b', 'valve'], total: 5 });
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

    describe('batches and the kept count', () => {
      const total = async (app: string) => (await store.list(app, { order: 'device_id', descending: false, limit: 1, offset: 0 })).total;
      const euis = (app: string, id: string, n: number) =>
        device(app, id, {
          ids: { device_id: id, application_ids: { application_id: app }, dev_eui: n.toString(16).padStart(16, '0'), join_eui: 'AAAAAAAAAAAAAAAA' },
        });

      it('createMany stores all devices or, on a conflict, none, naming the first device that has one', async () => {
        const batch = Array.from({ length: 300 }, (_, i) => euis('app-bc', `dev-${i}`, 0x1000 + i));
        expect(await store.createMany(batch)).toEqual({ ok: true });
        expect(await store.get('app-bc', 'dev-299')).toEqual(batch[299]);
        expect(await total('app-bc')).toBe(300);
        expect(await store.createMany([device('app-bc', 'new-1'), device('app-bc', 'dev-7')])).toEqual({ ok: false, index: 1, conflict: 'id' });
        expect(await store.createMany([device('app-bc', 'new-1'), device('app-bc', 'new-2'), euis('app-bc2', 'new-3', 0x1005)])).toEqual({
          ok: false,
          index: 2,
          conflict: 'euis',
          holder: batch[5].ids,
        });
        expect(await store.get('app-bc', 'new-1')).toBeUndefined();
        expect(await total('app-bc')).toBe(300);
        expect(await total('app-bc2')).toBe(0);
      });

      it('getMany and deleteMany take the devices found, by device ID, and skip the others', async () => {
        expect((await store.getMany('app-bc', ['dev-3', 'nope', 'dev-10'])).map((d) => d.ids.device_id)).toEqual(['dev-10', 'dev-3']);
        expect(await store.getMany('app-bc', ['nope'])).toEqual([]);
        expect(await store.deleteMany('app-bc', ['dev-3', 'nope', 'dev-10'])).toEqual([
          {
            device_id: 'dev-10',
            application_ids: { application_id: 'app-bc' },
            dev_eui: (0x1000 + 10).toString(16).padStart(16, '0'),
            join_eui: 'AAAAAAAAAAAAAAAA',
          },
          {
            device_id: 'dev-3',
            application_ids: { application_id: 'app-bc' },
            dev_eui: (0x1000 + 3).toString(16).padStart(16, '0'),
            join_eui: 'AAAAAAAAAAAAAAAA',
          },
        ]);
        expect(await store.deleteMany('app-bc', ['dev-3', 'nope'])).toEqual([]);
        expect(await store.get('app-bc', 'dev-3')).toBeUndefined();
        expect(await total('app-bc')).toBe(298);
      });

      it('the count stays right under concurrent creates, batch creates and deletes (each device counted once)', async () => {
        const app = 'app-count';
        const singles = Array.from({ length: 40 }, (_, i) => device(app, `s-${i}`));
        const batches = Array.from({ length: 4 }, (_, b) => Array.from({ length: 25 }, (_, i) => device(app, `b-${b}-${i}`)));
        await store.create(device(app, 'pre'));
        const results = await Promise.all([
          ...singles.map((d) => store.create(d)),
          ...singles.slice(0, 10).map((d) => store.create(d)),
          ...batches.map((batch) => store.createMany(batch)),
          store.createMany([device(app, 'loser-1'), device(app, 'pre')]),
        ]);
        expect(results.filter((r) => r.ok)).toHaveLength(40 + 4);
        const stored = 1 + 40 + 100;
        expect(await total(app)).toBe(stored);
        const deletes = await Promise.all([
          ...singles.map((d) => store.delete(app, d.ids.device_id)),
          ...singles.slice(0, 20).map((d) => store.delete(app, d.ids.device_id)),
          store.deleteMany(app, ['b-0-0', 'b-0-1', 's-1', 'nope']),
          store.deleteMany(app, ['b-0-1', 'b-0-2', 's-2']),
        ]);
        const deleted = deletes.filter((r) => r === true).length + deletes.filter(Array.isArray).reduce((n, r) => n + r.length, 0);
        expect(deleted).toBe(43);
        const listed = await store.list(app, { order: 'device_id', descending: false, limit: 1000, offset: 0 });
        expect(listed.total).toBe(stored - 43);
        expect(listed.devices).toHaveLength(stored - 43);
      });

      it('pages from either end of the index alike: every page of every order matches the whole list', async () => {
        const app = 'app-pages';
        await store.createMany(
          Array.from({ length: 23 }, (_, i) =>
            device(app, `p-${String(i).padStart(2, '0')}`, { name: `n${i % 4}`, description: i % 3 ? `d${i % 5}` : undefined }),
          ),
        );
        for (const order of ['device_id', 'name', 'description', 'created_at'] as const) {
          for (const descending of [false, true]) {
            const all = (await store.list(app, { order, descending, limit: 100, offset: 0 })).devices.map((d) => d.ids.device_id);
            expect(all).toHaveLength(23);
            for (const limit of [1, 5, 10]) {
              const pages: string[] = [];
              for (let offset = 0; offset < 23; offset += limit) {
                const page = await store.list(app, { order, descending, limit, offset });
                expect(page.total).toBe(23);
                pages.push(...page.devices.map((d) => d.ids.device_id));
              }
              expect(pages).toEqual(all);
            }
          }
        }
      });
    });

    it('deletes', async () => {
      await store.create(device('app-d', 'dev-d'));
      expect(await store.delete('app-d', 'dev-d')).toBe(true);
      expect(await store.get('app-d', 'dev-d')).toBeUndefined();
    });
  });
}
