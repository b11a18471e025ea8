/**
 * The Storage Integration over HTTP, end to end, in both run modes (TTS
 * `applicationserver_packages.proto` and `applicationserver_integrations_storage.proto`):
 * associations turn it on per application (default association) or per device, simulated
 * uplinks and join-accepts are stored, each query filter answers what it should as a stream of
 * `{"result":…}` lines, the counts, the rights, and the retention.
 */
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { abpAsDevice, expectOk, isDevicesPath, randomDevAddr, randomEui, randomKey, Registries, uid } from './devices';
import { Api, type ApiResponse, createApplications, expectTtsError, sleep } from './http-client';
import { LPP } from './webhook-env';

type Start = () => Promise<StackUnderTest>;

/** One day of retention, checked every second: a message received two days ago goes at once. */
const STORAGE_ENV = { AS_STORAGE_RETENTION_DAYS: '1', AS_STORAGE_RETENTION_INTERVAL_MS: '1000' };

const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'as'], env: STORAGE_ENV })],
  ['embedded', () => startEmbeddedStack({ env: STORAGE_ENV })],
];

interface Up {
  end_device_ids: { device_id: string; application_ids: { application_id: string } };
  received_at: string;
  uplink_message?: { f_port?: number; f_cnt?: number; frm_payload?: string };
  join_accept?: Record<string, unknown>;
}

/** The messages of a stream response: one `{"result":…}` object per line. */
function results(res: ApiResponse): Up[] {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const lines = res.text.split('\n');
  expect(lines.pop()).toBe('');
  return lines.map((line) => {
    const message = JSON.parse(line) as { result: Up };
    expect(Object.keys(message)).toEqual(['result']);
    return message.result;
  });
}

const fCnts = (ups: Up[]) => ups.map((u) => u.uplink_message?.f_cnt);

describe.each(MODES)('Storage Integration over HTTP (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const reg = new Registries(api);
  const app = uid('st-app');
  const other = uid('st-other');
  const devices = { a: uid('dev-a'), b: uid('dev-b'), c: uid('dev-c'), o: uid('dev-o') };
  const storage = (type: string, query = '') => `/api/v3/as/applications/${app}/packages/storage/${type}${query}`;
  const deviceStorage = (dev: string, type: string, query = '') => `/api/v3/as/applications/${app}/devices/${dev}/packages/storage/${type}${query}`;
  const defaultAssociation = (a: string, fPort: number) => `/api/v3/as/applications/${a}/packages/associations/${fPort}`;
  const deviceAssociation = (dev: string, fPort: number) => `/api/v3/as/applications/${app}/devices/${dev}/packages/associations/${fPort}`;

  const createDevice = async (application: string, dev: string) => {
    const ids = { device_id: dev, dev_eui: randomEui(), join_eui: randomEui() };
    expectOk(await api.post(isDevicesPath(application), { end_device: { ids: { ...ids, application_ids: { application_id: application } } } }), 'IS create');
    const as = abpAsDevice(ids, randomDevAddr(), randomKey());
    await reg.setOk('as', application, dev, as.device, as.paths);
  };
  const simulate = async (application: string, dev: string, up: Record<string, unknown>) =>
    expectOk(await api.post(`/api/v3/as/applications/${application}/devices/${dev}/up/simulate`, up), `simulate ${dev}`);
  const uplink = (dev: string, fCnt: number, fPort: number, application = app) =>
    simulate(application, dev, { uplink_message: { f_port: fPort, f_cnt: fCnt, frm_payload: LPP } });
  /** Waits until the batched writes have stored `n` uplinks of the application. */
  const stored = async (n: number, application = app) => {
    for (let i = 0; i < 100; i++) {
      const res = await api.get(`/api/v3/as/applications/${application}/packages/storage/uplink_message/count`);
      const total = Object.values((res.json as { count?: Record<string, number> }).count ?? {}).reduce((a, b) => a + b, 0);
      if (total >= n) return;
      await sleep(50);
    }
    throw new Error(`${n} uplinks of ${application} not stored`);
  };

  beforeAll(async () => {
    stack = await start();
    await createApplications(api, [app, other]);
    for (const dev of [devices.a, devices.b, devices.c]) await createDevice(app, dev);
    await createDevice(other, devices.o);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('lists the storage-integration package, and refuses an unknown package or FPort with a TTS error', async () => {
    const list = await api.get(`/api/v3/as/applications/${app}/devices/${devices.a}/packages`);
    expect([list.status, list.json]).toEqual([200, { packages: [{ name: 'storage-integration', default_f_port: 200 }] }]);
    expectTtsError(
      await api.put(defaultAssociation(app, 100), { default: { package_name: 'no-such-package' }, field_mask: { paths: ['package_name'] } }),
      400,
      3,
      'pkg/applicationserver/io/packages',
      'package_not_found',
      { name: 'no-such-package' },
    );
    expect((await api.put(defaultAssociation(app, 256), { default: { package_name: 'storage-integration' } })).status).toBe(400);
    expect((await api.put(defaultAssociation(app, 0), { default: { package_name: 'storage-integration' } })).status).toBe(400);
    expectTtsError(
      await api.put(defaultAssociation(app, 100), { default: { data: {} }, field_mask: { paths: ['data'] } }),
      400,
      3,
      'pkg/errors',
      'validation',
      {
        field: 'package_name',
      },
    );
    expectTtsError(await api.get(defaultAssociation(app, 100)), 404, 5, 'pkg/redis', 'not_found');
  });

  it('stores nothing before an association, then a device’s messages with a device association', async () => {
    await uplink(devices.a, 1, 1);
    const assoc = await api.put(deviceAssociation(devices.a, 200), {
      association: { package_name: 'storage-integration', data: { note: 'dev a' } },
      field_mask: { paths: ['package_name', 'data'] },
    });
    expect(assoc.status).toBe(200);
    expect(assoc.json).toEqual({
      ids: { end_device_ids: { device_id: devices.a, application_ids: { application_id: app } }, f_port: 200 },
      package_name: 'storage-integration',
      data: { note: 'dev a' },
    });
    const got = await api.get(`${deviceAssociation(devices.a, 200)}?field_mask=created_at,data`);
    expect(got.json).toMatchObject({ package_name: 'storage-integration', data: { note: 'dev a' }, created_at: expect.any(String) });
    const listed = await api.get(`/api/v3/as/applications/${app}/devices/${devices.a}/packages/associations`);
    expect([listed.headers.get('x-total-count'), listed.json.associations.length]).toEqual(['1', 1]);

    await uplink(devices.a, 2, 1);
    await uplink(devices.b, 1, 1);
    await stored(1);
    await sleep(200);
    expect(fCnts(results(await api.get(storage('uplink_message'))))).toEqual([2]);
  });

  it('stores every device’s messages with a default association, of every kind', async () => {
    const res = await api.put(defaultAssociation(app, 200), { default: { package_name: 'storage-integration' }, field_mask: { paths: ['package_name'] } });
    expect(res.json).toEqual({ ids: { application_ids: { application_id: app }, f_port: 200 }, package_name: 'storage-integration' });
    expect((await api.get(`/api/v3/as/applications/${app}/packages/associations`)).json).toEqual({ defaults: [res.json] });
    await uplink(devices.a, 3, 2);
    await uplink(devices.b, 2, 1);
    await uplink(devices.c, 1, 2);
    await uplink(devices.a, 4, 1);
    await simulate(app, devices.b, { join_accept: { session_key_id: 'AQID' } });
    await uplink(devices.o, 1, 1, other);
    await stored(5);
    const all = results(await api.get(storage('uplink_message')));
    expect(all.map((u) => [u.end_device_ids.device_id, u.uplink_message?.f_cnt])).toEqual([
      [devices.a, 2],
      [devices.a, 3],
      [devices.b, 2],
      [devices.c, 1],
      [devices.a, 4],
    ]);
    expect(all[0]).toMatchObject({ end_device_ids: { application_ids: { application_id: app } }, uplink_message: { f_port: 1, frm_payload: LPP } });
    // The join-accept may be written in a later batch than the uplinks counted above.
    let joins = results(await api.get(storage('join_accept')));
    for (let i = 0; i < 100 && joins.length === 0; i++) {
      await sleep(50);
      joins = results(await api.get(storage('join_accept')));
    }
    expect(joins.map((u) => [u.end_device_ids.device_id, u.join_accept])).toEqual([[devices.b, { session_key_id: 'AQID' }]]);
  });

  it('filters by device, FPort, order, limit, time and field mask', async () => {
    expect(fCnts(results(await api.get(deviceStorage(devices.a, 'uplink_message'))))).toEqual([2, 3, 4]);
    expect(fCnts(results(await api.get(storage('uplink_message', '?f_port=2'))))).toEqual([3, 1]);
    expect(fCnts(results(await api.get(deviceStorage(devices.a, 'uplink_message', '?order=-received_at'))))).toEqual([4, 3, 2]);
    expect(fCnts(results(await api.get(deviceStorage(devices.a, 'uplink_message', '?order=-received_at&limit=2'))))).toEqual([4, 3]);
    const all = results(await api.get(storage('uplink_message')));
    const third = all[2].received_at;
    expect(results(await api.get(storage('uplink_message', `?after=${third}`))).map((u) => u.received_at)).toEqual(all.slice(3).map((u) => u.received_at));
    expect(results(await api.get(storage('uplink_message', `?before=${third}`))).map((u) => u.received_at)).toEqual(all.slice(0, 2).map((u) => u.received_at));
    expect(results(await api.get(storage('uplink_message', '?last=1h'))).length).toBe(5);
    expect(results(await api.get(storage('uplink_message', '?last=1ms'))).length).toBeLessThan(5);
    const masked = results(await api.get(deviceStorage(devices.a, 'uplink_message', '?field_mask=uplink_message.f_cnt&limit=1')));
    expect(masked).toEqual([{ uplink_message: { f_cnt: 2 } }]);
    expect(results(await api.get(storage('location_solved')))).toEqual([]);
  });

  it('streams with a blank line between messages for Accept: text/event-stream', async () => {
    const res = await api.get(deviceStorage(devices.a, 'uplink_message', '?limit=2'), { extraHeaders: { accept: 'text/event-stream' } });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = res.text.split('\n\n');
    expect(frames.pop()).toBe('');
    expect(frames.map((f) => (JSON.parse(f) as { result: Up }).result.uplink_message?.f_cnt)).toEqual([2, 3]);
  });

  it('counts by device, with the filters', async () => {
    expect((await api.get(storage('uplink_message', '/count'))).json).toEqual({ count: { [devices.a]: 3, [devices.b]: 1, [devices.c]: 1 } });
    expect((await api.get(storage('uplink_message', '/count?f_port=2'))).json).toEqual({ count: { [devices.a]: 1, [devices.c]: 1 } });
    expect((await api.get(deviceStorage(devices.b, 'join_accept', '/count'))).json).toEqual({ count: { [devices.b]: 1 } });
    expect((await api.get(storage('service_data', '/count'))).json).toEqual({});
  });

  it('answers bad filters with 400 in the TTS error shape', async () => {
    expectTtsError(await api.get(storage('uplink_message', '?last=1h&after=2026-01-01T00:00:00Z')), 400, 3, 'pkg/errors', 'validation', { field: 'last' });
    expectTtsError(await api.get(storage('uplink_message', '?field_mask=uplink_message.nope')), 400, 3, 'pkg/rpcmiddleware/validator', 'field_mask_paths');
    for (const query of ['?order=f_port', '?f_port=300', '?limit=many', '?after=yesterday', '?last=soon']) {
      expectTtsError(await api.get(storage('uplink_message', query)), 400, 3, 'pkg/errors', 'validation');
    }
    expectTtsError(await api.get(storage('uplink')), 400, 3, 'pkg/errors', 'validation');
  });

  it('keeps other applications apart, and needs traffic-read rights on the application', async () => {
    // A device of another application named under this one: nothing of it.
    expect(results(await api.get(deviceStorage(devices.o, 'uplink_message')))).toEqual([]);
    expect((await api.get(`/api/v3/as/applications/${other}/packages/storage/uplink_message/count`)).json).toEqual({});
    const key = async (rights: string[]) => {
      const res = await api.post(`/api/v3/applications/${app}/api-keys`, { name: 'storage', rights });
      expectOk(res, 'create key');
      return { headers: { authorization: `Bearer ${(res.json as { key: string }).key}` } };
    };
    const infoOnly = await key(['RIGHT_APPLICATION_INFO']);
    expectTtsError(await api.get(storage('uplink_message'), infoOnly), 403, 7, 'pkg/auth/rights', 'insufficient_application_rights');
    expectTtsError(await api.get(deviceStorage(devices.a, 'uplink_message', '/count'), infoOnly), 403, 7, 'pkg/auth/rights', 'insufficient_application_rights');
    expectTtsError(await api.get(defaultAssociation(app, 200), infoOnly), 403, 7, 'pkg/auth/rights', 'insufficient_application_rights');
    const traffic = await key(['RIGHT_APPLICATION_TRAFFIC_READ']);
    expect(fCnts(results(await api.get(deviceStorage(devices.a, 'uplink_message'), traffic)))).toEqual([2, 3, 4]);
    expectTtsError(
      await api.get(`/api/v3/as/applications/${other}/packages/storage/uplink_message`, traffic),
      403,
      7,
      'pkg/auth/rights',
      'no_application_rights',
    );
    expectTtsError(
      await api.put(defaultAssociation(app, 201), { default: { package_name: 'storage-integration' } }, traffic),
      403,
      7,
      'pkg/auth/rights',
      'insufficient_application_rights',
    );
  });

  it('deletes messages past the retention', async () => {
    const old = new Date(Date.now() - 2 * 86_400_000).toISOString();
    await simulate(app, devices.c, { received_at: old, uplink_message: { f_port: 9, f_cnt: 99, frm_payload: LPP } });
    // Stored within a few ms with its own received_at; the retention (every second here) takes it.
    await sleep(2500);
    expect(fCnts(results(await api.get(deviceStorage(devices.c, 'uplink_message'))))).toEqual([1]);
    expect((await api.get(deviceStorage(devices.c, 'uplink_message', '/count'))).json).toEqual({ count: { [devices.c]: 1 } });
  });

  it('stops storing once the associations are deleted', async () => {
    expect((await api.delete(defaultAssociation(app, 200))).json).toEqual({});
    expect((await api.delete(deviceAssociation(devices.a, 200))).json).toEqual({});
    expect((await api.delete(deviceAssociation(devices.a, 200))).status).toBe(200);
    await uplink(devices.a, 5, 1);
    await sleep(300);
    expect(fCnts(results(await api.get(deviceStorage(devices.a, 'uplink_message'))))).toEqual([2, 3, 4]);
  });
});
