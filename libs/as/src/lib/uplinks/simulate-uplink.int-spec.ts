import { ApplicationUp, type ApplicationUpJson, decodeMessage, type RpcContext, SetApplicationLinkRequest } from '@lorawan/api';
import { ErrValidation } from '@lorawan/errors';
import type { DeviceRegistry } from '@lorawan/registry';
import { openTestDataSource, setReq, unobservedEvents } from '@lorawan/registry/conformance';
import { encodeLpp } from '../formatters/cayenne-lpp';
import { PayloadFormatter } from '../formatters/payload-formatter.service';
import { AS_MIGRATIONS } from '../migrations';
import { asRegistry, errorOf, type RecordedEvent, recordingPublisher, RecordingSink, testFormatterPool } from '../testing/as-test-kit';
import { ApplicationLinkRegistry } from '../links/application-link.service';
import { SqlLinkStore } from '../links/application-link.store';
import { SimulateUplink } from './simulate-uplink.service';
import { ApplicationUpForwarder } from '../integrations/application-up-forwarder.service';
import { UplinkDecoder } from './uplink-decoder.service';

/** AppAs.SimulateUplink on a real AS store (SQLite and MariaDB), with a recording sink and event publisher. */

type Json = Record<string, unknown>;
const APP = 'app-sim';
const APP_DEFAULTS = 'app-sim-defaults';
const APP_SKIP = 'app-sim-skip';
const APP_S_KEY = '00112233445566778899AABBCCDDEEFF';
const DEV_ADDR = '26011BDA';
const DEV_EUI = '70B3D57ED0000A01';
const JOIN_EUI = '0000000000000A01';
const RPC_CID = 'rpc:/ttn.lorawan.v3.AppAs/SimulateUplink:01J0000000000000000000000';
const CTX: RpcContext = { request_id: 'spec', correlation_ids: [RPC_CID] };
const JS_DECODER = `function decodeUplink(input) {
  if (input.bytes[0] === 255) return { errors: ['bad first byte'] };
  return { data: { sum: input.bytes.reduce(function (a, b) { return a + b; }, 0), port: input.fPort, at: input.recvTime.toISOString() }, warnings: input.bytes.length > 2 ? ['long'] : [] };
}`;
const b64 = (bytes: number[]) => Buffer.from(bytes).toString('base64');
const ids = (application_id: string, device_id: string) => ({ device_id, application_ids: { application_id } });
/** The request as the AS gets it: the body decoded, the path's IDs in `end_device_ids`. */
const simReq = (application_id: string, device_id: string, body: Json) =>
  decodeMessage(ApplicationUp, { ...body, end_device_ids: { ...((body.end_device_ids as Json) ?? {}), ...ids(application_id, device_id) } });

describe.each(['sqlite', 'mysql'] as const)('SimulateUplink (%s)', (driver) => {
  let db: Awaited<ReturnType<typeof openTestDataSource>>;
  let registry: DeviceRegistry;
  let links: ApplicationLinkRegistry;
  let simulator: SimulateUplink;
  const pool = testFormatterPool();
  const published: RecordedEvent[] = [];
  const recorder = recordingPublisher(published);
  const sink = new RecordingSink();
  const ups = sink.ups;
  const names = () => published.map((e) => e.name);
  const create = (application_id: string, device_id: string, extra: Json = {}, paths: string[] = []) =>
    registry.set(
      setReq(
        {
          ids: { ...ids(application_id, device_id), dev_eui: DEV_EUI, join_eui: JOIN_EUI },
          session: { dev_addr: DEV_ADDR, keys: { session_key_id: 'AQID', app_s_key: { key: APP_S_KEY } } },
          ...extra,
        },
        ['session.dev_addr', 'session.keys.app_s_key.key', 'session.keys.session_key_id', ...paths],
      ),
      CTX,
    );

  beforeAll(async () => {
    db = await openTestDataSource('as', AS_MIGRATIONS, driver);
    registry = asRegistry(db.ds, unobservedEvents());
    links = new ApplicationLinkRegistry(new SqlLinkStore(db.ds));
    const decoder = new UplinkDecoder(new PayloadFormatter(pool), recorder);
    simulator = new SimulateUplink(registry, links, decoder, new ApplicationUpForwarder(recorder, sink));
    await create(APP, 'plain');
    await create(APP, 'dev-js', { formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: JS_DECODER } }, ['formatters']);
    await create(APP, 'dev-lpp', { formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } }, ['formatters']);
    await create(APP, 'skip', { skip_payload_crypto: true }, ['skip_payload_crypto']);
    await links.set(
      decodeMessage(SetApplicationLinkRequest, {
        application_ids: { application_id: APP_DEFAULTS },
        link: { default_formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } },
        field_mask: { paths: ['default_formatters'] },
      }),
    );
    await create(APP_DEFAULTS, 'no-formatters');
    await create(APP_DEFAULTS, 'own-js', { formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: JS_DECODER } }, ['formatters']);
    await create(APP_DEFAULTS, 'own-down-only', { formatters: { down_formatter: 'FORMATTER_CAYENNELPP' } }, ['formatters']);
    await links.set(
      decodeMessage(SetApplicationLinkRequest, {
        application_ids: { application_id: APP_SKIP },
        link: { skip_payload_crypto: true },
        field_mask: { paths: ['skip_payload_crypto'] },
      }),
    );
    await create(APP_SKIP, 'dev');
  });
  afterAll(async () => {
    await pool.close();
    await db.close();
  });
  beforeEach(() => {
    published.length = 0;
    ups.length = 0;
    sink.failWith = undefined;
  });

  it('refuses a message marked simulated: 400 pkg/applicationserver/io/grpc:simulated, nothing published', async () => {
    const err = await errorOf(simulator.simulate(simReq(APP, 'plain', { simulated: true, uplink_message: { f_port: 1, frm_payload: b64([1]) } }), CTX));
    expect([err.namespace, err.errorName, err.code]).toEqual(['pkg/applicationserver/io/grpc', 'simulated', 3]);
    expect([published, ups]).toEqual([[], []]);
  });

  it('needs exactly one message kind: none or several is a validation error naming `up`', async () => {
    const none = await errorOf(simulator.simulate(simReq(APP, 'plain', { correlation_ids: ['x'] }), CTX));
    expect(ErrValidation.matches(none)).toBe(true);
    expect(none.attributes).toEqual({ field: 'up', name: 'ApplicationUpValidationError', reason: 'value is required' });
    const two = await errorOf(simulator.simulate(simReq(APP, 'plain', { uplink_message: { f_port: 1 }, join_accept: {} }), CTX));
    expect([two.errorName, two.code, two.attributes.field]).toEqual(['validation', 3, 'up']);
    expect(String(two.attributes.reason)).toContain('`uplink_message`, `join_accept`');
    expect([published, ups]).toEqual([[], []]);
  });

  it('refuses devices whose payload crypto is skipped (device or application link): 400 payload_crypto_skipped', async () => {
    for (const [app, dev] of [
      [APP, 'skip'],
      [APP_SKIP, 'dev'],
    ]) {
      const err = await errorOf(simulator.simulate(simReq(app, dev, { uplink_message: { f_port: 1, frm_payload: b64([1]) } }), CTX));
      expect([err.namespace, err.errorName, err.code]).toEqual(['pkg/applicationserver/io/grpc', 'payload_crypto_skipped', 9]);
    }
    expect([published, ups]).toEqual([[], []]);
  });

  it('an unknown device: {} to the caller, receive then drop (device_not_found), nothing delivered', async () => {
    expect(await simulator.simulate(simReq(APP, 'ghost', { uplink_message: { f_port: 1, frm_payload: b64([1]) } }), CTX)).toEqual({});
    expect(names()).toEqual(['as.up.data.receive', 'as.up.data.drop']);
    expect(published[1].identifiers).toEqual({ device_ids: ids(APP, 'ghost') });
    expect(published[1].data).toMatchObject({
      namespace: 'pkg/applicationserver',
      name: 'device_not_found',
      code: 5,
      attributes: { device_uid: `${APP}.ghost` },
    });
    expect(published[1].correlation_ids).toContain(RPC_CID);
    published.length = 0;
    expect(await simulator.simulate(simReq(APP_SKIP, 'ghost', { join_accept: { session_key_id: 'AQID' } }), CTX)).toEqual({});
    expect(names()).toEqual(['as.up.join.receive', 'as.up.join.drop']);
    expect(ups).toEqual([]);
  });

  it('forwards an uplink: receive, forward; correlation IDs body + request + as:up; received_at now; simulated; identifiers from the registry', async () => {
    const before = Date.now();
    const body = {
      end_device_ids: { dev_eui: '0000000000000000' },
      correlation_ids: ['mine:1'],
      uplink_message: {
        f_port: 5,
        f_cnt: 42,
        frm_payload: b64([1, 2]),
        rx_metadata: [{ gateway_ids: { gateway_id: 'gw' }, rssi: -40 }],
        settings: { data_rate: { lora: { spreading_factor: 7 } } },
      },
    };
    expect(await simulator.simulate(simReq(APP, 'plain', body), CTX)).toEqual({});
    expect(names()).toEqual(['as.up.data.receive', 'as.up.data.forward']);
    expect(ups).toHaveLength(1);
    const [up] = ups;
    const endDeviceIds = { ...ids(APP, 'plain'), dev_eui: DEV_EUI, join_eui: JOIN_EUI, dev_addr: DEV_ADDR };
    expect(up).toEqual({
      end_device_ids: endDeviceIds,
      correlation_ids: ['mine:1', RPC_CID, expect.stringMatching(/^as:up:[0-9A-Z]{26}$/)],
      received_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      simulated: true,
      uplink_message: body.uplink_message,
    });
    expect(Date.parse(up.received_at as string)).toBeGreaterThanOrEqual(before - 1000);
    const [receive, forward] = published;
    expect(receive.identifiers).toEqual({ device_ids: endDeviceIds });
    expect(receive.data).toBeUndefined();
    expect(forward.data).toEqual(up);
    expect(receive.correlation_ids).toEqual(up.correlation_ids);
    expect(forward.correlation_ids).toEqual(up.correlation_ids);
    expect(JSON.stringify([ups, published])).not.toContain(APP_S_KEY);
  });

  it('keeps a given received_at and an already decoded payload', async () => {
    await simulator.simulate(
      simReq(APP, 'dev-js', {
        received_at: '2024-05-01T10:00:00.123Z',
        uplink_message: { f_port: 1, frm_payload: b64([1]), decoded_payload: { given: true } },
      }),
      CTX,
    );
    // Kept (in the contract's canonical form: RFC 3339 UTC with microseconds).
    expect(ups[0].received_at).toBe('2024-05-01T10:00:00.123000Z');
    expect(ups[0].uplink_message?.decoded_payload).toEqual({ given: true });
  });

  it('decodes with the device JavaScript formatter (recvTime = received_at), warnings as decoded_payload_warnings', async () => {
    await simulator.simulate(simReq(APP, 'dev-js', { received_at: '2024-05-01T10:00:00Z', uplink_message: { f_port: 3, frm_payload: b64([1, 2, 3]) } }), CTX);
    expect(ups[0].uplink_message).toEqual({
      f_port: 3,
      frm_payload: b64([1, 2, 3]),
      decoded_payload: { sum: 6, port: 3, at: '2024-05-01T10:00:00.000Z' },
      decoded_payload_warnings: ['long'],
    });
    expect((published[1].data as ApplicationUpJson).uplink_message?.decoded_payload).toEqual({ sum: 6, port: 3, at: '2024-05-01T10:00:00.000Z' });
  });

  it('decodes with the device CayenneLPP formatter; FPort 0 and an absent FRMPayload are not decoded', async () => {
    const bytes = [...encodeLpp({ temperature_1: 21.5, digital_in_2: 1 })];
    await simulator.simulate(simReq(APP, 'dev-lpp', { uplink_message: { f_port: 2, frm_payload: b64(bytes) } }), CTX);
    expect(ups[0].uplink_message?.decoded_payload).toEqual({ temperature_1: 21.5, digital_in_2: 1 });
    await simulator.simulate(simReq(APP, 'dev-lpp', { uplink_message: { f_port: 0, frm_payload: b64(bytes) } }), CTX);
    await simulator.simulate(simReq(APP, 'dev-lpp', { uplink_message: { f_port: 2 } }), CTX);
    expect(ups.slice(1).map((u) => u.uplink_message?.decoded_payload)).toEqual([undefined, undefined]);
  });

  it('uses the application link default formatters when the device has none; the device formatters override them', async () => {
    const bytes = [...encodeLpp({ temperature_1: 21.5 })];
    for (const dev of ['no-formatters', 'own-js', 'own-down-only'])
      await simulator.simulate(simReq(APP_DEFAULTS, dev, { uplink_message: { f_port: 2, frm_payload: b64(bytes) } }), CTX);
    expect(ups.map((u) => u.uplink_message?.decoded_payload)).toEqual([
      { temperature_1: 21.5 },
      { sum: bytes.reduce((a, b) => a + b, 0), port: 2, at: new Date(ups[1].received_at as string).toISOString() },
      undefined,
    ]);
  });

  it('a decode failure publishes as.up.data.decode.fail and forwards the uplink without decoded_payload', async () => {
    await simulator.simulate(simReq(APP, 'dev-js', { uplink_message: { f_port: 1, frm_payload: b64([255, 1]) } }), CTX);
    expect(names()).toEqual(['as.up.data.receive', 'as.up.data.decode.fail', 'as.up.data.forward']);
    expect(published[1].data).toMatchObject({ namespace: 'pkg/messageprocessors/javascript', name: 'output_errors', attributes: { errors: 'bad first byte' } });
    expect(published[1].correlation_ids).toEqual(ups[0].correlation_ids);
    expect(ups[0].uplink_message).toEqual({ f_port: 1, frm_payload: b64([255, 1]) });
    // A broken CayenneLPP payload too.
    published.length = 0;
    await simulator.simulate(simReq(APP, 'dev-lpp', { uplink_message: { f_port: 1, frm_payload: b64([1]) } }), CTX);
    expect(names()).toEqual(['as.up.data.receive', 'as.up.data.decode.fail', 'as.up.data.forward']);
    expect(ups[1].uplink_message?.decoded_payload).toBeUndefined();
  });

  it('forwards a join-accept: as.up.join.receive then as.up.join.forward', async () => {
    await simulator.simulate(simReq(APP, 'plain', { join_accept: { session_key_id: 'AQID', received_at: '2024-05-01T10:00:00Z' } }), CTX);
    expect(names()).toEqual(['as.up.join.receive', 'as.up.join.forward']);
    expect(ups[0]).toMatchObject({
      simulated: true,
      join_accept: { session_key_id: 'AQID', received_at: '2024-05-01T10:00:00.000000Z' },
      end_device_ids: { dev_addr: DEV_ADDR },
    });
    expect(published[1].data).toEqual(ups[0]);
  });

  it('forwards other kinds as they are, without as.up events', async () => {
    await simulator.simulate(simReq(APP, 'plain', { service_data: { service: 'x', data: { a: 1 } } }), CTX);
    expect(published).toEqual([]);
    expect(ups[0]).toMatchObject({ simulated: true, service_data: { service: 'x', data: { a: 1 } } });
  });

  it('a sink that cannot queue the deliveries fails the request (503) with a drop event and no forward', async () => {
    sink.failWith = new Error('stream unavailable');
    const err = await errorOf(simulator.simulate(simReq(APP, 'plain', { uplink_message: { f_port: 1, frm_payload: b64([1]) } }), CTX));
    expect([err.namespace, err.errorName, err.code]).toEqual(['pkg/applicationserver', 'publish_up', 14]);
    expect(names()).toEqual(['as.up.data.receive', 'as.up.data.drop']);
    expect(published[1].data).toMatchObject({ name: 'publish_up' });
  });
});
