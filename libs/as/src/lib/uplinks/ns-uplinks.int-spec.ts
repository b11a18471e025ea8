import { createCipheriv } from 'node:crypto';
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
} from '@lorawan/testing';
import type { RpcEnvelope, Subscription } from '@lorawan/transport';
import { AsModule } from '../as.module';
import { errorOf, type RecordedEvent, recordingPublisher, RecordingSink } from '../testing/as-test-kit';
import { AppSKeys } from './app-s-keys.service';
import { ApplicationUpForwarder } from './application-up-forwarder.service';
import { JoinAccepts, type NsJoinAccept } from './join-accept.service';

/**
 * NsAs.HandleUplink on a started Application Server (MariaDB, its own database; in-process
 * transport): join-accepts as the NS sends them, the AS registry read back through
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
const ADMIN: RpcContext = {
  request_id: 'nsas-spec',
  correlation_ids: [],
  caller: { kind: 'admin-key', id: 'admin', is_admin: true, key_rights: [], universal: true, rights: [] },
};
const SESSION_PATHS = ['session.dev_addr', 'session.keys.app_s_key.key', 'session.keys.session_key_id'];

const devEui = (n: number) => `70B3D57ED2${n.toString(16).toUpperCase().padStart(6, '0')}`;
const devAddr = (n: number) => `2601${n.toString(16).toUpperCase().padStart(4, '0')}`;
const sessionKeyId = (n: number) => Buffer.from(`session-${n}`).toString('base64');
const ids = (device_id: string) => ({ device_id, application_ids: { application_id: APP } });
/** A device's identifiers as the NS names it in a join-accept (n: its EUI; m: which join, for the DevAddr). */
const nsIds = (device_id: string, n: number, m = n) => ({ ...ids(device_id), dev_eui: devEui(n), join_eui: JOIN_EUI, dev_addr: devAddr(m) });
/** RFC 3394 with node:crypto, not the stack's KeyVault. */
const wrapForAs = (keyHex: string) => {
  const cipher = createCipheriv('id-aes128-wrap', Buffer.from(AS_KEK, 'hex'), Buffer.from('A6A6A6A6A6A6A6A6', 'hex'));
  return { kek_label: 'as-kek', encrypted_key: Buffer.concat([cipher.update(Buffer.from(keyHex, 'hex')), cipher.final()]).toString('base64') };
};

/** The ApplicationUp the NS sends once the join-accept is scheduled (`app_s_key` omitted when undefined). */
function joinAcceptUp(device_id: string, n: number, o: { appSKey?: Json; join?: number } = {}): Json {
  const join = o.join ?? n;
  return {
    end_device_ids: nsIds(device_id, n, join),
    correlation_ids: [UPLINK_ID, GSNS_ID],
    join_accept: { session_key_id: sessionKeyId(join), ...(o.appSKey ? { app_s_key: o.appSKey } : {}), received_at: NS_RECEIVED_AT },
  };
}

describe('NsAs.HandleUplink: join-accepts (MariaDB)', () => {
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
  const joinHooks = (device_id: string) => receiver.to('/join').filter((r) => r.json?.end_device_ids?.device_id === device_id);

  beforeAll(async () => {
    await ensureMysqlDatabase(dbUrl);
    receiver = await new WebhookReceiver().start();
    const config = loadConfig({
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
    const reply = await handle([joinAcceptUp('ghost', 4)]);
    expect(reply).toMatchObject({
      error: { namespace: 'pkg/applicationserver', name: 'device_not_found', code: 5, attributes: { device_uid: `${APP}.ghost` } },
    });
    const published = await upEvents();
    expect(published.map((e) => [e.name, e.identifiers])).toEqual([
      ['as.up.join.receive', [{ device_ids: nsIds('ghost', 4) }]],
      ['as.up.join.drop', [{ device_ids: nsIds('ghost', 4) }]],
    ]);
    expect(published[1].data).toMatchObject({ name: 'device_not_found', attributes: { device_uid: `${APP}.ghost` } });
    expect(published[1].correlation_ids).toContain(UPLINK_ID);
    expect(jsRequests).toEqual([]);
    await sleep(300);
    expect(joinHooks('ghost')).toEqual([]);
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
    const ctx = rpcContext('NsAs.HandleUplink');
    const before = Date.now();
    expect(await handle([joinAcceptUp('dev-7', 7, { appSKey: { key: KEY_1 } })], ctx)).toEqual({ ok: {} });
    const published = await upEvents();
    expect(published.map((e) => e.name)).toEqual(['as.up.join.receive', 'as.up.join.forward']);
    const [receive, forward] = published;
    const correlationIds = [UPLINK_ID, GSNS_ID, ...ctx.correlation_ids, expect.stringMatching(/^as:up:[0-9A-Z]{26}$/)];
    expect(receive).toEqual({
      name: 'as.up.join.receive',
      identifiers: [{ device_ids: nsIds('dev-7', 7) }],
      correlation_ids: correlationIds,
      visibility: { rights: ['RIGHT_APPLICATION_TRAFFIC_READ'] },
    });
    expect(forward.identifiers).toEqual(receive.identifiers);
    expect(forward.correlation_ids).toEqual(receive.correlation_ids);
    expect(forward.data).toEqual({
      '@type': 'type.googleapis.com/ttn.lorawan.v3.ApplicationUp',
      end_device_ids: nsIds('dev-7', 7),
      correlation_ids: receive.correlation_ids,
      received_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      join_accept: { session_key_id: sessionKeyId(7), received_at: NS_RECEIVED_AT },
    });
    // received_at is the AS's receive time, not the NS's.
    expect(Date.parse((forward.data as Json).received_at as string)).toBeGreaterThanOrEqual(before - 1000);
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

  it('refuses kinds other than join_accept (data uplinks come later) before handling any message of the request', async () => {
    await register(9);
    await events.take();
    const uplink = { end_device_ids: nsIds('dev-9', 9), correlation_ids: [UPLINK_ID], uplink_message: { f_port: 1, frm_payload: 'AQ==' } };
    const reply = await handle([joinAcceptUp('dev-9', 9, { appSKey: { key: KEY_1 } }), uplink]);
    expect(reply).toMatchObject({ error: { namespace: 'pkg/applicationserver', name: 'up_not_supported', code: 12, attributes: { kind: 'uplink_message' } } });
    // A join-accept without its new DevAddr cannot make a session.
    const { dev_addr: _, ...withoutDevAddr } = nsIds('dev-9', 9);
    const noAddr = await handle([{ ...joinAcceptUp('dev-9', 9, { appSKey: { key: KEY_1 } }), end_device_ids: withoutDevAddr }]);
    expect(noAddr).toMatchObject({ error: { name: 'validation', code: 3, attributes: { field: 'end_device_ids.dev_addr' } } });
    expect(await upEvents()).toEqual([]);
    expect(await get('dev-9', ['pending_session'])).toEqual({ ids: { ...ids('dev-9'), dev_eui: devEui(9), join_eui: JOIN_EUI } });
  });

  it("drops the previous session's downlink queue on the next join: pending session replaced, the current one kept without its queue", async () => {
    await register(10);
    expect(await handle([joinAcceptUp('dev-10', 10, { join: 10, appSKey: { key: KEY_1 } })])).toEqual({ ok: {} });
    // The device confirms that session (as its first uplink in it will, once the AS handles uplinks), and downlinks are queued in it.
    const session = { dev_addr: devAddr(10), keys: { session_key_id: sessionKeyId(10), app_s_key: { key: KEY_1 } } };
    expect(
      await as.call('AsEndDeviceRegistry.Set', { end_device: { ids: ids('dev-10'), session }, field_mask: { paths: SESSION_PATHS } }, ADMIN),
    ).toHaveProperty('ok');
    const push = {
      end_device_ids: ids('dev-10'),
      downlinks: [
        { f_port: 1, frm_payload: 'AQID' },
        { f_port: 2, frm_payload: 'BAU=' },
      ],
    };
    expect(await as.call('AppAs.DownlinkQueuePush', push, ADMIN)).toEqual({ ok: {} });
    const list = () => as.call('AppAs.DownlinkQueueList', ids('dev-10'), ADMIN);
    expect(await list()).toMatchObject({
      ok: {
        downlinks: [
          { f_port: 1, frm_payload: 'AQID' },
          { f_port: 2, frm_payload: 'BAU=' },
        ],
      },
    });

    // The device joins again.
    expect(await handle([joinAcceptUp('dev-10', 10, { join: 11, appSKey: { key: KEY_2 } })])).toEqual({ ok: {} });
    expect(await list()).toEqual({ ok: {} });
    expect(await get('dev-10', ['session', 'pending_session', 'queued_application_downlinks'])).toEqual({
      ids: { ...ids('dev-10'), dev_eui: devEui(10), join_eui: JOIN_EUI, dev_addr: devAddr(10) },
      session: { ...session, last_a_f_cnt_down: 2 },
      pending_session: { dev_addr: devAddr(11), keys: { session_key_id: sessionKeyId(11), app_s_key: { key: KEY_2 } } },
    });
  });

  it('integrations that cannot queue the join-accept: publish_up (503) after as.up.join.drop; the session is stored', async () => {
    await register(12);
    const published: RecordedEvent[] = [];
    const sink = new RecordingSink();
    sink.failWith = new Error('stream unavailable');
    const joins = new JoinAccepts(
      as.running.app.get(DeviceRegistry),
      as.running.app.get(AppSKeys),
      new ApplicationUpForwarder(recordingPublisher(published), sink),
    );
    const err = await errorOf(
      joins.handle(joinAcceptUp('dev-12', 12, { appSKey: { key: KEY_3 } }) as unknown as NsJoinAccept, rpcContext('NsAs.HandleUplink')),
    );
    expect([err.namespace, err.errorName, err.code]).toEqual(['pkg/applicationserver', 'publish_up', 14]);
    expect(published.map((e) => e.name)).toEqual(['as.up.join.receive', 'as.up.join.drop']);
    expect(published[1].data).toMatchObject({ name: 'publish_up', attributes: { reason: 'stream unavailable' } });
    expect(await get('dev-12', ['pending_session.keys.app_s_key.key'])).toMatchObject({ pending_session: { keys: { app_s_key: { key: KEY_3 } } } });
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
