import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallerIdentity, DOWNLINK_QUEUE_OPERATION_ERROR_DETAILS_TYPE } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import { rpcContext, startTestComponent, type TestComponent } from '@lorawan/testing';
import { NsModule } from '../ns.module';
import { DOWNLINK_QUEUE_CAPACITY } from './downlink-queue.service';

/**
 * AsNs.DownlinkQueuePush|Replace|List on a started Network Server (in-process transport, SQLite):
 * devices set through NsEndDeviceRegistry.Set, the queue read back through NsEndDeviceRegistry.Get,
 * refusals as the AS gets them (with their DownlinkQueueOperationErrorDetails).
 */
type Json = Record<string, unknown>;
const APP = 'app-ns-queue';
const universal: CallerIdentity = { kind: 'internal', id: 'spec', is_admin: false, key_rights: [], universal: true, rights: [] };
const NWK_KEY = '0102030405060708090A0B0C0D0E0F10';
const SESSION = 'AQID';
const PENDING = 'BAUG';
const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
const DETAILS = DOWNLINK_QUEUE_OPERATION_ERROR_DETAILS_TYPE;

let n = 0;

describe('NS application downlink queue (AsNs, in-process)', () => {
  let ns: TestComponent;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lw-ns-queue-'));
    ns = await startTestComponent(NsModule, { component: 'ns', config: loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'error' }) });
  });
  afterAll(async () => {
    await ns?.close();
    ns?.broker.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ids = (device_id: string) => ({ device_id, application_ids: { application_id: APP } });
  const registry = (method: 'Set' | 'Get', body: Json) =>
    ns.call(`NsEndDeviceRegistry.${method}`, body, rpcContext(`NsEndDeviceRegistry.${method}`, universal));
  const get = async (device_id: string, paths: string[]) => {
    const res = await registry('Get', { end_device_ids: ids(device_id), field_mask: { paths } });
    if (!('ok' in res)) throw new Error(JSON.stringify(res));
    return res.ok as Json & { session?: Json; pending_session?: Json };
  };
  const queueOf = async (device_id: string, which: 'session' | 'pending_session' = 'session') =>
    ((await get(device_id, [`${which}.queued_application_downlinks`]))[which]?.queued_application_downlinks as Json[] | undefined) ?? [];
  const fCnts = async (device_id: string, which: 'session' | 'pending_session' = 'session') => (await queueOf(device_id, which)).map((d) => d.f_cnt);
  const push = (device_id: string, downlinks: Json[]) =>
    ns.call('AsNs.DownlinkQueuePush', { end_device_ids: ids(device_id), downlinks }, rpcContext('AsNs.DownlinkQueuePush'));
  const replace = (device_id: string, downlinks: Json[]) =>
    ns.call('AsNs.DownlinkQueueReplace', { end_device_ids: ids(device_id), downlinks }, rpcContext('AsNs.DownlinkQueueReplace'));
  const list = (device_id: string) => ns.call('AsNs.DownlinkQueueList', ids(device_id), rpcContext('AsNs.DownlinkQueueList'));
  const down = (fCnt: number, o: Json = {}): Json => ({ session_key_id: SESSION, f_port: 1, f_cnt: fCnt, frm_payload: b64('A1B2'), ...o });

  /** An ABP device (LoRaWAN 1.0.3, EU868) with a session (SESSION, DevAddr 2601xxxx); `extra` fields set with it. */
  async function device(extra: Json = {}, paths: string[] = []): Promise<string> {
    const device_id = `dev-${++n}`;
    const devAddr = `2601${n.toString(16).toUpperCase().padStart(4, '0')}`;
    const end_device = {
      ids: ids(device_id),
      frequency_plan_id: 'EU_863_870_TTN',
      lorawan_version: 'MAC_V1_0_3',
      lorawan_phy_version: 'PHY_V1_0_3_REV_A',
      supports_join: false,
      ...extra,
      session: { dev_addr: devAddr, keys: { session_key_id: SESSION, f_nwk_s_int_key: { key: NWK_KEY } }, ...(extra.session as Json | undefined) },
    };
    const all = ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join', 'session.dev_addr', 'session.keys', ...paths];
    const res = await registry('Set', { end_device, field_mask: { paths: all } });
    if (!('ok' in res)) throw new Error(JSON.stringify(res));
    return device_id;
  }
  const devAddrOf = async (device_id: string) => (await get(device_id, ['session.dev_addr'])).session?.dev_addr as string;

  /** A pending session (PENDING, DevAddr 27000001) next to the current one, with the current MAC state as its own when `withMacState`. */
  async function withPendingSession(device_id: string, withMacState: boolean): Promise<void> {
    const macState = (await get(device_id, ['mac_state'])).mac_state;
    const pending_session = { dev_addr: '27000001', keys: { session_key_id: PENDING, f_nwk_s_int_key: { key: NWK_KEY } } };
    const res = await registry('Set', {
      end_device: { ids: ids(device_id), pending_session, ...(withMacState ? { pending_mac_state: macState } : {}) },
      field_mask: { paths: ['pending_session', ...(withMacState ? ['pending_mac_state'] : [])] },
    });
    if (!('ok' in res)) throw new Error(JSON.stringify(res));
  }

  it('push adds to the session queue as given (encrypted by the AS) and list answers it; pushing nothing changes nothing', async () => {
    const dev = await device();
    expect(await list(dev)).toEqual({ ok: {} });
    const first = [down(1, { confirmed: true, priority: 'HIGH', correlation_ids: ['as:downlink:01'] }), down(2, { f_port: 255 })];
    expect(await push(dev, first)).toEqual({ ok: {} });
    expect(await push(dev, [down(5)])).toEqual({ ok: {} });
    expect(await push(dev, [])).toEqual({ ok: {} });
    expect(await queueOf(dev)).toEqual([...first, down(5)]);
    expect(await list(dev)).toEqual({ ok: { downlinks: [...first, down(5)] } });
  });

  it('replace empties the queue first (a lower FCnt than the old queue is fine); an empty replace clears it', async () => {
    const dev = await device();
    await push(dev, [down(3), down(4)]);
    expect(await replace(dev, [down(1), down(2)])).toEqual({ ok: {} });
    expect(await fCnts(dev)).toEqual([1, 2]);
    expect(await replace(dev, [])).toEqual({ ok: {} });
    expect(await queueOf(dev)).toEqual([]);
    expect(await list(dev)).toEqual({ ok: {} });
  });

  it('refuses an FCnt at or below the last downlink FCnt (1.0.x: shared with the NS) with the details to rebuild from; nothing stored', async () => {
    const dev = await device({ session: { last_n_f_cnt_down: 5 } }, ['session.last_n_f_cnt_down']);
    const devAddr = await devAddrOf(dev);
    const refused = await push(dev, [down(5)]);
    expect(refused).toMatchObject({
      error: {
        namespace: 'pkg/networkserver',
        name: 'f_cnt_too_low',
        code: 3,
        attributes: { f_cnt: 5, min_f_cnt: 6 },
        details: [{ '@type': DETAILS, dev_addr: devAddr, session_key_id: SESSION, min_f_cnt_down: 6 }],
      },
    });
    expect(await queueOf(dev)).toEqual([]);
    expect(await push(dev, [down(6)])).toEqual({ ok: {} });
    // Above the queue's last FCnt too, and increasing within a request: all or nothing.
    expect(await push(dev, [down(6)])).toMatchObject({ error: { name: 'f_cnt_too_low', details: [{ min_f_cnt_down: 7 }] } });
    expect(await push(dev, [down(8), down(8)])).toMatchObject({ error: { name: 'f_cnt_too_low', attributes: { f_cnt: 8, min_f_cnt: 9 } } });
    expect(await fCnts(dev)).toEqual([6]);
    // Replace: the old queue no longer counts, the session's counter does.
    expect(await replace(dev, [down(5)])).toMatchObject({ error: { name: 'f_cnt_too_low', details: [{ min_f_cnt_down: 6 }] } });
    expect(await fCnts(dev)).toEqual([6]);
    expect(await replace(dev, [down(6)])).toEqual({ ok: {} });
  });

  it('refuses a downlink of neither the current nor the pending session (unknown_session, 404, with both sessions), and a pending session without MAC state', async () => {
    const dev = await device();
    const devAddr = await devAddrOf(dev);
    const other = await push(dev, [down(1), down(1, { session_key_id: 'CQkJ' })]);
    expect(other).toMatchObject({ error: { namespace: 'pkg/networkserver', name: 'unknown_session', code: 5 } });
    expect((other as { error: { details: unknown[] } }).error.details).toEqual([{ '@type': DETAILS, dev_addr: devAddr, session_key_id: SESSION }]);
    expect(await queueOf(dev)).toEqual([]);
    await withPendingSession(dev, false);
    expect(await push(dev, [down(1, { session_key_id: PENDING })])).toMatchObject({ error: { name: 'unknown_mac_state', code: 9 } });
    const stillUnknown = await push(dev, [down(1, { session_key_id: 'CQkJ' })]);
    expect((stillUnknown as { error: { details: unknown[] } }).error.details).toEqual([
      { '@type': DETAILS, dev_addr: devAddr, session_key_id: SESSION, pending_dev_addr: '27000001', pending_session_key_id: PENDING },
    ]);
  });

  it("queues a pending session's downlinks in the pending session, each session's FCnts on their own; replace empties both", async () => {
    const dev = await device({ session: { last_n_f_cnt_down: 9 } }, ['session.last_n_f_cnt_down']);
    await withPendingSession(dev, true);
    expect(await push(dev, [down(10), down(1, { session_key_id: PENDING }), down(2, { session_key_id: PENDING })])).toEqual({ ok: {} });
    expect([await fCnts(dev), await fCnts(dev, 'pending_session')]).toEqual([[10], [1, 2]]);
    expect(await list(dev)).toMatchObject({ ok: { downlinks: [{ f_cnt: 10 }, { f_cnt: 1, session_key_id: PENDING }, { f_cnt: 2 }] } });
    expect(await push(dev, [down(2, { session_key_id: PENDING })])).toMatchObject({
      error: { name: 'f_cnt_too_low', details: [{ min_f_cnt_down: 11, pending_min_f_cnt_down: 3, pending_session_key_id: PENDING }] },
    });
    expect(await replace(dev, [down(1, { session_key_id: PENDING })])).toEqual({ ok: {} });
    expect([await fCnts(dev), await fCnts(dev, 'pending_session')]).toEqual([[], [1]]);
  });

  it('refuses a payload longer than the band allows, FPort 0 and 224, confirmed downlinks of a multicast device, an unknown device', async () => {
    const dev = await device();
    expect(await push(dev, [down(1, { frm_payload: Buffer.alloc(243).toString('base64') })])).toMatchObject({
      error: { name: 'application_downlink_too_long', code: 3, attributes: { length: 243, max: 242 } },
    });
    for (const fPort of [0, 224]) {
      expect(await push(dev, [down(1, { f_port: fPort })])).toMatchObject({ error: { namespace: 'pkg/errors', name: 'validation', code: 3 } });
    }
    expect(await push(dev, [{ session_key_id: SESSION, f_cnt: 1 }])).toMatchObject({ error: { name: 'validation' } });
    expect(await queueOf(dev)).toEqual([]);
    expect(await push(dev, [down(1, { frm_payload: Buffer.alloc(242).toString('base64') })])).toEqual({ ok: {} });
    const multicast = await device({ multicast: true }, ['multicast']);
    expect(await push(multicast, [down(1, { confirmed: true })])).toMatchObject({ error: { name: 'confirmed_multicast_downlink', code: 3 } });
    expect(await push(multicast, [down(1)])).toEqual({ ok: {} });
    expect(await push('ghost', [down(1)])).toMatchObject({ error: { name: 'device_not_found', code: 5 } });
    expect(await list('ghost')).toMatchObject({ error: { name: 'device_not_found', code: 5 } });
  });

  it(`holds at most ${DOWNLINK_QUEUE_CAPACITY} downlinks per session (downlink_queue_capacity, 429 as TTS's ResourceExhausted)`, async () => {
    const dev = await device();
    const full = Array.from({ length: DOWNLINK_QUEUE_CAPACITY }, (_, i) => ({ session_key_id: SESSION, f_port: 1, f_cnt: i + 1 }));
    expect(await replace(dev, full)).toEqual({ ok: {} });
    expect(await push(dev, [down(DOWNLINK_QUEUE_CAPACITY + 1)])).toMatchObject({
      error: { namespace: 'pkg/networkserver', name: 'downlink_queue_capacity', code: 8 },
    });
    expect((await queueOf(dev)).length).toBe(DOWNLINK_QUEUE_CAPACITY);
    expect(await replace(dev, [...full, down(DOWNLINK_QUEUE_CAPACITY + 1)])).toMatchObject({ error: { name: 'downlink_queue_capacity' } });
    expect(await replace(dev, [down(1)])).toEqual({ ok: {} });
  });

  it('two concurrent pushes of the same FCnt: one is queued, the other refused with the next FCnt (optimistic concurrency, nothing lost)', async () => {
    const dev = await device();
    const replies = await Promise.all([push(dev, [down(1, { frm_payload: b64('01') })]), push(dev, [down(1, { frm_payload: b64('02') })])]);
    const ok = replies.filter((r) => 'ok' in r);
    const refused = replies.filter((r) => 'error' in r);
    expect([ok.length, refused.length]).toEqual([1, 1]);
    expect(refused[0]).toMatchObject({ error: { name: 'f_cnt_too_low', details: [{ min_f_cnt_down: 2 }] } });
    expect(await fCnts(dev)).toEqual([1]);
    expect(await push(dev, [down(2)])).toEqual({ ok: {} });
    expect(await fCnts(dev)).toEqual([1, 2]);
  });
});
