/**
 * The IS EndDeviceRegistry over HTTP, end to end, against both run modes: the gateway and the IS
 * as separate processes over NATS + MariaDB, and the all-in-one process on SQLite. Every endpoint
 * and every error, asserting status codes and the TTS error shape (wire contract §0–§4).
 */
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import {
  Api,
  type ApiResponse,
  createApplications,
  expectPlainStatus,
  expectStatus,
  expectTtsError,
  expectValidationError,
  sleep,
  TIMESTAMP_6,
  ULID,
} from './http-client';

type Start = () => Promise<StackUnderTest>;

const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack()],
  ['embedded', () => startEmbeddedStack()],
];

const devicesPath = (app: string) => `/api/v3/applications/${app}/devices`;
const devicePath = (app: string, dev: string) => `/api/v3/applications/${app}/devices/${dev}`;
const ids = (res: ApiResponse): string[] => (res.json?.end_devices ?? []).map((d: { ids: { device_id: string } }) => d.ids.device_id);

/**
 * Every application the suite puts devices in or looks devices up in, created by the admin at
 * the start (a device needs its application to exist). Never created: `no-such-app`.
 */
const APPLICATIONS = [
  'app1',
  'other-app',
  'get-app',
  'upd-app',
  'list-app',
  'empty-app',
  'bulk-app',
  'uniq-app',
  'uniq-app2',
  'del-app',
  'del-app2',
  'bad-app',
  'limits-app',
  'robust-app',
  'case-app',
  'auth-app',
  'search-app',
  'search-app2',
  ...Array.from({ length: 5 }, (_, i) => `race-app-${i}`),
];

describe.each(MODES)('EndDeviceRegistry over HTTP (%s)', (mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);

  beforeAll(async () => {
    stack = await start();
    await createApplications(api, APPLICATIONS);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  async function create(app: string, endDevice: Record<string, unknown>): Promise<ApiResponse> {
    const res = await api.post(devicesPath(app), { end_device: endDevice });
    expectStatus(res, 200);
    return res;
  }

  async function expectNotStored(app: string, dev: string): Promise<void> {
    const res = await api.get(devicePath(app, dev));
    expectTtsError(res, 404, 5, 'pkg/identityserver/store', 'end_device_not_found', { application_id: app, device_id: dev });
  }

  // ------------------------------------------------------------------------------------------
  describe('Create', () => {
    const full = {
      ids: { device_id: 'dev-full', dev_eui: '70b3d57ed005b59e', join_eui: Buffer.from('0102030405060708', 'hex').toString('base64') },
      name: 'Full device',
      description: 'Every IS field set',
      attributes: { 'key-one': 'value 1', 'key-two': 'value 2' },
      version_ids: { brand_id: 'the-things-products', model_id: 'the-things-uno', hardware_version: '1.0', firmware_version: 'quickstart' },
      network_server_address: 'ns.example.com',
      application_server_address: 'as.example.com:8884',
      join_server_address: 'js.example.com',
      service_profile_id: 'profile-1',
      locations: { user: { latitude: 52.37, longitude: 4.89, altitude: 10, accuracy: 5, source: 'SOURCE_REGISTRY' } },
      picture: { sizes: { '0': 'https://example.com/picture.png' } },
    };
    const expectedIsFields = {
      name: full.name,
      description: full.description,
      attributes: full.attributes,
      version_ids: full.version_ids,
      network_server_address: full.network_server_address,
      application_server_address: full.application_server_address,
      join_server_address: full.join_server_address,
      service_profile_id: full.service_profile_id,
      locations: full.locations,
      picture: full.picture,
    };
    const expectedIds = {
      device_id: 'dev-full',
      application_ids: { application_id: 'app1' },
      dev_eui: '70B3D57ED005B59E',
      join_eui: '0102030405060708',
    };
    let created: ApiResponse;

    it('answers 200 with the ids (EUIs as upper-case hex) and equal RFC 3339 timestamps', async () => {
      created = await create('app1', full);
      const d = created.json;
      expect(d.ids).toEqual(expectedIds);
      expect(d.created_at).toMatch(TIMESTAMP_6);
      expect(d.updated_at).toMatch(TIMESTAMP_6);
      expect(d.created_at).toBe(d.updated_at);
      expect(Math.abs(Date.parse(d.created_at) - Date.now())).toBeLessThan(5 * 60_000);
      expect(d).toEqual(expect.objectContaining(expectedIsFields));
    });

    it('stores every IS field, returned by Get with a mask', async () => {
      const mask = Object.keys(expectedIsFields).join(',');
      const res = await api.get(`${devicePath('app1', 'dev-full')}?field_mask=${mask}`);
      expectStatus(res, 200);
      expect(res.json).toEqual({ ids: expectedIds, created_at: created.json.created_at, updated_at: created.json.updated_at, ...expectedIsFields });
    });

    it('does not store fields of other registries (keys, NS settings)', async () => {
      const res = await create('app1', {
        ids: { device_id: 'dev-extra' },
        name: 'Extra',
        frequency_plan_id: 'EU_863_870_TTN',
        lorawan_version: 'MAC_V1_0_3',
        root_keys: { app_key: { key: '00112233445566778899AABBCCDDEEFF' } },
      });
      expect(res.json).not.toHaveProperty('root_keys');
      expect(res.json).not.toHaveProperty('frequency_plan_id');
      expect(res.json).not.toHaveProperty('lorawan_version');
      expect(res.json.name).toBe('Extra');
      expect(res.json.ids).toEqual({ device_id: 'dev-extra', application_ids: { application_id: 'app1' } });
    });

    it('accepts EUIs as upper-case hex and as URL-safe base64 without padding', async () => {
      const res = await create('app1', {
        ids: { device_id: 'dev-eui-forms', dev_eui: 'A1B2C3D4E5F60708', join_eui: Buffer.from('ffeeddccbbaa9988', 'hex').toString('base64url') },
      });
      expect(res.json.ids.dev_eui).toBe('A1B2C3D4E5F60708');
      expect(res.json.ids.join_eui).toBe('FFEEDDCCBBAA9988');
    });

    it('accepts lowerCamelCase field names in request bodies (wire contract §0)', async () => {
      const res = await api.post(devicesPath('app1'), {
        endDevice: { ids: { deviceId: 'dev-camel', devEui: '0102030405060709', joinEui: '0000000000000001' }, name: 'Camel', serviceProfileId: 'sp-camel' },
      });
      expectStatus(res, 200);
      expect(res.json.ids).toEqual(expect.objectContaining({ device_id: 'dev-camel', dev_eui: '0102030405060709', join_eui: '0000000000000001' }));
      expect(res.json.service_profile_id).toBe('sp-camel');
      const upd = await api.put(devicePath('app1', 'dev-camel'), { endDevice: { name: 'Camel 2' }, fieldMask: { paths: ['name'] } });
      expectStatus(upd, 200);
      expect(upd.json.name).toBe('Camel 2');
    });

    it('an application that does not exist → 404 application_not_found', async () => {
      const res = await api.post(devicesPath('no-such-app'), { end_device: { ids: { device_id: 'dev-orphan' } } });
      expectTtsError(res, 404, 5, 'pkg/identityserver/store', 'application_not_found');
    });

    it('takes the application from the path, overriding the body', async () => {
      const res = await create('app1', { ids: { device_id: 'dev-path-app', application_ids: { application_id: 'other-app' } } });
      expect(res.json.ids.application_ids).toEqual({ application_id: 'app1' });
      await expectNotStored('other-app', 'dev-path-app');
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Get', () => {
    beforeAll(async () => {
      await create('get-app', {
        ids: { device_id: 'dev-get', dev_eui: '0004A30B001C0530', join_eui: '0000000000000000' },
        name: 'Get me',
        description: 'A description',
        attributes: { foo: 'bar' },
        version_ids: { brand_id: 'brand-a', model_id: 'model-b', hardware_version: '2.0', firmware_version: '1.1' },
      });
    });

    it('without a mask returns only ids, created_at and updated_at', async () => {
      const res = await api.get(devicePath('get-app', 'dev-get'));
      expectStatus(res, 200);
      expect(Object.keys(res.json).sort()).toEqual(['created_at', 'ids', 'updated_at']);
      expect(res.json.ids).toEqual({
        device_id: 'dev-get',
        application_ids: { application_id: 'get-app' },
        dev_eui: '0004A30B001C0530',
        join_eui: '0000000000000000',
      });
    });

    it('accepts ?field_mask=name,description (comma form)', async () => {
      const res = await api.get(`${devicePath('get-app', 'dev-get')}?field_mask=name,description`);
      expectStatus(res, 200);
      expect(Object.keys(res.json).sort()).toEqual(['created_at', 'description', 'ids', 'name', 'updated_at']);
      expect(res.json.name).toBe('Get me');
      expect(res.json.description).toBe('A description');
    });

    it('accepts ?field_mask.paths=name&field_mask.paths=description', async () => {
      const res = await api.get(`${devicePath('get-app', 'dev-get')}?field_mask.paths=name&field_mask.paths=description`);
      expectStatus(res, 200);
      expect(Object.keys(res.json).sort()).toEqual(['created_at', 'description', 'ids', 'name', 'updated_at']);
    });

    it('a parent path selects the whole subtree; a child path only itself', async () => {
      const parent = await api.get(`${devicePath('get-app', 'dev-get')}?field_mask=version_ids`);
      expectStatus(parent, 200);
      expect(parent.json.version_ids).toEqual({ brand_id: 'brand-a', model_id: 'model-b', hardware_version: '2.0', firmware_version: '1.1' });
      expect(parent.json).not.toHaveProperty('name');
      const child = await api.get(`${devicePath('get-app', 'dev-get')}?field_mask=version_ids.brand_id`);
      expectStatus(child, 200);
      expect(child.json.version_ids).toEqual({ brand_id: 'brand-a' });
    });

    it('forbidden mask paths → 400 field_mask_paths listing them', async () => {
      const res = await api.get(`${devicePath('get-app', 'dev-get')}?field_mask=name,root_keys,session`);
      const details = expectTtsError(res, 400, 3, 'pkg/rpcmiddleware/validator', 'field_mask_paths');
      expect([...(details.attributes?.forbidden_paths as string[])].sort()).toEqual(['root_keys', 'session']);
    });

    it('a missing device → 404 end_device_not_found with application_id and device_id', async () => {
      const res = await api.get(devicePath('get-app', 'no-such-dev'));
      const details = expectTtsError(res, 404, 5, 'pkg/identityserver/store', 'end_device_not_found', { application_id: 'get-app', device_id: 'no-such-dev' });
      expect(res.json.message).toContain('no-such-dev');
      expect(details.message_format).toContain('{device_id}');
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Update', () => {
    let before: ApiResponse;
    beforeAll(async () => {
      before = await create('upd-app', {
        ids: { device_id: 'dev-upd', dev_eui: '1111111111111111', join_eui: '2222222222222222' },
        name: 'Before',
        description: 'Old description',
        attributes: { keep: 'me' },
        service_profile_id: 'sp-1',
      });
    });

    it('changes only masked paths; a masked path absent from the body is cleared', async () => {
      await sleep(5);
      const res = await api.put(devicePath('upd-app', 'dev-upd'), {
        end_device: { ids: { device_id: 'dev-upd' }, name: 'After', service_profile_id: 'sp-ignored' },
        field_mask: { paths: ['name', 'description'] },
      });
      expectStatus(res, 200);
      expect(res.json.name).toBe('After');
      expect(res.json).not.toHaveProperty('description');
      expect(res.json).not.toHaveProperty('service_profile_id');
      expect(res.json.created_at).toBe(before.json.created_at);
      expect(res.json.updated_at).toMatch(TIMESTAMP_6);
      expect(Date.parse(res.json.updated_at)).toBeGreaterThan(Date.parse(before.json.updated_at));
      expect(res.json.ids).toEqual(before.json.ids);

      const got = await api.get(`${devicePath('upd-app', 'dev-upd')}?field_mask=name,description,attributes,service_profile_id`);
      expectStatus(got, 200);
      expect(got.json.name).toBe('After');
      expect(got.json).not.toHaveProperty('description');
      expect(got.json.attributes).toEqual({ keep: 'me' });
      expect(got.json.service_profile_id).toBe('sp-1');
      expect(got.json.updated_at).toBe(res.json.updated_at);
      expect(got.json.created_at).toBe(before.json.created_at);
    });

    it('path ids override body ids (a body with another device_id updates the path device)', async () => {
      const res = await api.put(devicePath('upd-app', 'dev-upd'), {
        end_device: { ids: { device_id: 'someone-else', application_ids: { application_id: 'elsewhere' } }, name: 'Via path' },
        field_mask: { paths: ['name'] },
      });
      expectStatus(res, 200);
      expect(res.json.ids.device_id).toBe('dev-upd');
      expect(res.json.ids.application_ids.application_id).toBe('upd-app');
      const got = await api.get(`${devicePath('upd-app', 'dev-upd')}?field_mask=name`);
      expect(got.json.name).toBe('Via path');
      await expectNotStored('upd-app', 'someone-else');
    });

    it('accepts the string form "field_mask":"name,description"', async () => {
      const res = await api.put(devicePath('upd-app', 'dev-upd'), {
        end_device: { ids: { device_id: 'dev-upd' }, name: 'String mask', description: 'Back again' },
        field_mask: 'name,description',
      });
      expectStatus(res, 200);
      const got = await api.get(`${devicePath('upd-app', 'dev-upd')}?field_mask=name,description`);
      expect(got.json.name).toBe('String mask');
      expect(got.json.description).toBe('Back again');
    });

    it('updates nested fields by sub-path (version_ids.brand_id)', async () => {
      const res = await api.put(devicePath('upd-app', 'dev-upd'), {
        end_device: { ids: { device_id: 'dev-upd' }, version_ids: { brand_id: 'new-brand', model_id: 'not-masked' } },
        field_mask: { paths: ['version_ids.brand_id'] },
      });
      expectStatus(res, 200);
      const got = await api.get(`${devicePath('upd-app', 'dev-upd')}?field_mask=version_ids`);
      expect(got.json.version_ids).toEqual({ brand_id: 'new-brand' });
    });

    it('an empty mask changes nothing but updated_at', async () => {
      const prev = await api.get(`${devicePath('upd-app', 'dev-upd')}?field_mask=name,description`);
      await sleep(5);
      const res = await api.put(devicePath('upd-app', 'dev-upd'), { end_device: { ids: { device_id: 'dev-upd' }, name: 'Ignored' } });
      expectStatus(res, 200);
      const got = await api.get(`${devicePath('upd-app', 'dev-upd')}?field_mask=name,description`);
      expect(got.json.name).toBe(prev.json.name);
      expect(got.json.description).toBe(prev.json.description);
      expect(Date.parse(got.json.updated_at)).toBeGreaterThanOrEqual(Date.parse(prev.json.updated_at));
    });

    it('forbidden path ids.device_id → 400 field_mask_paths', async () => {
      const res = await api.put(devicePath('upd-app', 'dev-upd'), {
        end_device: { ids: { device_id: 'dev-upd' }, name: 'No' },
        field_mask: { paths: ['name', 'ids.device_id', 'created_at'] },
      });
      const details = expectTtsError(res, 400, 3, 'pkg/rpcmiddleware/validator', 'field_mask_paths');
      expect([...(details.attributes?.forbidden_paths as string[])].sort()).toEqual(['created_at', 'ids.device_id']);
      const got = await api.get(`${devicePath('upd-app', 'dev-upd')}?field_mask=name`);
      expect(got.json.name).toBe('String mask');
    });

    it('an invalid value → 400 validation and nothing changes', async () => {
      const res = await api.put(devicePath('upd-app', 'dev-upd'), {
        end_device: { ids: { device_id: 'dev-upd' }, name: 'x'.repeat(51) },
        field_mask: { paths: ['name'] },
      });
      expectValidationError(res, 'name');
      const got = await api.get(`${devicePath('upd-app', 'dev-upd')}?field_mask=name`);
      expect(got.json.name).toBe('String mask');
    });

    it('a missing device → 404 end_device_not_found', async () => {
      const res = await api.put(devicePath('upd-app', 'ghost'), {
        end_device: { ids: { device_id: 'ghost' }, name: 'Ghost' },
        field_mask: { paths: ['name'] },
      });
      expectTtsError(res, 404, 5, 'pkg/identityserver/store', 'end_device_not_found', { application_id: 'upd-app', device_id: 'ghost' });
      await expectNotStored('upd-app', 'ghost');
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('List', () => {
    // Created in this order (created_at order): c, a, e, b, d. Names sort c, e, b, d, a.
    const devices: Array<[string, string]> = [
      ['dev-c', 'Alpha'],
      ['dev-a', 'Echo'],
      ['dev-e', 'Bravo'],
      ['dev-b', 'Delta'],
      ['dev-d', 'Charlie'],
    ];
    const byId = ['dev-a', 'dev-b', 'dev-c', 'dev-d', 'dev-e'];
    const byName = ['dev-c', 'dev-e', 'dev-d', 'dev-b', 'dev-a'];
    const byCreation = devices.map(([id]) => id);

    beforeAll(async () => {
      for (const [device_id, name] of devices) {
        await create('list-app', { ids: { device_id }, name, description: `desc of ${device_id}` });
        await sleep(3);
      }
    });

    it('answers {"end_devices":[…]} by device_id with X-Total-Count, default fields only', async () => {
      const res = await api.get(devicesPath('list-app'));
      expectStatus(res, 200);
      expect(res.headers.get('x-total-count')).toBe('5');
      expect(Object.keys(res.json)).toEqual(['end_devices']);
      expect(ids(res)).toEqual(byId);
      for (const d of res.json.end_devices) {
        expect(Object.keys(d).sort()).toEqual(['created_at', 'ids', 'updated_at']);
        expect(d.ids.application_ids).toEqual({ application_id: 'list-app' });
      }
    });

    it('field_mask adds fields to each entry', async () => {
      const res = await api.get(`${devicesPath('list-app')}?field_mask=name,description`);
      expectStatus(res, 200);
      const a = res.json.end_devices.find((d: { ids: { device_id: string } }) => d.ids.device_id === 'dev-a');
      expect(a).toEqual(expect.objectContaining({ name: 'Echo', description: 'desc of dev-a' }));
    });

    it('order=name (with name in the mask), order=-name', async () => {
      const asc = await api.get(`${devicesPath('list-app')}?field_mask=name&order=name`);
      expectStatus(asc, 200);
      expect(ids(asc)).toEqual(byName);
      const desc = await api.get(`${devicesPath('list-app')}?field_mask=name&order=-name`);
      expectStatus(desc, 200);
      expect(ids(desc)).toEqual([...byName].reverse());
    });

    it('order=created_at, order=-created_at, order=-device_id', async () => {
      const created = await api.get(`${devicesPath('list-app')}?order=created_at`);
      expectStatus(created, 200);
      expect(ids(created)).toEqual(byCreation);
      const createdDesc = await api.get(`${devicesPath('list-app')}?order=-created_at`);
      expectStatus(createdDesc, 200);
      expect(ids(createdDesc)).toEqual([...byCreation].reverse());
      const idDesc = await api.get(`${devicesPath('list-app')}?order=-device_id`);
      expectStatus(idDesc, 200);
      expect(ids(idDesc)).toEqual([...byId].reverse());
    });

    it('order=name without name in the mask → 400', async () => {
      const res = await api.get(`${devicesPath('list-app')}?order=name`);
      expectStatus(res, 400);
      expect(res.json.code).toBe(3);
      expect(res.json.details[0]['@type']).toBe('type.googleapis.com/ttn.lorawan.v3.ErrorDetails');
      expect(res.json.message).toMatch(/^error:[a-z/]+:[a-z_]+ /);
    });

    it('an unknown order → 400 validation of order', async () => {
      expectValidationError(await api.get(`${devicesPath('list-app')}?order=foo`), 'order');
      expectValidationError(await api.get(`${devicesPath('list-app')}?order=--name&field_mask=name`), 'order');
    });

    it('paginates with limit and page (page 0 == page 1)', async () => {
      const pages: string[][] = [];
      for (const page of [1, 2, 3]) {
        const res = await api.get(`${devicesPath('list-app')}?limit=2&page=${page}`);
        expectStatus(res, 200);
        expect(res.headers.get('x-total-count')).toBe('5');
        pages.push(ids(res));
      }
      expect(pages).toEqual([['dev-a', 'dev-b'], ['dev-c', 'dev-d'], ['dev-e']]);
      const page0 = await api.get(`${devicesPath('list-app')}?limit=2&page=0`);
      expect(ids(page0)).toEqual(['dev-a', 'dev-b']);
      const ordered = await api.get(`${devicesPath('list-app')}?limit=2&page=2&order=-device_id`);
      expect(ids(ordered)).toEqual(['dev-c', 'dev-b']);
    });

    it('a page past the end → {} with X-Total-Count still the total', async () => {
      const res = await api.get(`${devicesPath('list-app')}?limit=2&page=4`);
      expectStatus(res, 200);
      expect(res.json).toEqual({});
      expect(res.headers.get('x-total-count')).toBe('5');
    });

    it('an application without devices → {} with X-Total-Count 0', async () => {
      const res = await api.get(devicesPath('empty-app'));
      expectStatus(res, 200);
      expect(res.json).toEqual({});
      expect(res.headers.get('x-total-count')).toBe('0');
    });

    it('limit=1001 and limit=abc → 400 validation of limit; limit=1000 is fine', async () => {
      expectValidationError(await api.get(`${devicesPath('list-app')}?limit=1001`), 'limit');
      expectValidationError(await api.get(`${devicesPath('list-app')}?limit=abc`), 'limit');
      expectValidationError(await api.get(`${devicesPath('list-app')}?limit=-1`), 'limit');
      expectValidationError(await api.get(`${devicesPath('list-app')}?page=abc`), 'page');
      const ok = await api.get(`${devicesPath('list-app')}?limit=1000`);
      expectStatus(ok, 200);
      expect(ids(ok)).toEqual(byId);
    });

    it('forbidden mask paths → 400 field_mask_paths', async () => {
      const res = await api.get(`${devicesPath('list-app')}?field_mask=mac_state,name`);
      const details = expectTtsError(res, 400, 3, 'pkg/rpcmiddleware/validator', 'field_mask_paths');
      expect(details.attributes?.forbidden_paths).toEqual(['mac_state']);
    });

    it('defaults to 100 per page (105 devices)', async () => {
      const all = Array.from({ length: 105 }, (_, i) => `bulk-${String(i).padStart(3, '0')}`);
      for (let i = 0; i < all.length; i += 10) {
        const batch = all.slice(i, i + 10);
        const results = await Promise.all(batch.map((device_id) => api.post(devicesPath('bulk-app'), { end_device: { ids: { device_id } } })));
        results.forEach((r) => expectStatus(r, 200));
      }
      const first = await api.get(devicesPath('bulk-app'));
      expectStatus(first, 200);
      expect(first.headers.get('x-total-count')).toBe('105');
      expect(ids(first)).toEqual(all.slice(0, 100));
      const second = await api.get(`${devicesPath('bulk-app')}?page=2`);
      expectStatus(second, 200);
      expect(ids(second)).toEqual(all.slice(100));
      const big = await api.get(`${devicesPath('bulk-app')}?limit=1000`);
      expect(ids(big)).toEqual(all);
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Search (EndDeviceRegistrySearch.SearchEndDevices)', () => {
    const searchPath = (app: string, query: string) => `/api/v3/search/applications/${app}/devices?${query}`;
    beforeAll(async () => {
      const devices: Array<Record<string, unknown>> = [
        { ids: { device_id: 'sensor-a', dev_eui: '70B3D57ED005B59E', join_eui: '0000000000000001' }, name: 'Kitchen Sensor', attributes: { room: 'kitchen' } },
        { ids: { device_id: 'sensor-b', dev_eui: '70B3D57ED005B5AA', join_eui: '0000000000000001' }, name: 'hall light', description: '100% sure' },
        { ids: { device_id: 'meter-1' }, name: 'meter_1', attributes: { room: 'cellar' } },
        { ids: { device_id: 'valve' } },
      ];
      for (const endDevice of devices) await create('search-app', endDevice);
      await create('search-app2', { ids: { device_id: 'sensor-other' }, name: 'Kitchen Sensor' });
    });

    it('ID or name contains, case-insensitively, in the application only; the searched field answered; X-Total-Count', async () => {
      const byId = await api.get(searchPath('search-app', 'id_contains=SENSOR'));
      expectStatus(byId, 200);
      expect(ids(byId)).toEqual(['sensor-a', 'sensor-b']);
      expect(byId.headers.get('x-total-count')).toBe('2');
      expect(Object.keys(byId.json.end_devices[0]).sort()).toEqual(['created_at', 'ids', 'updated_at']);
      const byName = await api.get(searchPath('search-app', 'name_contains=kitchen'));
      expect(byName.json.end_devices).toEqual([expect.objectContaining({ ids: expect.objectContaining({ device_id: 'sensor-a' }), name: 'Kitchen Sensor' })]);
      const query = await api.get(searchPath('search-app', 'query=e&field_mask=name&order=-name&limit=2&page=2'));
      expectStatus(query, 200);
      expect(query.headers.get('x-total-count')).toBe('4');
      expect(ids(query)).toEqual(['sensor-a', 'valve']);
    });

    it('EUIs as hex substrings, attributes by key (`attributes_contain[key]=…`), % and _ literally', async () => {
      expect(ids(await api.get(searchPath('search-app', 'dev_eui_contains=d005b5a')))).toEqual(['sensor-b']);
      expect(ids(await api.get(searchPath('search-app', 'attributes_contain[room]=KIT')))).toEqual(['sensor-a']);
      expect(ids(await api.get(searchPath('search-app', 'attributes_contain.room=ell')))).toEqual(['meter-1']);
      expect(ids(await api.get(searchPath('search-app', 'description_contains=0%25')))).toEqual(['sensor-b']);
      expect(ids(await api.get(searchPath('search-app', 'name_contains=_')))).toEqual(['meter-1']);
      const none = await api.get(searchPath('search-app', 'id_contains=meter_'));
      expectStatus(none, 200);
      expect(none.json).toEqual({});
      expect(none.headers.get('x-total-count')).toBe('0');
    });

    it('validates as TTS: contains ≤ 50, EUIs ≤ 16, order as List, the order in the mask, IS paths only', async () => {
      expectValidationError(await api.get(searchPath('search-app', `name_contains=${'x'.repeat(51)}`)), 'name_contains');
      expectValidationError(await api.get(searchPath('search-app', `dev_eui_contains=${'0'.repeat(17)}`)), 'dev_eui_contains');
      expectValidationError(await api.get(searchPath('search-app', 'attributes_contain[BAD]=x')), /attributes_contain/);
      expectValidationError(await api.get(searchPath('search-app', 'order=foo')), 'order');
      expectValidationError(await api.get(searchPath('search-app', 'limit=1001')), 'limit');
      expectStatus(await api.get(searchPath('search-app', 'order=name')), 400);
      expectStatus(await api.get(searchPath('search-app', `name_contains=${'x'.repeat(50)}`)), 200);
      expectTtsError(await api.get(searchPath('search-app', 'field_mask=mac_state')), 400, 3, 'pkg/rpcmiddleware/validator', 'field_mask_paths');
    });

    it('needs RIGHT_APPLICATION_DEVICES_READ on the application', async () => {
      const key = async (rights: string[]) => {
        const res = await api.post('/api/v3/applications/search-app/api-keys', { name: 'search', rights });
        expectStatus(res, 200);
        return { authorization: `Bearer ${res.json.key as string}` };
      };
      const info = await key(['RIGHT_APPLICATION_INFO']);
      expectTtsError(await api.get(searchPath('search-app', 'id_contains=a'), { headers: info }), 403, 7, 'pkg/auth/rights', 'insufficient_application_rights');
      const read = await key(['RIGHT_APPLICATION_DEVICES_READ']);
      expect(ids(await api.get(searchPath('search-app', 'id_contains=sensor'), { headers: read }))).toEqual(['sensor-a', 'sensor-b']);
      expectTtsError(await api.get(searchPath('search-app2', 'id_contains=a'), { headers: read }), 403, 7, 'pkg/auth/rights', 'no_application_rights');
      expectStatus(await api.get(searchPath('search-app', 'id_contains=a'), { headers: {} }), 401);
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Uniqueness', () => {
    const J = '70B3D57ED0000001';
    const D = '0004A30B00000001';

    it('same device_id in the same application → 409 pkg/util/store:id_taken', async () => {
      await create('uniq-app', { ids: { device_id: 'dup-dev' }, name: 'First' });
      const res = await api.post(devicesPath('uniq-app'), { end_device: { ids: { device_id: 'dup-dev' }, name: 'Second' } });
      const details = expectTtsError(res, 409, 6, 'pkg/util/store', 'id_taken');
      if (details.cause) expect(details.cause).toEqual(expect.objectContaining({ namespace: 'pkg/util/store', name: 'already_exists' }));
      const got = await api.get(`${devicePath('uniq-app', 'dup-dev')}?field_mask=name`);
      expect(got.json.name).toBe('First');
    });

    it('same device_id in another application is fine', async () => {
      const res = await create('uniq-app2', { ids: { device_id: 'dup-dev' }, name: 'Elsewhere' });
      expect(res.json.ids.application_ids.application_id).toBe('uniq-app2');
    });

    it('same (join_eui, dev_eui) → 409 end_device_euis_taken naming the holder', async () => {
      await create('uniq-app', { ids: { device_id: 'eui-holder', join_eui: J, dev_eui: D } });
      const attrs = { join_eui: J, dev_eui: D, device_id: 'eui-holder', application_id: 'uniq-app' };
      const other = await api.post(devicesPath('uniq-app2'), {
        end_device: { ids: { device_id: 'eui-other', join_eui: J.toLowerCase(), dev_eui: D.toLowerCase() } },
      });
      expectTtsError(other, 409, 6, 'pkg/identityserver', 'end_device_euis_taken', attrs);
      expect(other.json.message).toContain('eui-holder');
      await expectNotStored('uniq-app2', 'eui-other');
      const same = await api.post(devicesPath('uniq-app'), {
        end_device: { ids: { device_id: 'eui-same-app', join_eui: J, dev_eui: Buffer.from(D, 'hex').toString('base64') } },
      });
      expectTtsError(same, 409, 6, 'pkg/identityserver', 'end_device_euis_taken', attrs);
      await expectNotStored('uniq-app', 'eui-same-app');
    });

    it('same dev_eui with another join_eui is fine', async () => {
      const res = await create('uniq-app2', { ids: { device_id: 'eui-other-join', join_eui: '70B3D57ED0000002', dev_eui: D } });
      expect(res.json.ids).toEqual(expect.objectContaining({ join_eui: '70B3D57ED0000002', dev_eui: D }));
    });

    it('concurrent creates of the same device_id: exactly one wins, the rest 409', async () => {
      const results = await Promise.all(Array.from({ length: 5 }, () => api.post(devicesPath('uniq-app'), { end_device: { ids: { device_id: 'race-dev' } } })));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) expectTtsError(r, 409, 6, 'pkg/util/store', 'id_taken');
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Delete', () => {
    it('answers 200 {}; Get afterwards 404; delete again 404', async () => {
      await create('del-app', { ids: { device_id: 'dev-del', join_eui: '1212121212121212', dev_eui: '3434343434343434' }, name: 'Doomed' });
      const res = await api.delete(devicePath('del-app', 'dev-del'));
      expectStatus(res, 200);
      expect(res.json).toEqual({});
      await expectNotStored('del-app', 'dev-del');
      const again = await api.delete(devicePath('del-app', 'dev-del'));
      expectTtsError(again, 404, 5, 'pkg/identityserver/store', 'end_device_not_found', { application_id: 'del-app', device_id: 'dev-del' });
      const list = await api.get(devicesPath('del-app'));
      expect(list.json).toEqual({});
      expect(list.headers.get('x-total-count')).toBe('0');
    });

    it('is a hard delete: the device_id and the EUI pair can be registered again', async () => {
      const res = await create('del-app2', { ids: { device_id: 'dev-del', join_eui: '1212121212121212', dev_eui: '3434343434343434' } });
      expect(res.json.ids.device_id).toBe('dev-del');
      const again = await create('del-app', { ids: { device_id: 'dev-del' }, name: 'Reborn' });
      expect(again.json.name).toBe('Reborn');
    });

    it('a bad device_id in the path → 400 naming device_id', async () => {
      expectValidationError(await api.delete(devicePath('del-app', 'Bad_ID')), 'device_id');
    });

    it('ignores an empty body sent with Content-Type: application/json (grpc-gateway ignores bodies on DELETE)', async () => {
      await create('del-app', { ids: { device_id: 'dev-del-ct' } });
      const res = await api.delete(devicePath('del-app', 'dev-del-ct'), { extraHeaders: { 'content-type': 'application/json' } });
      expectStatus(res, 200);
      expect(res.json).toEqual({});
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Bad input (400 in the TTS shape, nothing stored)', () => {
    const app = 'bad-app';

    it('malformed JSON body → 400 code 3', async () => {
      const res = await api.post(devicesPath(app), '{"end_device":{"ids":{"device_id":"dev-json"}');
      expectPlainStatus(res, 400, 3);
      await expectNotStored(app, 'dev-json');
    });

    it('a non-object JSON body → 400 code 3', async () => {
      expectPlainStatus(await api.post(devicesPath(app), '[1,2]'), 400, 3);
      expectPlainStatus(await api.post(devicesPath(app), '"text"'), 400, 3);
    });

    it('missing end_device / missing device_id → 400 validation naming device_id (the path only fills the application)', async () => {
      expectValidationError(await api.post(devicesPath(app), {}), 'device_id');
      expectValidationError(await api.post(devicesPath(app), { end_device: { name: 'no ids' } }), 'device_id');
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: {} } }), 'device_id');
    });

    it('wrong types → 400 naming the field', async () => {
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-type' }, name: 123 } }), 'name');
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-type' }, description: ['x'] } }), 'description');
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-type' }, attributes: { key: 1 } } }), /^attributes/);
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 123 } } }), 'device_id');
      const notObject = await api.post(devicesPath(app), { end_device: 'dev-type' });
      expectStatus(notObject, 400);
      expect(notObject.json.code).toBe(3);
      await expectNotStored(app, 'dev-type');
    });

    it('name of 51 chars / description of 2001 chars → 400; 50 / 2000 are fine', async () => {
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-long' }, name: 'n'.repeat(51) } }), 'name');
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-long' }, description: 'd'.repeat(2001) } }), 'description');
      await expectNotStored(app, 'dev-long');
      const ok = await create('limits-app', { ids: { device_id: 'dev-max' }, name: 'n'.repeat(50), description: 'd'.repeat(2000) });
      expect(ok.json.name).toHaveLength(50);
      expect(ok.json.description).toHaveLength(2000);
    });

    it('bad device_id in the body (pattern, length) → 400 naming device_id', async () => {
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 'Bad_ID' } } }), 'device_id');
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 'ab' } } }), 'device_id');
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 'a'.repeat(37) } } }), 'device_id');
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev--double' } } }), 'device_id');
    });

    it('bad device_id in the PATH → 400 naming device_id (Get, Update, Delete)', async () => {
      expectValidationError(await api.get(devicePath('app1', 'Bad_ID')), 'device_id');
      expectValidationError(await api.put(devicePath('app1', 'Bad_ID'), { end_device: { name: 'x' }, field_mask: { paths: ['name'] } }), 'device_id');
      expectValidationError(await api.delete(devicePath('app1', 'Bad_ID')), 'device_id');
    });

    it('bad application_id in the path → 400 naming application_id (Create, Get, List)', async () => {
      expectValidationError(await api.post(devicesPath('Bad_App'), { end_device: { ids: { device_id: 'dev-ok' } } }), 'application_id');
      expectValidationError(await api.get(devicePath('Bad_App', 'dev-ok')), 'application_id');
      expectValidationError(await api.get(devicesPath('Bad_App')), 'application_id');
      expectValidationError(await api.get(devicesPath('x')), 'application_id');
    });

    it('unknown enum values → 400 (location source)', async () => {
      const res = await api.post(devicesPath(app), {
        end_device: { ids: { device_id: 'dev-enum' }, locations: { user: { latitude: 1, longitude: 2, source: 'SOURCE_NOPE' } } },
      });
      // As TTS: the map entry (`locations[user]`) fails validation, caused by the Location's `source`.
      const leaf = expectValidationError(res, 'source');
      expect(leaf.attributes?.reason).toMatch(/one of the defined LocationSource values/);
      const fields: unknown[] = [];
      for (let d = res.json.details[0]; d; d = d.cause) fields.push(d.attributes?.field);
      expect(fields).toContain('locations[user]');
      await expectNotStored(app, 'dev-enum');
    });

    it('out-of-range location and bad version_ids → 400', async () => {
      expectValidationError(
        await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-loc' }, locations: { user: { latitude: 91, longitude: 0 } } } }),
        /^(locations|latitude)/,
      );
      expectValidationError(
        await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-loc' }, version_ids: { brand_id: 'Bad_Brand' } } }),
        'brand_id',
      );
      await expectNotStored(app, 'dev-loc');
    });

    it('address pattern A violations → 400 naming the address field', async () => {
      expectValidationError(
        await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-addr' }, network_server_address: 'bad host!' } }),
        'network_server_address',
      );
      expectValidationError(
        await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-addr' }, application_server_address: 'host:123456' } }),
        'application_server_address',
      );
      expectValidationError(
        await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-addr' }, join_server_address: 'http://host' } }),
        'join_server_address',
      );
      await expectNotStored(app, 'dev-addr');
      const ok = await create(app, {
        ids: { device_id: 'dev-addr-ok' },
        network_server_address: 'eu1.cloud.thethings.network:8884',
        application_server_address: '',
      });
      expect(ok.json.network_server_address).toBe('eu1.cloud.thethings.network:8884');
      expect(ok.json).not.toHaveProperty('application_server_address');
    });

    it('bad EUI length or encoding → 400 naming the EUI', async () => {
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-eui', dev_eui: '0102' } } }), 'dev_eui');
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-eui', join_eui: '70B3D57ED005B59E00' } } }), 'join_eui');
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-eui', dev_eui: 'ZZZZZZZZZZZZZZZZ!' } } }), 'dev_eui');
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-eui', dev_eui: 1234 } } }), 'dev_eui');
      await expectNotStored(app, 'dev-eui');
    });

    it('a field_mask of the wrong type → 400', async () => {
      await create(app, { ids: { device_id: 'dev-mask' }, name: 'Mask' });
      const res = await api.put(devicePath(app, 'dev-mask'), { end_device: { name: 'Changed' }, field_mask: 123 });
      expectValidationError(res, 'field_mask');
      const got = await api.get(`${devicePath(app, 'dev-mask')}?field_mask=name`);
      expect(got.json.name).toBe('Mask');
    });

    it('nothing else was stored in the application', async () => {
      const res = await api.get(devicesPath(app));
      expectStatus(res, 200);
      expect(ids(res)).toEqual(['dev-addr-ok', 'dev-mask']);
      expect(res.headers.get('x-total-count')).toBe('2');
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Robustness', () => {
    const app = 'robust-app';

    it('counts name and description length in characters, and stores any Unicode', async () => {
      const name = '😀'.repeat(50);
      const description = 'ü€😀'.repeat(600);
      const res = await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-unicode' }, name, description } });
      expectStatus(res, 200);
      const got = await api.get(`${devicePath(app, 'dev-unicode')}?field_mask=name,description`);
      expectStatus(got, 200);
      expect(got.json.name).toBe(name);
      expect(got.json.description).toBe(description);
      expectValidationError(await api.post(devicesPath(app), { end_device: { ids: { device_id: 'dev-unicode2' }, name: '😀'.repeat(51) } }), 'name');
    });

    it('ignores client-supplied created_at / updated_at', async () => {
      const res = await create(app, { ids: { device_id: 'dev-times' }, created_at: '2000-01-01T00:00:00Z', updated_at: '2000-01-01T00:00:00Z' });
      expect(res.json.created_at).not.toMatch(/^2000-/);
      expect(res.json.updated_at).toBe(res.json.created_at);
    });

    it('concurrent updates of different fields all succeed and none is lost', async () => {
      await create(app, { ids: { device_id: 'dev-concurrent' } });
      const fields: Record<string, string> = {
        name: 'Concurrent',
        description: 'Many writers',
        service_profile_id: 'sp-c',
        network_server_address: 'ns.example.org',
        application_server_address: 'as.example.org',
        join_server_address: 'js.example.org',
      };
      const results = await Promise.all(
        Object.entries(fields).map(([field, value]) =>
          api.put(devicePath(app, 'dev-concurrent'), { end_device: { ids: { device_id: 'dev-concurrent' }, [field]: value }, field_mask: { paths: [field] } }),
        ),
      );
      results.forEach((r) => expectStatus(r, 200));
      const got = await api.get(`${devicePath(app, 'dev-concurrent')}?field_mask=${Object.keys(fields).join(',')}`);
      expect(got.json).toEqual(expect.objectContaining(fields));
    });

    it('concurrent creates with the same EUI pair: one wins, the rest 409 end_device_euis_taken', async () => {
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          api.post(devicesPath(`race-app-${i}`), {
            end_device: { ids: { device_id: `race-eui-${i}`, join_eui: '5555555555555555', dev_eui: '6666666666666666' } },
          }),
        ),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200))
        expectTtsError(r, 409, 6, 'pkg/identityserver', 'end_device_euis_taken', { join_eui: '5555555555555555', dev_eui: '6666666666666666' });
    });

    it('orders names the same way in every mode (case-insensitively, as TTS on PostgreSQL does not distinguish here)', async () => {
      for (const [device_id, name] of [
        ['case-1', 'bravo'],
        ['case-2', 'Alpha'],
        ['case-3', 'charlie'],
      ])
        await create('case-app', { ids: { device_id }, name });
      const res = await api.get(`${devicesPath('case-app')}?field_mask=name&order=name`);
      expectStatus(res, 200);
      expect(res.json.end_devices.map((d: { name: string }) => d.name)).toEqual(['Alpha', 'bravo', 'charlie']);
    });

    it('huge page numbers and limit=0 do not fail', async () => {
      const huge = await api.get(`${devicesPath(app)}?limit=1000&page=4294967295`);
      expectStatus(huge, 200);
      expect(huge.json).toEqual({});
      const zero = await api.get(`${devicesPath(app)}?limit=0`);
      expectStatus(zero, 200);
      expect(Number(zero.headers.get('x-total-count'))).toBeGreaterThan(0);
      expectValidationError(await api.get(`${devicesPath(app)}?page=4294967296`), 'page');
    });

    it('repeating field_mask= → 400; unknown query parameters are ignored', async () => {
      const twice = await api.get(`${devicePath(app, 'dev-times')}?field_mask=name&field_mask=description`);
      expectStatus(twice, 400);
      expect(twice.json.code).toBe(3);
      const unknown = await api.get(`${devicePath(app, 'dev-times')}?foo=bar&field_mask=name`);
      expectStatus(unknown, 200);
    });

    it('query parameters cannot override the path ids', async () => {
      const res = await api.get(`${devicePath(app, 'dev-times')}?end_device_ids.device_id=other-dev&end_device_ids.application_ids.application_id=other-app`);
      expectStatus(res, 200);
      expect(res.json.ids.device_id).toBe('dev-times');
      expect(res.json.ids.application_ids.application_id).toBe(app);
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Authentication', () => {
    const path = devicesPath('app1');
    /** Well-formed (`NNSXS.<39 base32>.<52 base32>`) but issued by no one. */
    const UNKNOWN_KEY = `NNSXS.${'A'.repeat(39)}.${'B'.repeat(52)}`;

    it('no Authorization header → 401', async () => {
      const res = await api.get(path, { headers: {} });
      expectStatus(res, 401);
      expect(res.json.code).toBe(16);
      expect(res.json.details[0]['@type']).toBe('type.googleapis.com/ttn.lorawan.v3.ErrorDetails');
      expect(res.json.message).toMatch(/^error:[a-z/]+:[a-z_]+ /);
      expect(res.headers.get('www-authenticate')).toBeTruthy();
    });

    it('Bearer wrong.key.value (three parts, but not an NNSXS API key) → 400 pkg/auth:token', async () => {
      const res = await api.get(path, { headers: { authorization: 'Bearer wrong.key.value' } });
      expectTtsError(res, 400, 3, 'pkg/auth', 'token');
    });

    it('Bearer NNSXS-like unknown key → 401 api_key_not_found', async () => {
      const res = await api.get(path, { headers: { authorization: `Bearer ${UNKNOWN_KEY}` } });
      expectTtsError(res, 401, 16, 'pkg/identityserver', 'api_key_not_found');
      expect(res.headers.get('www-authenticate')).toContain('api_key_not_found');
    });

    it('Bearer garbage → 400 pkg/auth:token', async () => {
      expectTtsError(await api.get(path, { headers: { authorization: 'Bearer garbage' } }), 400, 3, 'pkg/auth', 'token');
    });

    it('Basic scheme → 401', async () => {
      const res = await api.get(path, { headers: { authorization: `Basic ${Buffer.from('admin:secret').toString('base64')}` } });
      expectStatus(res, 401);
      expect(res.json.code).toBe(16);
      expect(res.json.message).toMatch(/^error:[a-z/]+:[a-z_]+ /);
    });

    it('writes without valid credentials store nothing', async () => {
      const noAuth = await api.post(devicesPath('auth-app'), { end_device: { ids: { device_id: 'dev-noauth' } } }, { headers: {} });
      expectStatus(noAuth, 401);
      const malformed = await api.post(
        devicesPath('auth-app'),
        { end_device: { ids: { device_id: 'dev-noauth' } } },
        { headers: { authorization: 'Bearer wrong.key.value' } },
      );
      expectStatus(malformed, 400);
      const unknown = await api.post(
        devicesPath('auth-app'),
        { end_device: { ids: { device_id: 'dev-noauth' } } },
        { headers: { authorization: `Bearer ${UNKNOWN_KEY}` } },
      );
      expectStatus(unknown, 401);
      await expectNotStored('auth-app', 'dev-noauth');
      await create('auth-app', { ids: { device_id: 'dev-auth' } });
      const delMalformed = await api.delete(devicePath('auth-app', 'dev-auth'), { headers: { authorization: 'Bearer wrong.key.value' } });
      expectStatus(delMalformed, 400);
      const del = await api.delete(devicePath('auth-app', 'dev-auth'), { headers: { authorization: `Bearer ${UNKNOWN_KEY}` } });
      expectStatus(del, 401);
      expectStatus(await api.get(devicePath('auth-app', 'dev-auth')), 200);
    });

    it('/healthz and /readyz need no auth and answer 200', async () => {
      const health = await api.get('/healthz', { headers: {} });
      expectStatus(health, 200);
      const ready = await api.get('/readyz', { headers: {} });
      expectStatus(ready, 200);
      expect(ready.json.status).toBe('ok');
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('X-Request-Id', () => {
    it('echoes a given value (also on errors)', async () => {
      const ok = await api.get(devicesPath('app1'), { extraHeaders: { 'x-request-id': 'my-request-42' } });
      expect(ok.headers.get('x-request-id')).toBe('my-request-42');
      const err = await api.get(devicePath('app1', 'nope-dev'), { extraHeaders: { 'x-request-id': 'my-request-43' } });
      expectStatus(err, 404);
      expect(err.headers.get('x-request-id')).toBe('my-request-43');
    });

    it('generates a ULID otherwise, a new one per request', async () => {
      const a = await api.get(devicesPath('app1'));
      const b = await api.get(devicesPath('app1'), { headers: {} });
      expect(a.headers.get('x-request-id')).toMatch(ULID);
      expect(b.headers.get('x-request-id')).toMatch(ULID);
      expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Routing', () => {
    it('an unknown route under /api/v3 → 404 {"code":5,"message":"Not Found"}', async () => {
      const res = await api.get('/api/v3/does-not-exist');
      expectStatus(res, 404);
      expect(res.json).toEqual({ code: 5, message: 'Not Found' });
      const deeper = await api.get('/api/v3/applications/app1/devices/dev-full/extra');
      expectStatus(deeper, 404);
      expect(deeper.json).toEqual({ code: 5, message: 'Not Found' });
    });

    it('a wrong method on a known path → 501 code 12', async () => {
      const patch = await api.call('PATCH', devicePath('app1', 'dev-full'));
      expectStatus(patch, 501);
      expect(patch.json).toEqual({ code: 12, message: 'Method Not Allowed' });
      const post = await api.post(devicePath('app1', 'dev-full'), { end_device: {} });
      expectStatus(post, 501);
      expect(post.json.code).toBe(12);
    });

    it('a wrong method with Content-Type: application/json and no body → still 501', async () => {
      const res = await api.call('PATCH', devicePath('app1', 'dev-full'), { extraHeaders: { 'content-type': 'application/json' } });
      expectStatus(res, 501);
      expect(res.json.code).toBe(12);
    });
  });

  it('no request returned 5xx', () => {
    expect(api.serverErrors).toEqual([]);
    if (api.serverErrors.length > 0) console.error(`${mode} stack logs:\n${stack.logs()}`);
  });
});
