import { AS_EVENTS, type DownlinkQueueRequest } from '@lorawan/api';
import { encryptFrmPayload } from '@lorawan/crypto';
import { copySourceFor, DeviceRegistry, keySealerFor, TypeOrmDeviceStore } from '@lorawan/registry';
import { CTX, openTestDataSource, rawFieldsOf, setReq, unobservedEvents } from '@lorawan/registry/conformance';
import { AS_REGISTRY_POLICY } from '../end-devices/as-registry.policy';
import { AS_MIGRATIONS } from '../migrations';
import {
  asDownlinkServices,
  asRegistry,
  errorOf,
  NsQueueDouble,
  type RecordedEvent,
  recordingPublisher,
  RecordingSink,
  testFormatterPool,
} from '../testing/as-test-kit';
import { ApplicationLinkRegistry } from '../links/application-link.service';
import { SqlLinkStore } from '../links/application-link.store';
import type { DownlinkQueue } from './downlink-queue.service';

/**
 * The AppAs downlink queue on a real AS store (SQLite and MariaDB), the Network Server's queue
 * (where the downlinks go, encrypted) a double that refuses FCnts as the NS does.
 */

type Json = Record<string, unknown>;
const APP = 'app-down';
const APP_S_KEY = '00112233445566778899AABBCCDDEEFF';
const DEV_ADDR = '26011BDA';
const SESSION_PATHS = ['session.dev_addr', 'session.keys.app_s_key.key', 'session.keys.session_key_id', 'session.last_a_f_cnt_down'];
const ids = (device_id: string) => ({ device_id, application_ids: { application_id: APP } });
const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
const enc = (hex: string, fCnt: number) => encryptFrmPayload(APP_S_KEY, DEV_ADDR, fCnt, false, Buffer.from(hex, 'hex')).toString('base64');
const req = (device_id: string, downlinks: Json[]) => ({ end_device_ids: ids(device_id), downlinks }) as unknown as DownlinkQueueRequest;

describe.each(['sqlite', 'mysql'] as const)('DownlinkQueue (%s)', (driver) => {
  let db: Awaited<ReturnType<typeof openTestDataSource>>;
  let registry: DeviceRegistry;
  let queue: DownlinkQueue;
  let links: ApplicationLinkRegistry;
  const published: RecordedEvent[] = [];
  const recorder = recordingPublisher(published);
  const sink = new RecordingSink();
  /** What the queue handed to the integrations. */
  const ups = sink.ups;
  const pool = testFormatterPool();
  const ns = new NsQueueDouble(() => ({ dev_addr: DEV_ADDR, session_key_id: 'AQID' }));

  const setLink = (application_id: string, link: Json, paths: string[]) =>
    links.set({ application_ids: { application_id }, link, field_mask: { paths } } as never);

  const create = (device_id: string, extra: Json = {}, paths: string[] = SESSION_PATHS) =>
    registry.set(
      setReq(
        {
          ids: ids(device_id),
          session: { dev_addr: DEV_ADDR, keys: { session_key_id: 'AQID', app_s_key: { key: APP_S_KEY } }, last_a_f_cnt_down: 4 },
          ...extra,
        },
        paths,
      ),
      CTX,
    );
  const stored = async (device_id: string) => JSON.parse((await rawFieldsOf(db.ds, APP, device_id)) ?? 'null') as Json & { session?: Json };
  /** The NS's queue of the device (undefined: never pushed). */
  const storedQueue = async (device_id: string) => ns.queues.get(device_id);
  /** The AS device as stored and the NS's queue. */
  const state = async (device_id: string) => ({ device: await stored(device_id), queue: ns.queues.get(device_id) });

  beforeAll(async () => {
    db = await openTestDataSource('as', AS_MIGRATIONS, driver);
    registry = asRegistry(db.ds, unobservedEvents());
    links = new ApplicationLinkRegistry(new SqlLinkStore(db.ds));
    queue = asDownlinkServices({ registry, links, events: recorder, sink, rpc: ns.client(), pool }).queue;
  });
  afterAll(async () => {
    await pool.close();
    await db.close();
  });
  beforeEach(() => {
    published.length = 0;
    ups.length = 0;
    sink.failWith = undefined;
    ns.requests.length = 0;
    ns.unreachable = false;
    ns.refuseNext = [];
  });

  it("push assigns FCnts from last_a_f_cnt_down, encrypts with the AppSKey, pushes to the NS's queue, and list decrypts the NS's queue", async () => {
    await create('push-1');
    expect(
      await queue.push(
        req('push-1', [
          { f_port: 1, frm_payload: b64('010203'), priority: 'NORMAL' },
          { f_port: 2, frm_payload: b64('0405'), confirmed: true },
        ]),
        CTX,
      ),
    ).toEqual({});
    await queue.push(req('push-1', [{ f_port: 3, frm_payload: b64('06') }]), CTX);
    const raw = await stored('push-1');
    const items = (await storedQueue('push-1')) as Json[];
    expect(ns.requests.map((r) => r.operation)).toEqual(['push', 'push']);
    expect(items.map((i) => [i.f_cnt, i.f_port, i.frm_payload, i.session_key_id])).toEqual([
      [5, 1, enc('010203', 5), 'AQID'],
      [6, 2, enc('0405', 6), 'AQID'],
      [7, 3, enc('06', 7), 'AQID'],
    ]);
    expect(raw.session?.last_a_f_cnt_down).toBe(7);
    for (const item of items) expect((item.correlation_ids as string[]).some((c) => /^as:downlink:[0-9A-Z]{26}$/.test(c))).toBe(true);
    const list = await queue.list(ids('push-1'), CTX);
    expect(list.downlinks?.map((d) => [d.f_cnt, d.f_port, d.frm_payload, d.confirmed, d.priority])).toEqual([
      [5, 1, b64('010203'), undefined, 'NORMAL'],
      [6, 2, b64('0405'), true, undefined],
      [7, 3, b64('06'), undefined, undefined],
    ]);
    expect(ns.requests.map((r) => r.operation)).toEqual(['push', 'push', 'list']);
    // The queue is the NS's: the AS keeps its FCnt only.
    expect(raw.session?.queued_application_downlinks).toBeUndefined();
  });

  it('replace restarts the queue with new FCnts; an empty replace clears it; an empty list is {}', async () => {
    await create('rep-1');
    await queue.push(
      req('rep-1', [
        { f_port: 1, frm_payload: b64('01') },
        { f_port: 1, frm_payload: b64('02') },
      ]),
      CTX,
    );
    await queue.replace(req('rep-1', [{ f_port: 9, frm_payload: b64('AA') }]), CTX);
    expect((await storedQueue('rep-1'))?.map((i) => [i.f_cnt, i.f_port, i.frm_payload])).toEqual([[7, 9, enc('AA', 7)]]);
    expect(await queue.replace(req('rep-1', []), CTX)).toEqual({});
    expect(await storedQueue('rep-1')).toEqual([]);
    expect(ns.requests.map((r) => [r.operation, (r.body.downlinks as Json[]).length])).toEqual([
      ['push', 2],
      ['replace', 1],
      ['replace', 0],
    ]);
    expect(await queue.list(ids('rep-1'), CTX)).toEqual({});
    await queue.push(req('rep-1', [{ f_port: 1, frm_payload: b64('03') }]), CTX);
    expect((await storedQueue('rep-1'))?.map((i) => i.f_cnt)).toEqual([8]);
  });

  it('encodes decoded_payload with the device down formatter (JavaScript and CayenneLPP)', async () => {
    const script = 'function encodeDownlink(input) { return { bytes: [input.data.led ? 1 : 0, input.fPort], fPort: 10 }; }';
    await create('fmt-js', { formatters: { down_formatter: 'FORMATTER_JAVASCRIPT', down_formatter_parameter: script } }, [...SESSION_PATHS, 'formatters']);
    await queue.push(req('fmt-js', [{ f_port: 4, decoded_payload: { led: true } }]), CTX);
    const [item] = (await storedQueue('fmt-js')) as Json[];
    expect(item).toMatchObject({ f_port: 10, f_cnt: 5, frm_payload: enc('0104', 5) });
    expect(item.decoded_payload).toBeUndefined();
    await create('fmt-lpp', { formatters: { down_formatter: 'FORMATTER_CAYENNELPP' } }, [...SESSION_PATHS, 'formatters']);
    await queue.push(req('fmt-lpp', [{ f_port: 2, decoded_payload: { value_1: 1.5 } }]), CTX);
    const list = await queue.list(ids('fmt-lpp'), CTX);
    expect(list.downlinks?.[0]).toMatchObject({ f_port: 2, frm_payload: b64('010096'), decoded_payload: { value_1: 1.5 } });
  });

  it('each bad input fails with its error, stores nothing and drops every item', async () => {
    await create(
      'bad-1',
      { formatters: { down_formatter: 'FORMATTER_JAVASCRIPT', down_formatter_parameter: 'function encodeDownlink() { return { errors: ["no led"] }; }' } },
      [...SESSION_PATHS, 'formatters'],
    );
    await queue.push(req('bad-1', [{ f_port: 1, frm_payload: b64('01') }]), CTX);
    const before = await state('bad-1');
    const cases: Array<[Json[], string, number]> = [
      [[{ f_port: 1, frm_payload: b64('02') }, { frm_payload: b64('03') }], 'no_f_port', 3],
      [[{ f_port: 0, frm_payload: b64('03') }], 'no_f_port', 3],
      [[{ f_port: 224, frm_payload: b64('03') }], 'f_port_range', 3],
      [[{ f_port: 1, frm_payload: Buffer.alloc(243).toString('base64') }], 'payload_too_large', 3],
      [[{ f_port: 1, decoded_payload: { led: 1 } }], 'encode_payload', 3],
    ];
    for (const [downlinks, name, code] of cases) {
      published.length = 0;
      const err = await errorOf(queue.push(req('bad-1', downlinks), CTX));
      expect([err.errorName, err.code]).toEqual([name, code]);
      expect(await state('bad-1')).toEqual(before);
      expect(published.map((e) => e.name)).toEqual([...downlinks.map(() => 'as.down.data.receive'), ...downlinks.map(() => 'as.down.data.drop')]);
    }
    const encodeErr = await errorOf(queue.replace(req('bad-1', [{ f_port: 1, decoded_payload: { led: 1 } }]), CTX));
    expect(encodeErr.toDetails().cause).toMatchObject({ name: 'output_errors', attributes: { errors: 'no led' } });
    expect(await state('bad-1')).toEqual(before);
    expect(ns.requests.map((r) => r.operation)).toEqual(['push']);
    await queue.push(req('bad-1', [{ f_port: 223, frm_payload: Buffer.alloc(242).toString('base64') }]), CTX);
    expect((await storedQueue('bad-1'))?.length).toBe(2);
  });

  it('answers no_device_session (9) without a session and device_not_found (5) for an absent device', async () => {
    await registry.set(setReq({ ids: ids('nosess'), formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } }, ['formatters']), CTX);
    const noSession = await errorOf(queue.push(req('nosess', [{ f_port: 1, frm_payload: b64('01') }]), CTX));
    expect([noSession.namespace, noSession.errorName, noSession.code]).toEqual(['pkg/applicationserver', 'no_device_session', 9]);
    const missing = await errorOf(queue.push(req('absent', [{ f_port: 1 }]), CTX));
    expect([missing.errorName, missing.code, missing.attributes]).toEqual(['device_not_found', 5, { device_uid: `${APP}.absent` }]);
    expect((await errorOf(queue.list(ids('absent'), CTX))).errorName).toBe('device_not_found');
    expect(await queue.list(ids('nosess'), CTX)).toEqual({});
    expect(ns.requests.map((r) => r.operation)).toEqual(['list']);
  });

  it('publishes receive (plaintext) then forward (encrypted) per item, with the as:downlink correlation ID', async () => {
    await create('ev-1');
    await queue.push(
      req('ev-1', [
        { f_port: 1, frm_payload: b64('0102'), correlation_ids: ['mine:1'] },
        { f_port: 2, frm_payload: b64('03') },
      ]),
      CTX,
    );
    expect(published.map((e) => e.name)).toEqual(['as.down.data.receive', 'as.down.data.receive', 'as.down.data.forward', 'as.down.data.forward']);
    const [r1, , f1] = published;
    expect(r1.identifiers).toEqual({ device_ids: ids('ev-1') });
    expect(r1.data).toMatchObject({ f_port: 1, frm_payload: b64('0102') });
    expect(f1.data).toMatchObject({ f_port: 1, f_cnt: 5, frm_payload: enc('0102', 5), session_key_id: 'AQID' });
    expect(r1.correlation_ids).toEqual(f1.correlation_ids);
    expect(r1.correlation_ids[0]).toBe('mine:1');
    expect(r1.correlation_ids[1]).toMatch(/^as:downlink:/);
    expect(r1.correlation_ids).toContain(CTX.correlation_ids[0]);
    expect(AS_EVENTS.downDataForward.visibility).toEqual(['RIGHT_APPLICATION_TRAFFIC_READ']);
  });

  it('concurrent pushes each get their own FCnts: the NS refuses the FCnts taken, the AS encrypts again from its minimum; nothing lost', async () => {
    await create('conc-1');
    await Promise.all([1, 2, 3, 4, 5].map((n) => queue.push(req('conc-1', [{ f_port: n, frm_payload: b64('0' + n) }]), CTX)));
    const items = (await storedQueue('conc-1')) as Json[];
    expect(items.map((i) => i.f_cnt)).toEqual([5, 6, 7, 8, 9]);
    expect(items.map((i) => i.f_port).sort()).toEqual([1, 2, 3, 4, 5]);
    expect((await stored('conc-1')).session?.last_a_f_cnt_down).toBe(9);
    const listed = await queue.list(ids('conc-1'), CTX);
    for (const d of listed.downlinks ?? []) expect(d.frm_payload).toBe(b64('0' + String(d.f_port)));
  });

  it('unwraps an AppSKey stored wrapped with a KEK', async () => {
    const sealer = keySealerFor('as', { keks: 'k1=000102030405060708090A0B0C0D0E0F', kekLabels: { as: 'k1' } });
    const wrapped = new DeviceRegistry(new TypeOrmDeviceStore(db.ds), AS_REGISTRY_POLICY, sealer, unobservedEvents(), copySourceFor({}));
    await wrapped.set(
      setReq({ ids: ids('kek-1'), session: { dev_addr: DEV_ADDR, keys: { session_key_id: 'AQID', app_s_key: { key: APP_S_KEY } } } }, SESSION_PATHS),
      CTX,
    );
    expect(JSON.stringify(await stored('kek-1'))).not.toContain(APP_S_KEY);
    const kekQueue = asDownlinkServices({ registry: wrapped, links, events: recorder, sink, rpc: ns.client(), pool }).queue;
    await kekQueue.push(req('kek-1', [{ f_port: 1, frm_payload: b64('0102') }]), CTX);
    expect((await storedQueue('kek-1'))?.[0].frm_payload).toBe(enc('0102', 1));
    expect((await kekQueue.list(ids('kek-1'), CTX)).downlinks?.[0].frm_payload).toBe(b64('0102'));
    // Without the KEK the AS cannot encrypt: nothing is stored.
    expect((await errorOf(queue.push(req('kek-1', [{ f_port: 1, frm_payload: b64('03') }]), CTX))).errorName).toBe('no_app_s_key');
  });
  it('hands each queued item to the integrations as downlink_queued, in plaintext, with the device identifiers as stored', async () => {
    await registry.set(
      setReq(
        {
          ids: { ...ids('up-q1'), dev_eui: '70B3D57ED0000001', join_eui: '0000000000000001' },
          session: { dev_addr: DEV_ADDR, keys: { session_key_id: 'AQID', app_s_key: { key: APP_S_KEY } }, last_a_f_cnt_down: 4 },
        },
        SESSION_PATHS,
      ),
      CTX,
    );
    await queue.push(
      req('up-q1', [
        { f_port: 1, frm_payload: b64('0102'), priority: 'HIGH', confirmed: true, correlation_ids: ['mine:1'] },
        { f_port: 2, frm_payload: b64('03') },
      ]),
      CTX,
    );
    expect(ups).toHaveLength(2);
    const endDeviceIds = { ...ids('up-q1'), dev_eui: '70B3D57ED0000001', join_eui: '0000000000000001', dev_addr: DEV_ADDR };
    expect(ups[0]).toEqual({
      end_device_ids: endDeviceIds,
      correlation_ids: expect.arrayContaining(['mine:1', CTX.correlation_ids[0]]),
      received_at: expect.stringMatching(/Z$/),
      downlink_queued: {
        session_key_id: 'AQID',
        f_port: 1,
        f_cnt: 5,
        frm_payload: b64('0102'),
        confirmed: true,
        priority: 'HIGH',
        correlation_ids: ups[0].correlation_ids,
        // A confirmed downlink's first attempt (TTS initAndValidateConfirmationRetriesConfig).
        confirmed_retry: { attempt: 1 },
      },
    });
    expect(ups[1].downlink_queued).toMatchObject({ f_port: 2, f_cnt: 6, frm_payload: b64('03') });
    expect(ups[0].correlation_ids?.some((c) => c.startsWith('as:downlink:'))).toBe(true);
    // The receive and forward events share the item's correlation IDs.
    expect(published.find((e) => e.name === 'as.down.data.forward')?.correlation_ids).toEqual(ups[0].correlation_ids);
    expect(JSON.stringify(ups)).not.toContain(APP_S_KEY);
  });

  it('downlink_queued carries decoded_payload and the encoded FRMPayload', async () => {
    await create('up-q2', { formatters: { down_formatter: 'FORMATTER_CAYENNELPP' } }, [...SESSION_PATHS, 'formatters']);
    await queue.push(req('up-q2', [{ f_port: 2, decoded_payload: { value_1: 1.5 } }]), CTX);
    expect(ups[0].downlink_queued).toMatchObject({ f_port: 2, f_cnt: 5, frm_payload: b64('010096'), decoded_payload: { value_1: 1.5 } });
    expect((await storedQueue('up-q2'))?.[0].decoded_payload).toBeUndefined();
  });

  it('hands each item of a failed request to the integrations as downlink_failed with the error', async () => {
    await create('up-f1');
    await expect(
      queue.push(
        req('up-f1', [
          { f_port: 1, frm_payload: b64('01') },
          { f_port: 224, frm_payload: b64('02') },
        ]),
        CTX,
      ),
    ).rejects.toMatchObject({ errorName: 'f_port_range' });
    expect(ups.map((u) => Object.keys(u).filter((k) => k.startsWith('downlink')))).toEqual([['downlink_failed'], ['downlink_failed']]);
    expect(ups[0]).toMatchObject({
      end_device_ids: { ...ids('up-f1'), dev_addr: DEV_ADDR },
      downlink_failed: { downlink: { f_port: 1, frm_payload: b64('01') }, error: { namespace: 'pkg/applicationserver', name: 'f_port_range', code: 3 } },
    });
    expect(ups[1].downlink_failed).toMatchObject({ downlink: { f_port: 224, frm_payload: b64('02') } });
    expect(ups[0].correlation_ids).toEqual((ups[0].downlink_failed as { downlink: { correlation_ids: string[] } }).downlink.correlation_ids);
    // An absent device: the request's identifiers.
    ups.length = 0;
    await expect(queue.push(req('up-absent', [{ f_port: 1, frm_payload: b64('01') }]), CTX)).rejects.toMatchObject({ errorName: 'device_not_found' });
    expect(ups).toEqual([
      expect.objectContaining({
        end_device_ids: ids('up-absent'),
        downlink_failed: expect.objectContaining({ error: expect.objectContaining({ name: 'device_not_found' }) }),
      }),
    ]);
  });

  it('a sink failure neither undoes the queue nor fails the request', async () => {
    await create('up-s1');
    sink.failWith = new Error('queue unavailable');
    expect(await queue.push(req('up-s1', [{ f_port: 1, frm_payload: b64('01') }]), CTX)).toEqual({});
    expect((await storedQueue('up-s1'))?.map((i) => i.f_cnt)).toEqual([5]);
    await expect(queue.push(req('up-s1', [{ f_port: 0, frm_payload: b64('01') }]), CTX)).rejects.toMatchObject({ errorName: 'no_f_port' });
  });

  it('encodes and lists with the application link default formatters when the device has none; the device formatters override them', async () => {
    const app = APP;
    await setLink(app, { default_formatters: { down_formatter: 'FORMATTER_CAYENNELPP', up_formatter: 'FORMATTER_CAYENNELPP' } }, ['default_formatters']);
    try {
      await create('link-1');
      await queue.push(req('link-1', [{ f_port: 3, decoded_payload: { value_2: 2 } }]), CTX);
      expect((await storedQueue('link-1'))?.[0]).toMatchObject({ f_port: 3, frm_payload: enc('0200C8', 5) });
      expect((await queue.list(ids('link-1'), CTX)).downlinks?.[0]).toMatchObject({ frm_payload: b64('0200C8'), decoded_payload: { value_2: 2 } });
      // The device's own formatters (even without a down formatter) win over the link's.
      const script = 'function encodeDownlink(input) { return { bytes: [7] }; }';
      await create('link-2', { formatters: { down_formatter: 'FORMATTER_JAVASCRIPT', down_formatter_parameter: script } }, [...SESSION_PATHS, 'formatters']);
      await queue.push(req('link-2', [{ f_port: 3, decoded_payload: { value_2: 2 } }]), CTX);
      expect((await storedQueue('link-2'))?.[0]).toMatchObject({ frm_payload: enc('07', 5) });
      expect((await queue.list(ids('link-2'), CTX)).downlinks?.[0].decoded_payload).toBeUndefined();
      await create('link-3', { formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } }, [...SESSION_PATHS, 'formatters']);
      await queue.push(req('link-3', [{ f_port: 3, decoded_payload: { value_2: 2 } }]), CTX);
      // No down formatter of its own: the decoded payload is not encoded (an empty FRMPayload).
      expect((await storedQueue('link-3'))?.[0].frm_payload).toBeUndefined();
    } finally {
      await links.delete({ application_id: app });
    }
  });
  it('the NS refuses the FCnt (f_cnt_too_low, its minimum 20): the AS encrypts again from 20, stores it, and the application sees FCnt 20', async () => {
    await create('min-1');
    ns.minFCnt.set('min-1', 20);
    expect(await queue.push(req('min-1', [{ f_port: 1, frm_payload: b64('0A0B') }]), CTX)).toEqual({});
    expect(ns.requests.map((r) => (r.body.downlinks as Json[]).map((d) => [d.f_cnt, d.frm_payload]))).toEqual([[[5, enc('0A0B', 5)]], [[20, enc('0A0B', 20)]]]);
    expect((await storedQueue('min-1'))?.map((d) => d.f_cnt)).toEqual([20]);
    expect((await stored('min-1')).session?.last_a_f_cnt_down).toBe(20);
    expect(ups.map((u) => u.downlink_queued?.f_cnt)).toEqual([20]);
    expect(published.filter((e) => e.name === 'as.down.data.forward').map((e) => (e.data as Json).f_cnt)).toEqual([20]);
  });

  it('gives up after 50 refusals with the last one as the answer; nothing stored', async () => {
    await create('min-50');
    ns.refuseNext = Array.from({ length: 60 }, () => ns.fCntTooLow('min-50', 5, 5));
    const err = await errorOf(queue.push(req('min-50', [{ f_port: 1, frm_payload: b64('01') }]), CTX));
    expect([err.namespace, err.errorName, err.code]).toEqual(['pkg/networkserver', 'f_cnt_too_low', 3]);
    expect(ns.requests).toHaveLength(50);
    expect((await stored('min-50')).session?.last_a_f_cnt_down).toBe(4);
  });

  it("the NS's other refusals are the answer as it gave them, not tried again; downlink_failed and as.down.data.drop; nothing stored", async () => {
    await create('ns-no');
    ns.refuseNext = [
      {
        namespace: 'pkg/networkserver',
        name: 'application_downlink_too_long',
        message_format: 'x',
        code: 3,
        correlation_id: 'c',
        attributes: { length: 200, max: 51 },
      },
    ];
    const err = await errorOf(queue.push(req('ns-no', [{ f_port: 1, frm_payload: b64('01') }]), CTX));
    expect([err.namespace, err.errorName, err.attributes]).toEqual(['pkg/networkserver', 'application_downlink_too_long', { length: 200, max: 51 }]);
    expect(ns.requests).toHaveLength(1);
    expect((await stored('ns-no')).session?.last_a_f_cnt_down).toBe(4);
    expect(published.map((e) => e.name)).toEqual(['as.down.data.receive', 'as.down.data.drop']);
    expect(ups[0].downlink_failed).toMatchObject({ downlink: { f_port: 1, frm_payload: b64('01') }, error: { name: 'application_downlink_too_long' } });
  });

  it('without a Network Server: peer_unavailable (503), nothing stored, downlink_failed and as.down.data.drop', async () => {
    await create('no-ns');
    ns.unreachable = true;
    for (const op of ['push', 'replace'] as const) {
      const err = await errorOf(queue[op](req('no-ns', [{ f_port: 1, frm_payload: b64('01') }]), CTX));
      expect([err.namespace, err.errorName, err.code, err.attributes]).toEqual(['pkg/cluster', 'peer_unavailable', 14, { cluster_role: 'NETWORK_SERVER' }]);
    }
    expect((await stored('no-ns')).session?.last_a_f_cnt_down).toBe(4);
    expect(ups.map((u) => (u.downlink_failed as { error: Json } | undefined)?.error?.name)).toEqual(['peer_unavailable', 'peer_unavailable']);
    expect(published.map((e) => e.name)).toEqual(['as.down.data.receive', 'as.down.data.drop', 'as.down.data.receive', 'as.down.data.drop']);
    expect((await errorOf(queue.list(ids('no-ns'), CTX))).errorName).toBe('peer_unavailable');
  });

  it("encrypts for the pending session too (each session's AppSKey, DevAddr and FCnt); the application sees the current session's", async () => {
    const PENDING_KEY = 'F0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF';
    const pending = { dev_addr: '26022222', keys: { session_key_id: 'BAUG', app_s_key: { key: PENDING_KEY } } };
    /** As a join-accept does: the pending session next to the device's session (the AS registry's Set takes no pending session). */
    const addPending = (device_id: string) =>
      registry.modify({ application_id: APP, device_id }, (device) => ({ device: { ...device, pending_session: pending }, result: undefined }));
    await create('pend-1');
    await addPending('pend-1');
    await queue.push(req('pend-1', [{ f_port: 7, frm_payload: b64('C0FFEE') }]), CTX);
    const pendingEnc = encryptFrmPayload(PENDING_KEY, '26022222', 1, false, Buffer.from('C0FFEE', 'hex')).toString('base64');
    expect((await storedQueue('pend-1'))?.map((d) => [d.session_key_id, d.f_cnt, d.frm_payload])).toEqual([
      ['AQID', 5, enc('C0FFEE', 5)],
      ['BAUG', 1, pendingEnc],
    ]);
    const raw = await stored('pend-1');
    expect([raw.session?.last_a_f_cnt_down, (raw.pending_session as Json).last_a_f_cnt_down]).toEqual([5, 1]);
    expect(ups.map((u) => [u.downlink_queued?.session_key_id, u.downlink_queued?.f_cnt])).toEqual([['AQID', 5]]);
    expect(published.filter((e) => e.name === 'as.down.data.forward')).toHaveLength(2);
    // Only a pending session (joined, no uplink yet): queued for it.
    await registry.set(setReq({ ids: ids('pend-2'), formatters: {} }, ['formatters']), CTX);
    await addPending('pend-2');
    await queue.push(req('pend-2', [{ f_port: 7, frm_payload: b64('C0FFEE') }]), CTX);
    expect((await storedQueue('pend-2'))?.map((d) => [d.session_key_id, d.f_cnt, d.frm_payload])).toEqual([['BAUG', 1, pendingEnc]]);
    expect((await queue.list(ids('pend-2'), CTX)).downlinks?.map((d) => d.frm_payload)).toEqual([b64('C0FFEE')]);
  });
});
