import { AS_EVENTS, type DownlinkQueueRequest } from '@lorawan/api';
import { encryptFrmPayload } from '@lorawan/crypto';
import { copySourceFor, DeviceRegistry, keySealerFor, TypeOrmDeviceStore } from '@lorawan/registry';
import { CTX, openTestDataSource, rawFieldsOf, setReq, unobservedEvents } from '@lorawan/registry/conformance';
import { AS_REGISTRY_POLICY } from '../end-devices/as-registry.policy';
import { JavaScriptSandbox } from '../formatters/javascript-sandbox';
import { PayloadFormatter } from '../formatters/payload-formatter.service';
import { AS_MIGRATIONS } from '../migrations';
import { asRegistry, errorOf, type RecordedEvent, recordingPublisher, RecordingSink } from '../testing/as-test-kit';
import { ApplicationLinkRegistry } from '../uplinks/link/application-link.service';
import { SqlLinkStore } from '../uplinks/link/application-link.store';
import { DownlinkQueue } from './downlink-queue.service';

/** The AppAs downlink queue on a real AS store (SQLite and MariaDB). */

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
  const storedQueue = async (device_id: string) => (await stored(device_id)).session?.queued_application_downlinks as Json[] | undefined;

  beforeAll(async () => {
    db = await openTestDataSource('as', AS_MIGRATIONS, driver);
    registry = asRegistry(db.ds, unobservedEvents());
    links = new ApplicationLinkRegistry(new SqlLinkStore(db.ds));
    queue = new DownlinkQueue(registry, new PayloadFormatter(new JavaScriptSandbox()), recorder, links, sink);
  });
  afterAll(async () => db.close());
  beforeEach(() => {
    published.length = 0;
    ups.length = 0;
    sink.failWith = undefined;
  });

  it('push assigns FCnts from last_a_f_cnt_down, encrypts with the AppSKey, and list decrypts', async () => {
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
    const items = raw.session?.queued_application_downlinks as Json[];
    expect(items.map((i) => [i.f_cnt, i.f_port, i.frm_payload, i.session_key_id])).toEqual([
      [5, 1, enc('010203', 5), 'AQID'],
      [6, 2, enc('0405', 6), 'AQID'],
      [7, 3, enc('06', 7), 'AQID'],
    ]);
    expect(raw.session?.last_a_f_cnt_down).toBe(7);
    for (const item of items) expect((item.correlation_ids as string[]).some((c) => /^as:downlink:[0-9A-Z]{26}$/.test(c))).toBe(true);
    const list = await queue.list(ids('push-1'));
    expect(list.downlinks?.map((d) => [d.f_cnt, d.f_port, d.frm_payload, d.confirmed, d.priority])).toEqual([
      [5, 1, b64('010203'), undefined, 'NORMAL'],
      [6, 2, b64('0405'), true, undefined],
      [7, 3, b64('06'), undefined, undefined],
    ]);
    // The registry shows the queue (encrypted) in the session and the deprecated top-level mirror.
    const viaRegistry = (await registry.get({
      end_device_ids: ids('push-1'),
      field_mask: { paths: ['session.queued_application_downlinks', 'queued_application_downlinks'] },
    } as never)) as Json & {
      session: Json;
    };
    expect(viaRegistry.queued_application_downlinks).toEqual(viaRegistry.session.queued_application_downlinks);
    expect((viaRegistry.queued_application_downlinks as Json[]).map((d) => d.frm_payload)).toEqual([enc('010203', 5), enc('0405', 6), enc('06', 7)]);
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
    expect(await storedQueue('rep-1')).toBeUndefined();
    expect(await queue.list(ids('rep-1'))).toEqual({});
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
    const list = await queue.list(ids('fmt-lpp'));
    expect(list.downlinks?.[0]).toMatchObject({ f_port: 2, frm_payload: b64('010096'), decoded_payload: { value_1: 1.5 } });
  });

  it('each bad input fails with its error, stores nothing and drops every item', async () => {
    await create(
      'bad-1',
      { formatters: { down_formatter: 'FORMATTER_JAVASCRIPT', down_formatter_parameter: 'function encodeDownlink() { return { errors: ["no led"] }; }' } },
      [...SESSION_PATHS, 'formatters'],
    );
    await queue.push(req('bad-1', [{ f_port: 1, frm_payload: b64('01') }]), CTX);
    const before = await stored('bad-1');
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
      expect(await stored('bad-1')).toEqual(before);
      expect(published.map((e) => e.name)).toEqual([...downlinks.map(() => 'as.down.data.receive'), ...downlinks.map(() => 'as.down.data.drop')]);
    }
    const encodeErr = await errorOf(queue.replace(req('bad-1', [{ f_port: 1, decoded_payload: { led: 1 } }]), CTX));
    expect(encodeErr.toDetails().cause).toMatchObject({ name: 'output_errors', attributes: { errors: 'no led' } });
    expect(await stored('bad-1')).toEqual(before);
    await queue.push(req('bad-1', [{ f_port: 223, frm_payload: Buffer.alloc(242).toString('base64') }]), CTX);
    expect((await storedQueue('bad-1'))?.length).toBe(2);
  });

  it('answers no_device_session (9) without a session and device_not_found (5) for an absent device', async () => {
    await registry.set(setReq({ ids: ids('nosess'), formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } }, ['formatters']), CTX);
    const noSession = await errorOf(queue.push(req('nosess', [{ f_port: 1, frm_payload: b64('01') }]), CTX));
    expect([noSession.namespace, noSession.errorName, noSession.code]).toEqual(['pkg/applicationserver', 'no_device_session', 9]);
    const missing = await errorOf(queue.push(req('absent', [{ f_port: 1 }]), CTX));
    expect([missing.errorName, missing.code, missing.attributes]).toEqual(['device_not_found', 5, { device_uid: `${APP}.absent` }]);
    expect((await errorOf(queue.list(ids('absent')))).errorName).toBe('device_not_found');
    expect(await queue.list(ids('nosess'))).toEqual({});
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

  it('concurrent pushes each get their own FCnts (optimistic concurrency, nothing lost)', async () => {
    await create('conc-1');
    await Promise.all([1, 2, 3, 4, 5].map((n) => queue.push(req('conc-1', [{ f_port: n, frm_payload: b64('0' + n) }]), CTX)));
    const items = (await storedQueue('conc-1')) as Json[];
    expect(items.map((i) => i.f_cnt)).toEqual([5, 6, 7, 8, 9]);
    expect(items.map((i) => i.f_port).sort()).toEqual([1, 2, 3, 4, 5]);
    const listed = await queue.list(ids('conc-1'));
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
    const kekQueue = new DownlinkQueue(wrapped, new PayloadFormatter(new JavaScriptSandbox()), recorder, links, sink);
    await kekQueue.push(req('kek-1', [{ f_port: 1, frm_payload: b64('0102') }]), CTX);
    expect((await storedQueue('kek-1'))?.[0].frm_payload).toBe(enc('0102', 1));
    expect((await kekQueue.list(ids('kek-1'))).downlinks?.[0].frm_payload).toBe(b64('0102'));
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
      expect((await queue.list(ids('link-1'))).downlinks?.[0]).toMatchObject({ frm_payload: b64('0200C8'), decoded_payload: { value_2: 2 } });
      // The device's own formatters (even without a down formatter) win over the link's.
      const script = 'function encodeDownlink(input) { return { bytes: [7] }; }';
      await create('link-2', { formatters: { down_formatter: 'FORMATTER_JAVASCRIPT', down_formatter_parameter: script } }, [...SESSION_PATHS, 'formatters']);
      await queue.push(req('link-2', [{ f_port: 3, decoded_payload: { value_2: 2 } }]), CTX);
      expect((await storedQueue('link-2'))?.[0]).toMatchObject({ frm_payload: enc('07', 5) });
      expect((await queue.list(ids('link-2'))).downlinks?.[0].decoded_payload).toBeUndefined();
      await create('link-3', { formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } }, [...SESSION_PATHS, 'formatters']);
      await queue.push(req('link-3', [{ f_port: 3, decoded_payload: { value_2: 2 } }]), CTX);
      // No down formatter of its own: the decoded payload is not encoded (an empty FRMPayload).
      expect((await storedQueue('link-3'))?.[0].frm_payload).toBeUndefined();
    } finally {
      await links.delete({ application_id: app });
    }
  });
});
