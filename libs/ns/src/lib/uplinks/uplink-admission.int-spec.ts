import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallerIdentity, nowTimestamp } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import { KeyVault, parseKeks } from '@lorawan/crypto';
import { uplinksShed } from '@lorawan/observability';
import { loraJoinRequest, rpcContext, serveRpcDouble, startTestComponent, type TestComponent } from '@lorawan/testing';
import type { RpcEnvelope } from '@lorawan/transport';
import { NsModule } from '../ns.module';

/**
 * The NS's door (`UplinkAdmission`) under more join-requests than it can handle in time: one
 * join at a time, each within 150 ms of its GS receiving it, and a Join Server that takes 40 ms.
 * What cannot start in time is refused at once, before the Join Server is asked; what was
 * admitted is answered.
 */
const APP = 'app-ns-admission';
const universal: CallerIdentity = { kind: 'internal', id: 'spec', is_admin: false, key_rights: [], universal: true, rights: [] };
const KEKS = 'ns-kek=000102030405060708090A0B0C0D0E0F';
const wrappedForNs = new KeyVault(parseKeks(KEKS)).wrap('0102030405060708090A0B0C0D0E0F10', 'ns-kek');
const JS_MS = 40;

let n = 0;
const eui = () => `70B3D57ED00001${(++n).toString(16).toUpperCase().padStart(2, '0')}`;

function joinUplink(frame: Buffer, receivedAt = nowTimestamp()) {
  return {
    raw_payload: frame.toString('base64'),
    settings: { data_rate: { lora: { spreading_factor: 7, bandwidth: 125000, coding_rate: '4/5' } }, frequency: '868100000', timestamp: 1000 },
    rx_metadata: [{ gateway_ids: { gateway_id: 'gtw-1', eui: 'AA555A0000000001' }, timestamp: 1000, snr: 5, rssi: -50, uplink_token: 'token-gtw-1' }],
    received_at: receivedAt,
    correlation_ids: [`gs:uplink:ADMISSION${++n}`],
  };
}

async function shedCount(reason: string): Promise<number> {
  const metric = await uplinksShed.get();
  return metric.values.find((v) => v.labels.component === 'ns' && v.labels.kind === 'join_request' && v.labels.reason === reason)?.value ?? 0;
}

describe('Network Server admission (in-process)', () => {
  let ns: TestComponent;
  let dir: string;
  const joinsAtJs: RpcEnvelope[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lw-ns-admission-'));
    ns = await startTestComponent(NsModule, {
      component: 'ns',
      config: loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'error', NS_NET_ID: '000013', KEKS, NS_JOIN_CONCURRENCY: '1', NS_JOIN_DEADLINE_MS: '150' }),
    });
    serveRpcDouble(ns.broker, 'NsJs.HandleJoin', async (req) => {
      joinsAtJs.push(req);
      await new Promise((resolve) => setTimeout(resolve, JS_MS));
      return {
        ok: {
          raw_payload: Buffer.alloc(17, 0x20).toString('base64'),
          session_keys: { session_key_id: 'AQID', f_nwk_s_int_key: wrappedForNs, app_s_key: { key: 'A0A1A2A3A4A5A6A7A8A9AAABACADAEAF' } },
        },
      };
    });
    serveRpcDouble(ns.broker, 'NsAs.HandleUplink', () => ({ ok: {} }));
  });
  afterAll(async () => {
    await ns?.close();
    ns?.broker.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function device() {
    const ids = { device_id: `dev-${++n}`, application_ids: { application_id: APP }, dev_eui: eui(), join_eui: eui() };
    const end_device = {
      ids,
      frequency_plan_id: 'EU_863_870_TTN',
      lorawan_version: 'MAC_V1_0_3',
      lorawan_phy_version: 'PHY_V1_0_3_REV_A',
      supports_join: true,
    };
    const paths = ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join'];
    const res = await ns.call('NsEndDeviceRegistry.Set', { end_device, field_mask: { paths } }, rpcContext('NsEndDeviceRegistry.Set', universal));
    if ('error' in res) throw new Error(JSON.stringify(res.error));
    return ids;
  }
  const handle = (up: unknown) => ns.call('GsNs.HandleUplink', up, rpcContext('GsNs.HandleUplink'));

  it('refuses at the door, before the Join Server is asked, the join-requests of a burst that cannot start in time, and answers those it admitted', async () => {
    const devices = await Promise.all(Array.from({ length: 20 }, () => device()));
    // Teach the door the pace: one join alone.
    const warm = await device();
    expect(await handle(joinUplink(loraJoinRequest({ joinEui: warm.join_eui, devEui: warm.dev_eui })))).toEqual({ ok: {} });
    const atJsBefore = joinsAtJs.length;
    const overloadedBefore = await shedCount('overloaded');
    const answers = await Promise.all(devices.map((d) => handle(joinUplink(loraJoinRequest({ joinEui: d.join_eui, devEui: d.dev_eui })))));
    const accepted = answers.filter((a) => 'ok' in a).length;
    const refused = answers.filter((a) => 'error' in a);
    // 150 ms at ≥ 40 ms a join, one at a time: a handful in time, the rest refused at once.
    expect(accepted).toBeGreaterThanOrEqual(1);
    expect(accepted).toBeLessThanOrEqual(5);
    expect(refused.length).toBe(20 - accepted);
    for (const a of refused)
      expect(a).toMatchObject({ error: { namespace: 'pkg/networkserver', name: expect.stringMatching(/^(overloaded|uplink_too_late)$/) } });
    expect(refused.filter((a) => 'error' in a && a.error.name === 'overloaded').length).toBeGreaterThan(0);
    // Only the admitted ones reached the Join Server.
    expect(joinsAtJs.length - atJsBefore).toBe(accepted);
    expect((await shedCount('overloaded')) - overloadedBefore).toBeGreaterThan(0);
  });

  it('refuses a join-request already older than its deadline as too late, without asking the Join Server', async () => {
    const d = await device();
    const atJsBefore = joinsAtJs.length;
    const tooLateBefore = await shedCount('too_late');
    const stale = new Date(Date.now() - 400).toISOString();
    expect(await handle(joinUplink(loraJoinRequest({ joinEui: d.join_eui, devEui: d.dev_eui }), stale))).toMatchObject({
      error: { name: 'uplink_too_late', code: 4 },
    });
    expect(joinsAtJs.length).toBe(atJsBefore);
    expect((await shedCount('too_late')) - tooLateBefore).toBe(1);
  });
});
