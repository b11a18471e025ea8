import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import type { RpcContext } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import type { ErrorDetails } from '@lorawan/errors';
import { dropMysqlDatabase, ensureMysqlDatabase } from '@lorawan/persistence';
import { DeviceRegistry } from '@lorawan/registry';
import { rawFieldsOf } from '@lorawan/registry/conformance';
import {
  type EventRecorder,
  recordEvents,
  rpcContext,
  type RpcReply,
  serveRpcDouble,
  type StableEvent,
  startTestComponent,
  type TestComponent,
  TEST_MYSQL_URL,
  uniqueSuffix,
  WebhookReceiver,
  loraFrmPayload,
  wrapKeyForKek,
} from '@lorawan/testing';
import type { RpcEnvelope, Subscription } from '@lorawan/transport';
import { AsModule } from '../as.module';
import { adminContext, errorOf, type RecordedEvent, recordingPublisher, RecordingSink } from '../testing/as-test-kit';
import { DownlinkPayloads } from '../downlinks/downlink-payloads.service';
import { DownlinkReports } from '../downlinks/downlink-reports.service';
import { DownlinkQueueOperation } from '../downlinks/queue-operation.service';
import { AppSKeys } from '../end-devices/app-s-keys.service';
import { ApplicationUpForwarder } from '../integrations/application-up-forwarder.service';
import { DataUplinks, type NsDataUplink } from './data-uplink.service';
import { JoinAccepts, type NsJoinAccept } from './join-accept.service';
import { ApplicationLinkRegistry } from '../links/application-link.service';
import { UplinkDecoder } from './uplink-decoder.service';

/**
 * NsAs.HandleUplink on a started Application Server (MariaDB, its own database; in-process
 * transport): join-accepts and data uplinks as the NS sends them (FRMPayloads encrypted by
 * `lora-packet`, never by the stack's own crypto), the AS registry read back through
 * AsEndDeviceRegistry.Get, the events on the broker, a webhook on a real HTTP receiver, and the
 * Join Server's AsJs.GetAppSKey served by a double on the same broker.
 */

type Json = Record<string, unknown>;
const APP = 'app-nsas';
const JOIN_EUI = '70B3D57ED0000A02';
/** The AS's KEKs: `as-kek` (what the JS wraps AppSKeys for this AS with) and `as-rest` (the AS's own, for keys at rest). */
const AS_KEK = '0F0E0D0C0B0A09080706050403020100';
const KEKS = `as-kek=${AS_KEK},as-rest=000102030405060708090A0B0C0D0E0F`;
const KEY_1 = '11111111111111111111111111111111';
const KEY_2 = '2B7E151628AED2A6ABF7158809CF4F3C';
const KEY_3 = '33333333333333333333333333333333';
const UPLINK_ID = 'gs:uplink:01JDXNSAS0000000000000000A';
const GSNS_ID = 'rpc:/ttn.lorawan.v3.GsNs/HandleUplink:01JDXNSAS0000000000000000B';
const NS_RECEIVED_AT = '2025-01-02T03:04:05.123456Z';
const ADMIN = adminContext('nsas-spec');
const SESSION_PATHS = ['session.dev_addr', 'session.keys.app_s_key.key', 'session.keys.session_key_id'];

const devEui = (n: number) => `70B3D57ED2${n.toString(16).toUpperCase().padStart(6, '0')}`;
const devAddr = (n: number) => `2601${n.toString(16).toUpperCase().padStart(4, '0')}`;
const sessionKeyId = (n: number) => Buffer.from(`session-${n}`).toString('base64');
const ids = (device_id: string) => ({ device_id, application_ids: { application_id: APP } });
/** A device's identifiers as the NS names it in a join-accept (n: its EUI; m: which join, for the DevAddr). */
const nsIds = (device_id: string, n: number, m = n) => ({ ...ids(device_id), dev_eui: devEui(n), join_eui: JOIN_EUI, dev_addr: devAddr(m) });
/** RFC 3394 with node:crypto, not the stack's KeyVault. */
const wrapForAs = (keyHex: string) => wrapKeyForKek('as-kek', AS_KEK, keyHex);

const RX_METADATA = [{ gateway_ids: { gateway_id: 'gw-nsas', eui: 'AA555A0000000101' }, timestamp: 3512348611, rssi: -35, channel_rssi: -35, snr: 5.1 }];
const SETTINGS = { data_rate: { lora: { bandwidth: 125000, spreading_factor: 7, coding_rate: '4/5' } }, frequency: '868100000', timestamp: 3512348611 };
const NETWORK_IDS = { net_id: '000013', ns_id: 'EC656E0000000001', cluster_id: 'eu1' };
/** Decodes to text, FPort and recvTime; refuses a payload starting with 0xFF. */
const JS_DECODER = `function decodeUplink(input) {
  if (input.bytes[0] === 255) return { errors: ['first byte 0xFF'] };
  return { data: { text: String.fromCharCode.apply(null, input.bytes), port: input.fPort, at: input.recvTime ? input.recvTime.toISOString() : null } };
}`;
const VERSION_IDS = { brand_id: 'acme', model_id: 'sensor-1', hardware_version: '1.0', firmware_version: '1.2' };
const LPP_TEMPERATURE = Buffer.from('03670110', 'hex'); // {"temperature_3": 27.2}
const b64 = (bytes: Buffer) => bytes.toString('base64');

/** The FRMPayload a device sends: `payload` encrypted by lora-packet with the AppSKey, the DevAddr and the full 32-bit FCnt. */
function deviceFrmPayload(appSKey: string, addr: string, fCnt: number, fPort: number, payload: Buffer): string {
  return b64(loraFrmPayload({ appSKey, devAddr: addr, fCnt, fPort, payload, direction: 'up' }));
}

interface DataUpOptions {
  appSKey: string;
  payload: Buffer;
  fCnt?: number;
  fPort?: number;
  /** Which join's session (session key ID and DevAddr); default n. */
  session?: number;
}

/** The ApplicationUp the NS sends for a data uplink of device n: full FCnt, FRMPayload still encrypted, the NS's metadata. */
function dataUp(device_id: string, n: number, o: DataUpOptions): Json {
  const session = o.session ?? n;
  const fCnt = o.fCnt ?? 1;
  const fPort = o.fPort ?? 1;
  return {
    end_device_ids: nsIds(device_id, n, session),
    correlation_ids: [UPLINK_ID, GSNS_ID],
    uplink_message: {
      session_key_id: sessionKeyId(session),
      f_port: fPort,
      f_cnt: fCnt,
      frm_payload: deviceFrmPayload(o.appSKey, devAddr(session), fCnt, fPort, o.payload),
      rx_metadata: RX_METADATA,
      settings: SETTINGS,
      received_at: NS_RECEIVED_AT,
      consumed_airtime: '0.051456s',
      network_ids: NETWORK_IDS,
    },
  };
}

/** The `uplink_message` the application gets for a `dataUp`: the same, with the plaintext FRMPayload (plus what the AS adds). */
function appUplink(n: number, o: DataUpOptions, added: Json = {}): Json {
  const session = o.session ?? n;
  return {
    session_key_id: sessionKeyId(session),
    f_port: o.fPort ?? 1,
    f_cnt: o.fCnt ?? 1,
    frm_payload: b64(o.payload),
    rx_metadata: RX_METADATA,
    settings: SETTINGS,
    received_at: NS_RECEIVED_AT,
    consumed_airtime: '0.051456s',
    network_ids: NETWORK_IDS,
    ...added,
  };
}

/** The ApplicationUp the NS sends once the join-accept is scheduled (`app_s_key` omitted when undefined). */
function joinAcceptUp(device_id: string, n: number, o: { appSKey?: Json; join?: number } = {}): Json {
  const join = o.join ?? n;
  return {
    end_device_ids: nsIds(device_id, n, join),
    correlation_ids: [UPLINK_ID, GSNS_ID],
    join_accept: { session_key_id: sessionKeyId(join), ...(o.appSKey ? { app_s_key: o.appSKey } : {}), received_at: NS_RECEIVED_AT },
  };
}

describe('NsAs.HandleUplink: join-accepts and data uplinks (MariaDB)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lw-as-nsas-'));
  const dbUrl = `${TEST_MYSQL_URL}/lw_${uniqueSuffix()}_as`;
  let as: TestComponent;
  let events: EventRecorder;
  let receiver: WebhookReceiver;
  /** What the Join Server double answers AsJs.GetAppSKey with, and what it was asked. */
  let jsAnswer: (req: RpcEnvelope) => RpcReply = () => ({ error: notFound() });
  const jsRequests: RpcEnvelope[] = [];
  let js: Subscription | undefined;

  const handle = (ups: Json[], ctx: RpcContext = rpcContext('NsAs.HandleUplink')) => as.call('NsAs.HandleUplink', { application_ups: ups }, ctx);
  const register = (n: number) =>
    as.call(
      'AsEndDeviceRegistry.Set',
      { end_device: { ids: { ...ids(`dev-${n}`), dev_eui: devEui(n), join_eui: JOIN_EUI } }, field_mask: { paths: [] } },
      ADMIN,
    );
  const get = async (device_id: string, paths: string[]) => {
    const reply = await as.call('AsEndDeviceRegistry.Get', { end_device_ids: ids(device_id), field_mask: { paths } }, ADMIN);
    if (!('ok' in reply)) throw new Error(JSON.stringify(reply));
    return reply.ok as Json;
  };
  const upEvents = async (): Promise<StableEvent[]> => (await events.take()).filter((e) => e.name.startsWith('as.up.'));
  /** A message of the unknown device `ghost`: device_not_found (404) after `as.up.<kind>.receive` and `.drop` naming it as the NS does; the JS is not asked, nothing goes to `path`. */
  const expectUnknownDevice = async (up: Json, kind: 'join' | 'data', path: string) => {
    const reply = await handle([up]);
    expect(reply).toMatchObject({
      error: { namespace: 'pkg/applicationserver', name: 'device_not_found', code: 5, attributes: { device_uid: `${APP}.ghost` } },
    });
    const published = await upEvents();
    const identifiers = [{ device_ids: up.end_device_ids }];
    expect(published.map((e) => [e.name, e.identifiers])).toEqual([
      [`as.up.${kind}.receive`, identifiers],
      [`as.up.${kind}.drop`, identifiers],
    ]);
    expect(published[1].data).toMatchObject({ name: 'device_not_found', attributes: { device_uid: `${APP}.ghost` } });
    expect(published[1].correlation_ids).toContain(UPLINK_ID);
    expect(jsRequests).toEqual([]);
    await sleep(300);
    expect(receiver.to(path).filter((r) => r.json?.end_device_ids?.device_id === 'ghost')).toEqual([]);
  };
  /**
   * `up` handled: `as.up.<kind>.receive` (no data) then `.forward` with the ApplicationUp the
   * integrations got (`message`: its kind's field), both naming the device as the NS does (with
   * its DevAddr), with the NS's correlation IDs, the call's and `as:up:<ULID>`; `received_at` the AS's time.
   */
  const expectReceivedAndForwarded = async (up: Json, kind: 'join' | 'data', message: Json) => {
    const ctx = rpcContext('NsAs.HandleUplink');
    const before = Date.now();
    expect(await handle([up], ctx)).toEqual({ ok: {} });
    const published = await upEvents();
    expect(published.map((e) => e.name)).toEqual([`as.up.${kind}.receive`, `as.up.${kind}.forward`]);
    const [receive, forward] = published;
    expect(receive).toEqual({
      name: `as.up.${kind}.receive`,
      identifiers: [{ device_ids: up.end_device_ids }],
      correlation_ids: [UPLINK_ID, GSNS_ID, ...ctx.correlation_ids, expect.stringMatching(/^as:up:[0-9A-Z]{26}$/)],
      visibility: { rights: ['RIGHT_APPLICATION_TRAFFIC_READ'] },
    });
    expect(forward.identifiers).toEqual(receive.identifiers);
    expect(forward.correlation_ids).toEqual(receive.correlation_ids);
    expect(forward.data).toEqual({
      '@type': 'type.googleapis.com/ttn.lorawan.v3.ApplicationUp',
      end_device_ids: up.end_device_ids,
      correlation_ids: receive.correlation_ids,
      received_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      ...message,
    });
    // received_at is the AS's receive time, not the NS's.
    expect(Date.parse((forward.data as Json).received_at as string)).toBeGreaterThanOrEqual(before - 1000);
  };
  /** `handle` with integrations that cannot queue anything: publish_up (503), after `as.up.<kind>.receive` and `.drop` (the error). */
  const expectPublishUpFailure = async (kind: 'join' | 'data', handleWith: (upstream: ApplicationUpForwarder) => Promise<void>) => {
    const published: RecordedEvent[] = [];
    const sink = new RecordingSink();
    sink.failWith = new Error('stream unavailable');
    const err = await errorOf(handleWith(new ApplicationUpForwarder(recordingPublisher(published), sink)));
    expect([err.namespace, err.errorName, err.code]).toEqual(['pkg/applicationserver', 'publish_up', 14]);
    expect(published.map((e) => e.name)).toEqual([`as.up.${kind}.receive`, `as.up.${kind}.drop`]);
    expect(published[1].data).toMatchObject({ name: 'publish_up', attributes: { reason: 'stream unavailable' } });
  };
  const joinHooks = (device_id: string) => receiver.to('/join').filter((r) => r.json?.end_device_ids?.device_id === device_id);

  beforeAll(async () => {
    await ensureMysqlDatabase(dbUrl);
    receiver = await new WebhookReceiver().start();
    const config = loadConfig({
      MQTT_PORT: '0', // the machine's mosquitto may hold 1883
      MQTT_HOST: '127.0.0.1',
      AS_DATABASE_URL: dbUrl,
      DATA_DIR: dir,
      LOG_LEVEL: 'error',
      KEKS,
      AS_KEK_LABEL: 'as-rest',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    as = await startTestComponent(AsModule, { component: 'as', config });
    events = recordEvents(as.broker);
    js = serveRpcDouble(as.broker, 'AsJs.GetAppSKey', (req) => {
      jsRequests.push(req);
      return jsAnswer(req);
    });
    // A webhook with the default messages: uplinks to /up, join-accepts to /join.
    const hook = await as.call(
      'ApplicationWebhookRegistry.Set',
      {
        webhook: { ids: { webhook_id: 'hook', application_ids: { application_id: APP } }, base_url: receiver.url, format: 'json' },
        field_mask: { paths: ['base_url', 'format'] },
      },
      ADMIN,
    );
    expect(hook).toHaveProperty('ok');
  });
  afterAll(async () => {
    js?.unsubscribe();
    events?.stop();
    await as?.close();
    as?.broker.close();
    await receiver?.stop();
    await dropMysqlDatabase(dbUrl);
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    jsRequests.length = 0;
    jsAnswer = () => ({ error: notFound() });
    await events.take();
  });

  it('stores a clear AppSKey as the pending session (new DevAddr, session key ID), sealed at rest; ids.dev_addr and session stay', async () => {
    expect(await register(1)).toHaveProperty('ok');
    expect(await handle([joinAcceptUp('dev-1', 1, { appSKey: { key: KEY_1 } })])).toEqual({ ok: {} });
    expect(await get('dev-1', ['pending_session', 'session'])).toEqual({
      ids: { ...ids('dev-1'), dev_eui: devEui(1), join_eui: JOIN_EUI },
      pending_session: { dev_addr: devAddr(1), keys: { session_key_id: sessionKeyId(1), app_s_key: { key: KEY_1 } } },
    });
    // At rest the key is wrapped with the AS's own KEK.
    const raw = (await rawFieldsOf(as.running.app.get(DataSource), APP, 'dev-1')) ?? '';
    expect(raw).toContain('as-rest');
    expect(raw).not.toContain(KEY_1);
    expect(jsRequests).toEqual([]);
  });

  it('opens an AppSKey the JS wrapped with a KEK of the AS (RFC 3394)', async () => {
    await register(2);
    expect(await handle([joinAcceptUp('dev-2', 2, { appSKey: wrapForAs(KEY_2) })])).toEqual({ ok: {} });
    expect(await get('dev-2', ['pending_session.keys.app_s_key.key'])).toMatchObject({ pending_session: { keys: { app_s_key: { key: KEY_2 } } } });
  });

  it('refuses an AppSKey wrapped with a KEK the AS does not have: pkg/crypto:kek_not_found, as.up.join.drop, nothing stored or delivered', async () => {
    await register(3);
    await events.take();
    const envelope = { ...wrapForAs(KEY_3), kek_label: 'js-only' };
    const reply = await handle([joinAcceptUp('dev-3', 3, { appSKey: envelope })]);
    expect(reply).toMatchObject({ error: { namespace: 'pkg/crypto', name: 'kek_not_found', code: 9, attributes: { label: 'js-only' } } });
    const published = await upEvents();
    expect(published.map((e) => e.name)).toEqual(['as.up.join.receive', 'as.up.join.drop']);
    expect(published[1].data).toMatchObject({ '@type': 'type.googleapis.com/ttn.lorawan.v3.ErrorDetails', namespace: 'pkg/crypto', name: 'kek_not_found' });
    expect(await get('dev-3', ['pending_session', 'session'])).toEqual({ ids: { ...ids('dev-3'), dev_eui: devEui(3), join_eui: JOIN_EUI } });
    await sleep(300);
    expect(joinHooks('dev-3')).toEqual([]);
  });

  it('an unknown device: device_not_found (404) to the NS after as.up.join.receive and as.up.join.drop; the JS is not asked', async () => {
    await expectUnknownDevice(joinAcceptUp('ghost', 4), 'join', '/join');
  });

  it('without an AppSKey from the NS, fetches it from the Join Server (AsJs.GetAppSKey) by session key ID and EUIs', async () => {
    await register(5);
    jsAnswer = () => ({ ok: { app_s_key: wrapForAs(KEY_3) } });
    expect(await handle([joinAcceptUp('dev-5', 5)])).toEqual({ ok: {} });
    expect(jsRequests.map((r) => r.body)).toEqual([{ session_key_id: sessionKeyId(5), dev_eui: devEui(5), join_eui: JOIN_EUI }]);
    expect(jsRequests[0].ctx.correlation_ids).toContain(UPLINK_ID);
    expect(await get('dev-5', ['pending_session'])).toMatchObject({
      pending_session: { dev_addr: devAddr(5), keys: { session_key_id: sessionKeyId(5), app_s_key: { key: KEY_3 } } },
    });
  });

  it('a Join Server that does not know the keys, or none at all: app_s_key (503) caused by join_server_unavailable; nothing stored', async () => {
    await register(6);
    const unavailable = {
      namespace: 'pkg/applicationserver',
      name: 'app_s_key',
      code: 14,
      cause: { namespace: 'pkg/applicationserver', name: 'join_server_unavailable', attributes: { join_eui: JOIN_EUI } },
    };
    expect(await handle([joinAcceptUp('dev-6', 6)])).toMatchObject({ error: unavailable });
    expect(jsRequests).toHaveLength(1);
    // A refusal of the JS is the cause as it is.
    jsAnswer = () => ({ error: { namespace: 'pkg/joinserver', name: 'x', message_format: 'x', correlation_id: 'c', code: 7 } });
    expect(await handle([joinAcceptUp('dev-6', 6)])).toMatchObject({ error: { name: 'app_s_key', code: 7, cause: { namespace: 'pkg/joinserver', code: 7 } } });
    js?.unsubscribe();
    try {
      expect(await handle([joinAcceptUp('dev-6', 6)])).toMatchObject({ error: unavailable });
    } finally {
      js = serveRpcDouble(as.broker, 'AsJs.GetAppSKey', (req) => {
        jsRequests.push(req);
        return jsAnswer(req);
      });
    }
    expect(await get('dev-6', ['pending_session'])).toEqual({ ids: { ...ids('dev-6'), dev_eui: devEui(6), join_eui: JOIN_EUI } });
    expect((await upEvents()).map((e) => e.name)).toEqual([...Array(3)].flatMap(() => ['as.up.join.receive', 'as.up.join.drop']));
  });

  it('publishes as.up.join.receive then as.up.join.forward (the ApplicationUp without its key), with the DevAddr and the uplink correlation ID', async () => {
    await register(7);
    await events.take();
    const up = joinAcceptUp('dev-7', 7, { appSKey: { key: KEY_1 } });
    await expectReceivedAndForwarded(up, 'join', { join_accept: { session_key_id: sessionKeyId(7), received_at: NS_RECEIVED_AT } });
    // No key (nor an `app_s_key` field) in any event so far.
    const all = JSON.stringify(events.all);
    for (const secret of [KEY_1, KEY_2, KEY_3, wrapForAs(KEY_2).encrypted_key, '"app_s_key":']) expect(all).not.toContain(secret);
  });

  it('delivers the join-accept to the webhook at /join: session key ID and NS received_at, and no AppSKey anywhere', async () => {
    await register(8);
    expect(await handle([joinAcceptUp('dev-8', 8, { appSKey: wrapForAs(KEY_2) })])).toEqual({ ok: {} });
    await receiver.waitFor(() => joinHooks('dev-8').length > 0, 10_000, 'the /join webhook of dev-8');
    const [hook] = joinHooks('dev-8');
    expect(hook.method).toBe('POST');
    expect(hook.url).toBe('/join');
    expect(hook.json).toEqual({
      end_device_ids: nsIds('dev-8', 8),
      correlation_ids: [UPLINK_ID, GSNS_ID, expect.stringMatching(/^rpc:\/ttn\.lorawan\.v3\.NsAs\/HandleUplink:/), expect.stringMatching(/^as:up:/)],
      received_at: expect.any(String),
      join_accept: { session_key_id: sessionKeyId(8), received_at: NS_RECEIVED_AT },
    });
    expect(hook.text).not.toContain('app_s_key');
    expect(hook.text).not.toContain(KEY_2);
    expect(hook.text).not.toContain(wrapForAs(KEY_2).encrypted_key);
  });

  it('refuses kinds the NS does not send (uplink_normalized), and messages without what they need, before handling any message of the request', async () => {
    await register(9);
    await events.take();
    const normalized = { end_device_ids: nsIds('dev-9', 9), correlation_ids: [UPLINK_ID], uplink_normalized: { normalized_payload: {} } };
    const reply = await handle([joinAcceptUp('dev-9', 9, { appSKey: { key: KEY_1 } }), normalized]);
    expect(reply).toMatchObject({
      error: { namespace: 'pkg/applicationserver', name: 'up_not_supported', code: 12, attributes: { kind: 'uplink_normalized' } },
    });
    // A downlink_failed without its downlink cannot be decrypted.
    const noDownlink = { end_device_ids: nsIds('dev-9', 9), correlation_ids: [UPLINK_ID], downlink_failed: { error: { name: 'x' } } };
    expect(await handle([joinAcceptUp('dev-9', 9, { appSKey: { key: KEY_1 } }), noDownlink])).toMatchObject({
      error: { name: 'validation', code: 3, attributes: { field: 'downlink_failed.downlink' } },
    });
    // A join-accept without its new DevAddr cannot make a session.
    const { dev_addr: _, ...withoutDevAddr } = nsIds('dev-9', 9);
    const noAddr = await handle([{ ...joinAcceptUp('dev-9', 9, { appSKey: { key: KEY_1 } }), end_device_ids: withoutDevAddr }]);
    expect(noAddr).toMatchObject({ error: { name: 'validation', code: 3, attributes: { field: 'end_device_ids.dev_addr' } } });
    // An uplink without its session key ID cannot be matched to a session (nor decrypted).
    const noSession = { end_device_ids: nsIds('dev-9', 9), correlation_ids: [UPLINK_ID], uplink_message: { f_port: 1, f_cnt: 1, frm_payload: 'AQ==' } };
    const noKeyId = await handle([joinAcceptUp('dev-9', 9, { appSKey: { key: KEY_1 } }), noSession]);
    expect(noKeyId).toMatchObject({ error: { name: 'validation', code: 3, attributes: { field: 'uplink_message.session_key_id' } } });
    expect(await upEvents()).toEqual([]);
    expect(await get('dev-9', ['pending_session'])).toEqual({ ids: { ...ids('dev-9'), dev_eui: devEui(9), join_eui: JOIN_EUI } });
  });

  it('drops a queue the AS kept in the previous session (before the NS held the queue) on the next join: pending session replaced, the current one kept without it', async () => {
    await register(10);
    expect(await handle([joinAcceptUp('dev-10', 10, { join: 10, appSKey: { key: KEY_1 } })])).toEqual({ ok: {} });
    // The device confirmed that session; its AS device still holds a queue of its own (the NS holds the queue now, as in TTS).
    const session = { dev_addr: devAddr(10), keys: { session_key_id: sessionKeyId(10), app_s_key: { key: KEY_1 } }, last_a_f_cnt_down: 2 };
    const queue = [
      { session_key_id: sessionKeyId(10), f_port: 1, f_cnt: 1, frm_payload: 'AQID' },
      { session_key_id: sessionKeyId(10), f_port: 2, f_cnt: 2, frm_payload: 'BAU=' },
    ];
    const paths = [...SESSION_PATHS, 'session.last_a_f_cnt_down', 'session.queued_application_downlinks'];
    expect(
      await as.call(
        'AsEndDeviceRegistry.Set',
        { end_device: { ids: ids('dev-10'), session: { ...session, queued_application_downlinks: queue } }, field_mask: { paths } },
        ADMIN,
      ),
    ).toHaveProperty('ok');
    expect(await get('dev-10', ['session.queued_application_downlinks'])).toMatchObject({ session: { queued_application_downlinks: queue } });

    // The device joins again.
    expect(await handle([joinAcceptUp('dev-10', 10, { join: 11, appSKey: { key: KEY_2 } })])).toEqual({ ok: {} });
    expect(await get('dev-10', ['session', 'pending_session', 'queued_application_downlinks'])).toEqual({
      ids: { ...ids('dev-10'), dev_eui: devEui(10), join_eui: JOIN_EUI, dev_addr: devAddr(10) },
      session,
      pending_session: { dev_addr: devAddr(11), keys: { session_key_id: sessionKeyId(11), app_s_key: { key: KEY_2 } } },
    });
  });

  it('integrations that cannot queue the join-accept: publish_up (503) after as.up.join.drop; the session is stored', async () => {
    await register(12);
    await expectPublishUpFailure('join', (upstream) => {
      const get = <T>(token: new (...args: never[]) => T) => as.running.app.get(token);
      const joins = new JoinAccepts(
        get(DeviceRegistry),
        get(AppSKeys),
        upstream,
        get(ApplicationLinkRegistry),
        get(DownlinkPayloads),
        get(DownlinkQueueOperation),
        get(DownlinkReports),
      );
      return joins.handle(joinAcceptUp('dev-12', 12, { appSKey: { key: KEY_3 } }) as unknown as NsJoinAccept, rpcContext('NsAs.HandleUplink'));
    });
    expect(await get('dev-12', ['pending_session.keys.app_s_key.key'])).toMatchObject({ pending_session: { keys: { app_s_key: { key: KEY_3 } } } });
  });
  describe('data uplinks', () => {
    const upHooks = (device_id: string) => receiver.to('/up').filter((r) => r.json?.end_device_ids?.device_id === device_id);
    /** The /up webhook request of the device's uplink with that FCnt, once it came. */
    const upHook = async (device_id: string, fCnt: number) => {
      const find = () => upHooks(device_id).find((r) => r.json?.uplink_message?.f_cnt === fCnt);
      await receiver.waitFor(() => find() !== undefined, 10_000, `the /up webhook of ${device_id} FCnt ${fCnt}`);
      return find() as NonNullable<ReturnType<typeof find>>;
    };
    /** Device n with a current session (DevAddr n, session key ID n, AppSKey `key`), and more fields. */
    const withSession = async (n: number, key: string, extra: Json = {}, paths: string[] = []) => {
      expect(await register(n)).toHaveProperty('ok');
      const session = { dev_addr: devAddr(n), keys: { session_key_id: sessionKeyId(n), app_s_key: { key } } };
      const reply = await as.call(
        'AsEndDeviceRegistry.Set',
        { end_device: { ids: ids(`dev-${n}`), session, ...extra }, field_mask: { paths: [...SESSION_PATHS, ...paths] } },
        ADMIN,
      );
      expect(reply).toHaveProperty('ok');
      return session;
    };
    const hookEnvelope = (device_id: string, n: number, session = n) => ({
      end_device_ids: nsIds(device_id, n, session),
      correlation_ids: [UPLINK_ID, GSNS_ID, expect.stringMatching(/^rpc:\/ttn\.lorawan\.v3\.NsAs\/HandleUplink:/), expect.stringMatching(/^as:up:/)],
      received_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
    });

    beforeAll(async () => {
      // dev-20 decodes with its own CayenneLPP formatter; dev-21 has none, so the application's default (JavaScript) applies, and has a version.
      await withSession(20, KEY_1, { formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } }, ['formatters']);
      await withSession(21, KEY_2, { version_ids: VERSION_IDS }, ['version_ids']);
      const link = await as.call(
        'As.SetLink',
        {
          application_ids: { application_id: APP },
          link: { default_formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: JS_DECODER } },
          field_mask: { paths: ['default_formatters'] },
        },
        ADMIN,
      );
      expect(link).toHaveProperty('ok');
    });

    it("decrypts the FRMPayload with the session's AppSKey and decodes it with the device's CayenneLPP formatter: /up gets both, no key; nothing stored, the JS not asked", async () => {
      const before = await get('dev-20', ['session', 'pending_session']);
      const o = { appSKey: KEY_1, payload: LPP_TEMPERATURE, fCnt: 1, fPort: 3 };
      expect(await handle([dataUp('dev-20', 20, o)])).toEqual({ ok: {} });
      const hook = await upHook('dev-20', 1);
      expect([hook.method, hook.url]).toEqual(['POST', '/up']);
      expect(hook.json).toEqual({ ...hookEnvelope('dev-20', 20), uplink_message: appUplink(20, o, { decoded_payload: { temperature_3: 27.2 } }) });
      for (const secret of [KEY_1, 'app_s_key']) expect(hook.text).not.toContain(secret);
      expect(await get('dev-20', ['session', 'pending_session'])).toEqual(before);
      expect(jsRequests).toEqual([]);
    });

    it("decodes for a device without formatters with the application link's default (JavaScript), recvTime being when the NS received the uplink; adds the device's version_ids", async () => {
      const o = { appSKey: KEY_2, payload: Buffer.from('hello'), fCnt: 7, fPort: 2 };
      expect(await handle([dataUp('dev-21', 21, o)])).toEqual({ ok: {} });
      const hook = await upHook('dev-21', 7);
      expect(hook.json).toEqual({
        ...hookEnvelope('dev-21', 21),
        uplink_message: appUplink(21, o, { decoded_payload: { text: 'hello', port: 2, at: '2025-01-02T03:04:05.123Z' }, version_ids: VERSION_IDS }),
      });
    });

    it('publishes as.up.data.receive (no data) then as.up.data.forward (the ApplicationUp, plaintext), with the DevAddr and the correlation IDs', async () => {
      await events.take();
      const o = { appSKey: KEY_1, payload: LPP_TEMPERATURE, fCnt: 2, fPort: 3 };
      await expectReceivedAndForwarded(dataUp('dev-20', 20, o), 'data', { uplink_message: appUplink(20, o, { decoded_payload: { temperature_3: 27.2 } }) });
      const all = JSON.stringify(events.all);
      for (const secret of [KEY_1, KEY_2, KEY_3, '"app_s_key":']) expect(all).not.toContain(secret);
    });

    it('decrypts with the full 32-bit FCnt (above 0xFFFF), the messages of a request in their order', async () => {
      await events.take();
      const high = [0x00012345, 0xabcd0002].map((fCnt, i) => ({ appSKey: KEY_1, payload: Buffer.from([0x03, 0x67, 0x00, 0x10 + i]), fCnt, fPort: 3 }));
      expect(await handle(high.map((o) => dataUp('dev-20', 20, o)))).toEqual({ ok: {} });
      const forwarded = (await upEvents()).filter((e) => e.name === 'as.up.data.forward').map((e) => (e.data as Json).uplink_message);
      expect(forwarded).toEqual([
        appUplink(20, high[0], { decoded_payload: { temperature_3: 1.6 } }),
        appUplink(20, high[1], { decoded_payload: { temperature_3: 1.7 } }),
      ]);
      for (const o of high) expect((await upHook('dev-20', o.fCnt)).json.uplink_message).toMatchObject({ frm_payload: b64(o.payload) });
    });

    it('the first uplink in the pending session makes it the session: pending cleared, ids.dev_addr its DevAddr; the JS is not asked', async () => {
      await withSession(22, KEY_1);
      expect(await handle([joinAcceptUp('dev-22', 22, { join: 23, appSKey: { key: KEY_2 } })])).toEqual({ ok: {} });
      expect(await get('dev-22', ['session.dev_addr', 'pending_session.dev_addr'])).toEqual({
        ids: { ...ids('dev-22'), dev_eui: devEui(22), join_eui: JOIN_EUI, dev_addr: devAddr(22) },
        session: { dev_addr: devAddr(22) },
        pending_session: { dev_addr: devAddr(23) },
      });
      const o = { appSKey: KEY_2, payload: Buffer.from('joined'), fCnt: 1, fPort: 5, session: 23 };
      expect(await handle([dataUp('dev-22', 22, o)])).toEqual({ ok: {} });
      expect(await get('dev-22', ['session', 'pending_session'])).toEqual({
        ids: { ...ids('dev-22'), dev_eui: devEui(22), join_eui: JOIN_EUI, dev_addr: devAddr(23) },
        session: { dev_addr: devAddr(23), keys: { session_key_id: sessionKeyId(23), app_s_key: { key: KEY_2 } } },
      });
      expect((await upHook('dev-22', 1)).json).toEqual({
        ...hookEnvelope('dev-22', 22, 23),
        uplink_message: appUplink(22, o, { decoded_payload: { text: 'joined', port: 5, at: '2025-01-02T03:04:05.123Z' } }),
      });
      expect(jsRequests).toEqual([]);
    });

    it("a session key ID the AS does not have: the AppSKey from the Join Server, a new session with the uplink's DevAddr replacing both sessions", async () => {
      await withSession(24, KEY_1);
      expect(await handle([joinAcceptUp('dev-24', 24, { join: 25, appSKey: { key: KEY_2 } })])).toEqual({ ok: {} });
      jsAnswer = () => ({ ok: { app_s_key: wrapForAs(KEY_3) } });
      const o = { appSKey: KEY_3, payload: Buffer.from('restored'), fCnt: 9, fPort: 4, session: 26 };
      expect(await handle([dataUp('dev-24', 24, o)])).toEqual({ ok: {} });
      expect(jsRequests.map((r) => r.body)).toEqual([{ session_key_id: sessionKeyId(26), dev_eui: devEui(24), join_eui: JOIN_EUI }]);
      expect(jsRequests[0].ctx.correlation_ids).toContain(UPLINK_ID);
      expect(await get('dev-24', ['session', 'pending_session'])).toEqual({
        ids: { ...ids('dev-24'), dev_eui: devEui(24), join_eui: JOIN_EUI, dev_addr: devAddr(26) },
        session: { dev_addr: devAddr(26), keys: { session_key_id: sessionKeyId(26), app_s_key: { key: KEY_3 } } },
      });
      expect((await upHook('dev-24', 9)).json.uplink_message).toMatchObject({ frm_payload: b64(o.payload), decoded_payload: { text: 'restored' } });
      // The next uplink of that session is decrypted with the stored key: the JS is not asked again.
      expect(await handle([dataUp('dev-24', 24, { ...o, fCnt: 10 })])).toEqual({ ok: {} });
      expect(jsRequests).toHaveLength(1);
    });

    it('a Join Server that does not know the session: app_s_key (503) after as.up.data.receive and as.up.data.drop; nothing stored or delivered', async () => {
      await withSession(27, KEY_1);
      await events.take();
      const before = await get('dev-27', ['session', 'pending_session']);
      const reply = await handle([dataUp('dev-27', 27, { appSKey: KEY_3, payload: Buffer.from('lost'), session: 28 })]);
      expect(reply).toMatchObject({
        error: {
          name: 'app_s_key',
          code: 14,
          cause: { namespace: 'pkg/applicationserver', name: 'join_server_unavailable', attributes: { join_eui: JOIN_EUI } },
        },
      });
      const published = await upEvents();
      expect(published.map((e) => e.name)).toEqual(['as.up.data.receive', 'as.up.data.drop']);
      expect(published[1].data).toMatchObject({ name: 'app_s_key', cause: { name: 'join_server_unavailable' } });
      expect(await get('dev-27', ['session', 'pending_session'])).toEqual(before);
      await sleep(300);
      expect(upHooks('dev-27')).toEqual([]);
    });

    it('a formatter failure: as.up.data.decode.fail (the error), and the uplink still goes to /up, without decoded_payload', async () => {
      await events.take();
      const o = { appSKey: KEY_2, payload: Buffer.from([0xff, 0x01]), fCnt: 8, fPort: 2 };
      expect(await handle([dataUp('dev-21', 21, o)])).toEqual({ ok: {} });
      const published = await upEvents();
      expect(published.map((e) => e.name)).toEqual(['as.up.data.receive', 'as.up.data.decode.fail', 'as.up.data.forward']);
      expect(published[1].identifiers).toEqual([{ device_ids: nsIds('dev-21', 21) }]);
      expect(published[1].data).toMatchObject({
        namespace: 'pkg/messageprocessors/javascript',
        name: 'output_errors',
        attributes: { errors: 'first byte 0xFF' },
      });
      expect(published[1].correlation_ids).toEqual(published[2].correlation_ids);
      expect((published[2].data as Json).uplink_message).toEqual(appUplink(21, o, { version_ids: VERSION_IDS }));
      expect((await upHook('dev-21', 8)).json.uplink_message).toEqual(appUplink(21, o, { version_ids: VERSION_IDS }));
    });

    it('an unknown device: device_not_found (404) after as.up.data.receive and as.up.data.drop; the JS is not asked, nothing delivered', async () => {
      await expectUnknownDevice(dataUp('ghost', 29, { appSKey: KEY_1, payload: Buffer.from('boo') }), 'data', '/up');
    });

    it('a join-accept and the first uplink of its session in one request: handled in order', async () => {
      expect(await register(30)).toHaveProperty('ok');
      await events.take();
      const o = { appSKey: KEY_3, payload: Buffer.from('first'), fPort: 6 };
      expect(await handle([joinAcceptUp('dev-30', 30, { appSKey: wrapForAs(KEY_3) }), dataUp('dev-30', 30, o)])).toEqual({ ok: {} });
      expect((await upEvents()).map((e) => e.name)).toEqual(['as.up.join.receive', 'as.up.join.forward', 'as.up.data.receive', 'as.up.data.forward']);
      expect(await get('dev-30', ['session.keys.session_key_id', 'pending_session'])).toEqual({
        ids: { ...ids('dev-30'), dev_eui: devEui(30), join_eui: JOIN_EUI, dev_addr: devAddr(30) },
        session: { keys: { session_key_id: sessionKeyId(30) } },
      });
      expect((await upHook('dev-30', 1)).json.uplink_message).toMatchObject({ frm_payload: b64(o.payload), decoded_payload: { text: 'first' } });
    });

    it('integrations that cannot queue the uplink: publish_up (503) after as.up.data.drop; the session it confirmed is stored', async () => {
      expect(await register(31)).toHaveProperty('ok');
      expect(await handle([joinAcceptUp('dev-31', 31, { appSKey: { key: KEY_1 } })])).toEqual({ ok: {} });
      const app = as.running.app;
      await expectPublishUpFailure('data', (upstream) => {
        const uplinks = new DataUplinks(app.get(DeviceRegistry), app.get(AppSKeys), app.get(ApplicationLinkRegistry), app.get(UplinkDecoder), upstream);
        const up = dataUp('dev-31', 31, { appSKey: KEY_1, payload: Buffer.from('x') }) as unknown as NsDataUplink;
        return uplinks.handle(up, rpcContext('NsAs.HandleUplink'));
      });
      expect(await get('dev-31', ['session.keys.session_key_id', 'pending_session'])).toEqual({
        ids: { ...ids('dev-31'), dev_eui: devEui(31), join_eui: JOIN_EUI, dev_addr: devAddr(31) },
        session: { keys: { session_key_id: sessionKeyId(31) } },
      });
    });
  });
});

function notFound(): ErrorDetails {
  return {
    namespace: 'pkg/joinserver',
    name: 'session_keys_not_found',
    message_format: 'session keys `{session_key_id}` not found',
    correlation_id: 'c0',
    code: 5,
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
