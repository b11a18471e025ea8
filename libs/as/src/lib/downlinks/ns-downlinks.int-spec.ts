import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOWNLINK_QUEUE_OPERATION_ERROR_DETAILS_TYPE, type RpcContext } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import type { ErrorDetails } from '@lorawan/errors';
import { dropMysqlDatabase, ensureMysqlDatabase } from '@lorawan/persistence';
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
import { adminContext, NsQueueDouble, type NsQueueOperationName } from '../testing/as-test-kit';

/**
 * The downlinks between a started Application Server (MariaDB, its own database; in-process
 * transport) and the Network Server, a double on the same broker (AsNs.DownlinkQueuePush|Replace|List,
 * refusing FCnts as the NS does), the Join Server's AsJs.GetAppSKey a double too: AppAs pushes
 * reaching the NS encrypted (FRMPayloads checked with `lora-packet`, never the stack's own crypto),
 * the NS's refusals making the AS encrypt again, and the NS's reports on downlinks (sent, ack,
 * nack, failed, queue invalidated) reaching a webhook on a real HTTP receiver, decrypted.
 */

type Json = Record<string, unknown>;
const APP = 'app-asns';
const JOIN_EUI = '70B3D57ED0000A03';
const AS_KEK = '0F0E0D0C0B0A09080706050403020100';
const KEY_1 = '2B7E151628AED2A6ABF7158809CF4F3C';
const KEY_2 = '000102030405060708090A0B0C0D0E0F';
const SESSION = 'AQID';
const OTHER_SESSION = 'CQkJ';
const NS_UP_ID = 'ns:downlink:01JDXASNS000000000000000AA';
const ADMIN = adminContext('asns-spec');
const PATHS = {
  downlink_queued: '/queued',
  downlink_sent: '/sent',
  downlink_ack: '/ack',
  downlink_nack: '/nack',
  downlink_failed: '/failed',
  downlink_queue_invalidated: '/invalidated',
} as const;

const b64 = (bytes: Buffer) => bytes.toString('base64');
const hex = (text: string) => Buffer.from(text, 'hex');
const devEui = (n: number) => `70B3D57ED3${n.toString(16).toUpperCase().padStart(6, '0')}`;
const devAddr = (n: number) => `2602${n.toString(16).toUpperCase().padStart(4, '0')}`;
const ids = (device_id: string) => ({ device_id, application_ids: { application_id: APP } });

/**
 * The FRMPayload of a downlink with that AppSKey, DevAddr and full FCnt, as lora-packet encrypts
 * it (Dir = down); the same cipher decrypts: given the ciphertext, it answers the plaintext.
 */
const loraDown = (appSKey: string, addr: string, fCnt: number, payload: Buffer, fPort = 1) =>
  loraFrmPayload({ appSKey, devAddr: addr, fCnt, fPort, payload, direction: 'down' });
/** RFC 3394 with node:crypto: an AppSKey as the JS wraps it for this AS. */
const wrapForAs = (keyHex: string) => wrapKeyForKek('as-kek', AS_KEK, keyHex);

describe('Downlinks between the AS and the NS (MariaDB)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lw-as-asns-'));
  const dbUrl = `${TEST_MYSQL_URL}/lw_${uniqueSuffix()}_as`;
  let as: TestComponent;
  let events: EventRecorder;
  let receiver: WebhookReceiver;
  /** The NS's queue; every device's session is n's (its DevAddr, SESSION). */
  const ns = new NsQueueDouble((deviceId) => ({ dev_addr: devAddr(Number(deviceId.split('-')[1])), session_key_id: SESSION }));
  const nsContexts: RpcContext[] = [];
  let nsDoubles: Subscription[] = [];
  const jsRequests: RpcEnvelope[] = [];
  let jsAnswer: () => RpcReply = () => ({ ok: { app_s_key: wrapForAs(KEY_2) } });

  const serveNs = () => {
    const serve = (name: 'AsNs.DownlinkQueuePush' | 'AsNs.DownlinkQueueReplace' | 'AsNs.DownlinkQueueList', operation: NsQueueOperationName) =>
      serveRpcDouble(as.broker, name, (req) => {
        nsContexts.push(req.ctx);
        return ns.answer(operation, req.body);
      });
    nsDoubles = [serve('AsNs.DownlinkQueuePush', 'push'), serve('AsNs.DownlinkQueueReplace', 'replace'), serve('AsNs.DownlinkQueueList', 'list')];
  };
  const ok = async (reply: Promise<RpcReply>) => {
    const r = await reply;
    if (!('ok' in r)) throw new Error(JSON.stringify(r));
    return r.ok as Json;
  };
  /** Device n: a session (DevAddr n, SESSION, AppSKey `key`, last AFCntDown 4) and more fields. */
  const withSession = async (n: number, key = KEY_1, extra: Json = {}, paths: string[] = []) => {
    const session = { dev_addr: devAddr(n), keys: { session_key_id: SESSION, app_s_key: { key } }, last_a_f_cnt_down: 4 };
    const end_device = { ids: { ...ids(`dev-${n}`), dev_eui: devEui(n), join_eui: JOIN_EUI }, session, ...extra };
    const sessionPaths = ['session.dev_addr', 'session.keys.session_key_id', 'session.keys.app_s_key.key', 'session.last_a_f_cnt_down'];
    await ok(as.call('AsEndDeviceRegistry.Set', { end_device, field_mask: { paths: [...sessionPaths, ...paths] } }, ADMIN));
    return `dev-${n}`;
  };
  const get = (device_id: string, paths: string[]) => ok(as.call('AsEndDeviceRegistry.Get', { end_device_ids: ids(device_id), field_mask: { paths } }, ADMIN));
  const push = (device_id: string, downlinks: Json[], method: 'Push' | 'Replace' = 'Push') =>
    as.call(`AppAs.DownlinkQueue${method}`, { end_device_ids: ids(device_id), downlinks }, ADMIN);
  const handle = (ups: Json[]) => as.call('NsAs.HandleUplink', { application_ups: ups }, rpcContext('NsAs.HandleUplink'));
  const hooks = (path: string, device_id: string) => receiver.to(path).filter((r) => r.json?.end_device_ids?.device_id === device_id);
  const hook = async (path: string, device_id: string, count = 1) => {
    await receiver.waitFor(() => hooks(path, device_id).length >= count, 10_000, `${count} ${path} webhook(s) of ${device_id}`);
    return hooks(path, device_id)[count - 1].json as Json;
  };
  const downEvents = async (): Promise<StableEvent[]> => (await events.take()).filter((e) => e.name.startsWith('as.down.'));
  /** What the NS was asked about the device (a list's body is the device's identifiers). */
  const pushedTo = (device_id: string) => ns.requests.filter((r) => ((r.body.end_device_ids ?? r.body) as { device_id?: string }).device_id === device_id);
  /** A report of the NS on a downlink of device n, as it sends it: the FRMPayload encrypted (lora-packet) with FCnt `fCnt`. */
  const report = (n: number, kind: string, plain: Buffer, fCnt: number, o: { key?: string; session?: string; extra?: Json } = {}): Json => {
    const downlink = {
      session_key_id: o.session ?? SESSION,
      f_port: 2,
      f_cnt: fCnt,
      frm_payload: b64(loraDown(o.key ?? KEY_1, devAddr(n), fCnt, plain, 2)),
      correlation_ids: ['as:downlink:01JDXASNS00000000000000000A'],
      ...o.extra,
    };
    const message =
      kind === 'downlink_failed' ? { downlink, error: { namespace: 'pkg/gatewayserver', name: 'too_late', message_format: 'x', code: 9 } } : downlink;
    return {
      end_device_ids: { ...ids(`dev-${n}`), dev_eui: devEui(n), join_eui: JOIN_EUI, dev_addr: devAddr(n) },
      correlation_ids: [NS_UP_ID],
      [kind]: message,
    };
  };

  beforeAll(async () => {
    await ensureMysqlDatabase(dbUrl);
    receiver = await new WebhookReceiver().start();
    const config = loadConfig({
      MQTT_PORT: '0', // the machine's mosquitto may hold 1883
      MQTT_HOST: '127.0.0.1',
      AS_DATABASE_URL: dbUrl,
      DATA_DIR: dir,
      LOG_LEVEL: 'error',
      KEKS: `as-kek=${AS_KEK}`,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    as = await startTestComponent(AsModule, { component: 'as', config });
    events = recordEvents(as.broker);
    serveNs();
    serveRpcDouble(as.broker, 'AsJs.GetAppSKey', (req) => {
      jsRequests.push(req);
      return jsAnswer();
    });
    const messages = Object.fromEntries(Object.entries(PATHS).map(([kind, path]) => [kind, { path }]));
    await ok(
      as.call(
        'ApplicationWebhookRegistry.Set',
        {
          webhook: { ids: { webhook_id: 'hook', application_ids: { application_id: APP } }, base_url: receiver.url, format: 'json', ...messages },
          field_mask: { paths: ['base_url', 'format', ...Object.keys(PATHS)] },
        },
        ADMIN,
      ),
    );
  });
  afterAll(async () => {
    for (const s of nsDoubles) s.unsubscribe();
    events?.stop();
    await as?.close();
    as?.broker.close();
    await receiver?.stop();
    await dropMysqlDatabase(dbUrl);
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    ns.refuseNext = [];
    jsRequests.length = 0;
    jsAnswer = () => ({ ok: { app_s_key: wrapForAs(KEY_2) } });
    await events.take();
  });

  describe('the queue at the NS', () => {
    it('a push reaches the NS (AsNs.DownlinkQueuePush) encrypted with the AppSKey and the next FCnts; downlink_queued to the webhook; list decrypts the NS queue', async () => {
      const dev = await withSession(1);
      const ctx = rpcContext('AppAs.DownlinkQueuePush', ADMIN.caller);
      const reply = await as.call(
        'AppAs.DownlinkQueuePush',
        {
          end_device_ids: ids(dev),
          downlinks: [
            { f_port: 3, frm_payload: 'AQID' },
            { f_port: 4, frm_payload: 'BAU=' },
          ],
        },
        ctx,
      );
      expect(reply).toEqual({ ok: {} });
      const [request] = pushedTo(dev);
      expect(request.operation).toBe('push');
      expect(request.body.end_device_ids).toEqual({ ...ids(dev), dev_eui: devEui(1), join_eui: JOIN_EUI, dev_addr: devAddr(1) });
      const downlinks = request.body.downlinks as Json[];
      expect(downlinks.map((d) => [d.session_key_id, d.f_port, d.f_cnt])).toEqual([
        [SESSION, 3, 5],
        [SESSION, 4, 6],
      ]);
      // lora-packet's cipher with the AppSKey and each FCnt gives the plaintext back.
      expect(downlinks.map((d) => loraDown(KEY_1, devAddr(1), d.f_cnt as number, Buffer.from(d.frm_payload as string, 'base64')).toString('hex'))).toEqual([
        '010203',
        '0405',
      ]);
      expect(nsContexts[nsContexts.length - 1].correlation_ids).toEqual(ctx.correlation_ids);
      expect(JSON.stringify(request.body)).not.toContain(KEY_1);
      expect(await get(dev, ['session.last_a_f_cnt_down'])).toMatchObject({ session: { last_a_f_cnt_down: 6 } });
      const queued = await hook(PATHS.downlink_queued, dev, 2);
      expect(queued.downlink_queued).toMatchObject({ session_key_id: SESSION, f_port: 4, f_cnt: 6, frm_payload: 'BAU=' });
      expect(await ok(as.call('AppAs.DownlinkQueueList', ids(dev), ADMIN))).toMatchObject({
        downlinks: [
          { f_port: 3, f_cnt: 5, frm_payload: 'AQID' },
          { f_port: 4, f_cnt: 6, frm_payload: 'BAU=' },
        ],
      });
      // Replace: AsNs.DownlinkQueueReplace with the new items only.
      expect(await push(dev, [{ f_port: 9, frm_payload: 'qg==' }], 'Replace')).toEqual({ ok: {} });
      expect(pushedTo(dev).map((r) => [r.operation, (r.body.downlinks as Json[] | undefined)?.map((d) => d.f_cnt)])).toEqual([
        ['push', [5, 6]],
        ['list', undefined],
        ['replace', [7]],
      ]);
      expect((await downEvents()).map((e) => e.name)).toEqual(
        expect.arrayContaining(['as.down.data.receive', 'as.down.data.forward', 'as.down.data.receive', 'as.down.data.forward']),
      );
    });

    it('the NS refuses the FCnt (f_cnt_too_low, minimum 10): the AS encrypts again from 10 and pushes again; FCnt 10 stored and in downlink_queued', async () => {
      const dev = await withSession(2);
      ns.minFCnt.set(dev, 10);
      expect(await push(dev, [{ f_port: 1, frm_payload: b64(hex('CAFE')) }])).toEqual({ ok: {} });
      const attempts = pushedTo(dev).map((r) => (r.body.downlinks as Json[])[0]);
      expect(attempts.map((d) => d.f_cnt)).toEqual([5, 10]);
      // Encrypted again for FCnt 10: lora-packet with FCnt 10 opens it, and the first ciphertext differs.
      expect(loraDown(KEY_1, devAddr(2), 10, Buffer.from(attempts[1].frm_payload as string, 'base64')).toString('hex')).toBe('cafe');
      expect(attempts[1].frm_payload).not.toBe(attempts[0].frm_payload);
      expect(ns.queues.get(dev)?.map((d) => d.f_cnt)).toEqual([10]);
      expect(await get(dev, ['session.last_a_f_cnt_down'])).toMatchObject({ session: { last_a_f_cnt_down: 10 } });
      expect((await hook(PATHS.downlink_queued, dev)).downlink_queued).toMatchObject({ f_cnt: 10, frm_payload: b64(hex('CAFE')) });
    });

    it('the NS knows another session (unknown_session with its DevAddr and session key ID): the AS gets its AppSKey from the JS, encrypts with it, and keeps that session', async () => {
      const dev = await withSession(3);
      const details = { '@type': DOWNLINK_QUEUE_OPERATION_ERROR_DETAILS_TYPE, dev_addr: devAddr(33), session_key_id: OTHER_SESSION, min_f_cnt_down: 3 };
      ns.refuseNext = [
        { namespace: 'pkg/networkserver', name: 'unknown_session', message_format: 'unknown session', code: 5, correlation_id: 'c', details: [details] },
      ];
      expect(await push(dev, [{ f_port: 1, frm_payload: b64(hex('0102')) }])).toEqual({ ok: {} });
      expect(jsRequests.map((r) => r.body)).toEqual([{ session_key_id: OTHER_SESSION, dev_eui: devEui(3), join_eui: JOIN_EUI }]);
      const second = (pushedTo(dev)[1].body.downlinks as Json[])[0];
      expect([second.session_key_id, second.f_cnt]).toEqual([OTHER_SESSION, 3]);
      expect(loraDown(KEY_2, devAddr(33), 3, Buffer.from(second.frm_payload as string, 'base64')).toString('hex')).toBe('0102');
      expect(await get(dev, ['session'])).toMatchObject({
        ids: { dev_addr: devAddr(33) },
        session: { dev_addr: devAddr(33), keys: { session_key_id: OTHER_SESSION, app_s_key: { key: KEY_2 } }, last_a_f_cnt_down: 3 },
      });
    });

    it('without a Network Server: peer_unavailable (503), nothing stored, downlink_failed to the webhook and as.down.data.drop', async () => {
      const dev = await withSession(4);
      for (const s of nsDoubles) s.unsubscribe();
      try {
        expect(await push(dev, [{ f_port: 1, frm_payload: 'AQ==' }])).toMatchObject({
          error: { namespace: 'pkg/cluster', name: 'peer_unavailable', code: 14, attributes: { cluster_role: 'NETWORK_SERVER' } },
        });
        expect(await as.call('AppAs.DownlinkQueueList', ids(dev), ADMIN)).toMatchObject({ error: { name: 'peer_unavailable' } });
      } finally {
        serveNs();
      }
      expect(await get(dev, ['session.last_a_f_cnt_down'])).toMatchObject({ session: { last_a_f_cnt_down: 4 } });
      expect((await hook(PATHS.downlink_failed, dev)).downlink_failed).toMatchObject({
        downlink: { f_port: 1, frm_payload: 'AQ==' },
        error: { name: 'peer_unavailable' },
      });
      expect((await downEvents()).map((e) => e.name)).toEqual(['as.down.data.receive', 'as.down.data.drop']);
    });
  });

  describe("the NS's reports on downlinks", () => {
    const LPP = hex('010096'); // {"value_1": 1.5} as a CayenneLPP downlink
    const lpp = { formatters: { down_formatter: 'FORMATTER_CAYENNELPP' } };

    it.each([
      ['downlink_sent', 'sent'],
      ['downlink_ack', 'ack'],
      ['downlink_failed', 'failed'],
    ])('%s reaches the webhook with the FRMPayload decrypted and decoded by the down formatter, after as.down.data.%s.forward', async (kind, short) => {
      const n = { downlink_sent: 10, downlink_ack: 11, downlink_failed: 12 }[kind] as number;
      const dev = await withSession(n, KEY_1, lpp, ['formatters']);
      const up = report(n, kind, LPP, 0x12345);
      expect(await handle([up])).toEqual({ ok: {} });
      const delivered = await hook(PATHS[kind as keyof typeof PATHS], dev);
      const downlink = kind === 'downlink_failed' ? (delivered.downlink_failed as Json).downlink : delivered[kind];
      expect(downlink).toEqual({
        session_key_id: SESSION,
        f_port: 2,
        f_cnt: 0x12345,
        frm_payload: b64(LPP),
        decoded_payload: { value_1: 1.5 },
        correlation_ids: ['as:downlink:01JDXASNS00000000000000000A'],
      });
      if (kind === 'downlink_failed') expect((delivered.downlink_failed as Json).error).toMatchObject({ name: 'too_late' });
      expect(delivered.correlation_ids).toEqual([
        NS_UP_ID,
        expect.stringMatching(/^rpc:\/ttn\.lorawan\.v3\.NsAs\/HandleUplink:/),
        expect.stringMatching(/^as:up:/),
      ]);
      const published = await downEvents();
      expect(published.map((e) => e.name)).toEqual([`as.down.data.${short}.forward`]);
      expect(published[0].data).toMatchObject({ [kind]: kind === 'downlink_failed' ? { downlink: { frm_payload: b64(LPP) } } : { frm_payload: b64(LPP) } });
      expect(JSON.stringify(published)).not.toContain(KEY_1);
    });

    it('a downlink of a session the AS does not have: unknown_session (404), nothing delivered; a decoder failure: as.down.data.decode.fail and no decoded_payload', async () => {
      const dev = await withSession(13, KEY_1, lpp, ['formatters']);
      expect(await handle([report(13, 'downlink_sent', LPP, 7, { session: OTHER_SESSION })])).toMatchObject({
        error: { namespace: 'pkg/applicationserver', name: 'unknown_session', code: 5 },
      });
      expect(await handle([report(13, 'downlink_sent', hex('0102'), 8)])).toEqual({ ok: {} });
      expect((await hook(PATHS.downlink_sent, dev)).downlink_sent).toMatchObject({ f_cnt: 8, frm_payload: b64(hex('0102')) });
      expect(((await hook(PATHS.downlink_sent, dev)).downlink_sent as Json).decoded_payload).toBeUndefined();
      expect(hooks(PATHS.downlink_sent, dev)).toHaveLength(1);
      expect((await downEvents()).map((e) => e.name)).toEqual(['as.down.data.decode.fail', 'as.down.data.sent.forward']);
    });

    it('downlink_nack: the confirmed downlink is pushed again with the next FCnt and its next attempt; the nack reaches the webhook decrypted', async () => {
      const dev = await withSession(14);
      const nack = report(14, 'downlink_nack', hex('AABB'), 4, { extra: { confirmed: true, confirmed_retry: { attempt: 1 } } });
      expect(await handle([nack])).toEqual({ ok: {} });
      const [again] = pushedTo(dev);
      expect(again.operation).toBe('push');
      const item = (again.body.downlinks as Json[])[0];
      expect(item).toMatchObject({ session_key_id: SESSION, f_port: 2, f_cnt: 5, confirmed: true, confirmed_retry: { attempt: 2 } });
      expect(loraDown(KEY_1, devAddr(14), 5, Buffer.from(item.frm_payload as string, 'base64')).toString('hex')).toBe('aabb');
      expect(await get(dev, ['session.last_a_f_cnt_down'])).toMatchObject({ session: { last_a_f_cnt_down: 5 } });
      expect((await hook(PATHS.downlink_nack, dev)).downlink_nack).toMatchObject({ f_cnt: 4, frm_payload: b64(hex('AABB')), confirmed_retry: { attempt: 2 } });
      // As TTS: a re-queue publishes nothing of its own when it succeeds.
      expect((await downEvents()).map((e) => e.name)).toEqual(['as.down.data.nack.forward']);
    });

    it('downlink_nack past its last attempt: not pushed again; downlink_failed (max_retries_reached) and the nack to the webhook', async () => {
      const dev = await withSession(15);
      const nack = report(15, 'downlink_nack', hex('AABB'), 9, { extra: { confirmed: true, confirmed_retry: { attempt: 3, max_attempts: 3 } } });
      expect(await handle([nack])).toEqual({ ok: {} });
      expect(pushedTo(dev)).toEqual([]);
      expect((await hook(PATHS.downlink_failed, dev)).downlink_failed).toMatchObject({
        downlink: { f_cnt: 9, frm_payload: b64(hex('AABB')), confirmed_retry: { attempt: 4, max_attempts: 3 } },
        error: { namespace: 'pkg/applicationserver', name: 'max_retries_reached', code: 10, attributes: { max_retries: 3 } },
      });
      expect((await hook(PATHS.downlink_nack, dev)).downlink_nack).toMatchObject({ frm_payload: b64(hex('AABB')) });
      expect((await downEvents()).map((e) => e.name)).toEqual(['as.down.data.drop', 'as.down.data.nack.forward']);
    });

    it('downlink_queue_invalidated: the items decrypted and pushed again from the NS last FCnt + 1; nothing to the webhook', async () => {
      const dev = await withSession(16);
      const items = [hex('01'), hex('0203')].map((plain, i) => ({
        session_key_id: SESSION,
        f_port: 5,
        f_cnt: 5 + i,
        frm_payload: b64(loraDown(KEY_1, devAddr(16), 5 + i, plain)),
        correlation_ids: [`as:downlink:${i}`],
      }));
      const up = {
        end_device_ids: { ...ids(dev), dev_addr: devAddr(16) },
        correlation_ids: [NS_UP_ID],
        downlink_queue_invalidated: { downlinks: items, last_f_cnt_down: 20, session_key_id: SESSION },
      };
      expect(await handle([up])).toEqual({ ok: {} });
      const [again] = pushedTo(dev);
      const pushed = again.body.downlinks as Json[];
      expect(pushed.map((d) => [d.f_cnt, d.correlation_ids])).toEqual([
        [21, ['as:downlink:0']],
        [22, ['as:downlink:1']],
      ]);
      expect(pushed.map((d) => loraDown(KEY_1, devAddr(16), d.f_cnt as number, Buffer.from(d.frm_payload as string, 'base64')).toString('hex'))).toEqual([
        '01',
        '0203',
      ]);
      expect(await get(dev, ['session.last_a_f_cnt_down'])).toMatchObject({ session: { last_a_f_cnt_down: 22 } });
      expect(await downEvents()).toEqual([]);
      await sleep(300);
      expect(hooks(PATHS.downlink_queue_invalidated, dev)).toEqual([]);
    });

    it('a re-queue the NS refuses: downlink_failed and as.down.data.drop, and the refusal is the answer', async () => {
      const dev = await withSession(17);
      const refusal: ErrorDetails = {
        namespace: 'pkg/networkserver',
        name: 'application_downlink_too_long',
        message_format: 'x',
        code: 3,
        correlation_id: 'c',
      };
      ns.refuseNext = [refusal];
      const nack = report(17, 'downlink_nack', hex('AABB'), 4, { extra: { confirmed: true, confirmed_retry: { attempt: 1 } } });
      expect(await handle([nack])).toMatchObject({ error: { name: 'application_downlink_too_long' } });
      expect((await hook(PATHS.downlink_failed, dev)).downlink_failed).toMatchObject({
        downlink: { frm_payload: b64(hex('AABB')) },
        error: { name: 'application_downlink_too_long' },
      });
      expect((await downEvents()).map((e) => e.name)).toEqual(['as.down.data.drop']);
      await sleep(300);
      expect(hooks(PATHS.downlink_nack, dev)).toEqual([]);
    });
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
