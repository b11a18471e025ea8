import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import loraPacket from 'lora-packet';
import { DataSource } from 'typeorm';
import { type CallerIdentity, gatewayDownlinkSubject, NS_EVENTS, nowTimestamp, RPCS } from '@lorawan/api';
import { loadConfig, STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { KeyVault, parseKeks } from '@lorawan/crypto';
import { rawFieldsOf } from '@lorawan/registry/conformance';
import { Code, defineError } from '@lorawan/errors';
import {
  type EventRecorder,
  eventually,
  loraJoinRequest,
  recordEvents,
  rpcContext,
  serveRpcDouble,
  startTestComponent,
  type TestComponent,
} from '@lorawan/testing';
import { decodeRequest, encodePacket, type RpcEnvelope } from '@lorawan/transport';
import { EventPublisher } from '@lorawan/component';
import { DEVICE_STORE, type DeviceStore, DeviceRegistry, keySealerFor } from '@lorawan/registry';
import { nsRegistryPolicy } from '../end-devices/ns-registry.policy';
import type { NsDevice } from '../model';
import { JoinRequestService } from '../joins/join-request.service';
import { NsModule } from '../ns.module';
import { DataUplinkService } from './data-uplink.service';

/**
 * The Network Server's uplink handling (joins, data) on the in-process transport (SQLite): the JS, the Gateway
 * Servers (one subject per gateway) and the AS are doubles on the broker, so what the NS sends
 * each of them, and when, is visible.
 */
const APP = 'app-ns-join';
const universal: CallerIdentity = { kind: 'internal', id: 'spec', is_admin: false, key_rights: [], universal: true, rights: [] };
const JS_REFUSAL = defineError('pkg/joinserver', 'mic_mismatch', 'MIC mismatch', Code.InvalidArgument);
/** `ns-kek`: what the JS wraps network keys for this NS with; `ns-rest`: the NS's own, for keys at rest (NS_KEK_LABEL). */
const KEKS = 'ns-kek=000102030405060708090A0B0C0D0E0F,ns-rest=0F0E0D0C0B0A09080706050403020100';
const NWK_KEY = '0102030405060708090A0B0C0D0E0F10';
const wrappedForNs = new KeyVault(parseKeks(KEKS)).wrap(NWK_KEY, 'ns-kek');
const GATEWAY_TOO_LATE = defineError('pkg/gatewayserver/io', 'too_late', 'too late', Code.FailedPrecondition);

let n = 0;
const eui = () => `70B3D57ED00000${(++n).toString(16).toUpperCase().padStart(2, '0')}`;

function uplink(frame: Buffer, copies: Array<{ gateway: string; snr: number }>, receivedAt = nowTimestamp()) {
  return copies.map(({ gateway, snr }, i) => ({
    raw_payload: frame.toString('base64'),
    settings: { data_rate: { lora: { spreading_factor: 7, bandwidth: 125000, coding_rate: '4/5' } }, frequency: '868100000', timestamp: 1000 + i },
    rx_metadata: [{ gateway_ids: { gateway_id: gateway, eui: 'AA555A0000000001' }, timestamp: 1000 + i, snr, rssi: -50, uplink_token: `token-${gateway}` }],
    received_at: receivedAt,
    correlation_ids: [`gs:uplink:COPY${gateway.toUpperCase()}`],
  }));
}

describe('Network Server uplinks (in-process)', () => {
  let ns: TestComponent;
  let events: EventRecorder;
  let dir: string;
  const joinsAtJs: RpcEnvelope[] = [];
  const downlinks: Array<{ gateway: string; body: RpcEnvelope }> = [];
  const atAs: RpcEnvelope[] = [];
  let jsAnswer: 'accept' | 'refuse' | 'foreign_kek' = 'accept';
  const refusingGateways = new Set<string>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lw-ns-join-'));
    ns = await startTestComponent(NsModule, {
      component: 'ns',
      config: loadConfig({
        DATA_DIR: dir,
        LOG_LEVEL: 'error',
        NS_NET_ID: '000013',
        KEKS,
        NS_KEK_LABEL: 'ns-rest',
        NS_RECENT_UPLINKS: '3',
        // The data plane without the NS's own DevStatusReq downlinks (the MAC layer's specs have them).
        NS_DEFAULT_MAC_SETTINGS: JSON.stringify({ status_count_periodicity: 0, status_time_periodicity: '0s' }),
      }),
    });
    events = recordEvents(ns.broker);
    serveRpcDouble(ns.broker, 'NsJs.HandleJoin', (req) => {
      joinsAtJs.push(req);
      if (jsAnswer === 'refuse') return { error: JS_REFUSAL.with().toDetails() };
      return {
        ok: {
          raw_payload: Buffer.alloc(17, 0x20).toString('base64'),
          session_keys: {
            session_key_id: 'AQID',
            f_nwk_s_int_key: jsAnswer === 'foreign_kek' ? { ...wrappedForNs, kek_label: 'other-ns' } : wrappedForNs,
            app_s_key: { key: 'A0A1A2A3A4A5A6A7A8A9AAABACADAEAF' },
          },
        },
      };
    });
    serveRpcDouble(ns.broker, 'NsAs.HandleUplink', (req) => {
      atAs.push(req);
      return { ok: {} };
    });
    for (const gateway of ['gtw-weak', 'gtw-strong']) {
      ns.broker.serve(gatewayDownlinkSubject(RPCS['NsGs.ScheduleDownlink'].subject, gateway), 'gs', (payload, reply) => {
        const packet = decodeRequest(payload);
        if (!packet) return;
        downlinks.push({ gateway, body: packet.data });
        const refuse = refusingGateways.has(gateway);
        reply(
          encodePacket(
            refuse
              ? { id: packet.id, err: GATEWAY_TOO_LATE.with().toDetails(), isDisposed: true }
              : { id: packet.id, response: { delay: '4.7s', downlink_path: { uplink_token: `token-${gateway}` }, rx1: true }, isDisposed: true },
          ),
        );
      });
    }
  });
  // The NS answers a frame once it is stored; what follows its merge window runs in the background.
  // A test's frames are done with before the next test counts what reached the AS and the gateways.
  afterEach(async () => {
    await ns.running.app.get(DataUplinkService).settled();
    await ns.running.app.get(JoinRequestService).settled();
  });
  afterAll(async () => {
    await ns?.close();
    ns?.broker.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const TTN_CHANNELS = ['868100000', '868300000', '868500000', '867100000', '867300000', '867500000', '867700000', '867900000'];

  async function device(o: { supportsJoin?: boolean; version?: string; devAddr?: string } = {}) {
    const ids = { device_id: `dev-${++n}`, application_ids: { application_id: APP }, dev_eui: eui(), join_eui: eui() };
    const otaa = o.supportsJoin ?? true;
    const end_device = {
      ids,
      frequency_plan_id: 'EU_863_870_TTN',
      lorawan_version: o.version ?? 'MAC_V1_0_3',
      lorawan_phy_version: 'PHY_V1_0_3_REV_A',
      supports_join: otaa,
      ...(otaa
        ? {}
        : {
            session: { dev_addr: o.devAddr ?? '26000001', keys: { f_nwk_s_int_key: { key: '0102030405060708090A0B0C0D0E0F10' } } },
            // An ABP device already on the plan's channels and RX2: no MAC commands to negotiate them.
            mac_settings: { factory_preset_frequencies: TTN_CHANNELS, desired_rx2_data_rate_index: 0 },
          }),
    };
    const paths = [
      'frequency_plan_id',
      'lorawan_version',
      'lorawan_phy_version',
      'supports_join',
      ...(otaa
        ? []
        : ['session.dev_addr', 'session.keys.f_nwk_s_int_key.key', 'mac_settings.factory_preset_frequencies', 'mac_settings.desired_rx2_data_rate_index']),
    ];
    const res = await ns.call('NsEndDeviceRegistry.Set', { end_device, field_mask: { paths } }, rpcContext('NsEndDeviceRegistry.Set', universal));
    if ('error' in res) throw new Error(JSON.stringify(res.error));
    return ids;
  }

  const handle = (up: unknown) => ns.call('GsNs.HandleUplink', up, rpcContext('GsNs.HandleUplink'));
  const get = async (ids: { device_id: string }, paths: string[]) =>
    (await ns.call(
      'NsEndDeviceRegistry.Get',
      { end_device_ids: { ...ids, application_ids: { application_id: APP } }, field_mask: { paths } },
      rpcContext('NsEndDeviceRegistry.Get', universal),
    )) as {
      ok: Record<string, unknown>;
    };

  it('handles two copies once: one JS call with a DevAddr of the NetID, the join-accept to the best gateway, the pending session, the AS told', async () => {
    const ids = await device();
    const frame = loraJoinRequest({ joinEui: ids.join_eui, devEui: ids.dev_eui });
    const [weak, strong] = uplink(frame, [
      { gateway: 'gtw-weak', snr: -3 },
      { gateway: 'gtw-strong', snr: 8 },
    ]);
    const before = joinsAtJs.length;
    expect(await Promise.all([handle(weak), handle(strong)])).toEqual([{ ok: {} }, { ok: {} }]);
    expect(joinsAtJs.length).toBe(before + 1);
    const request = joinsAtJs[joinsAtJs.length - 1].body as {
      dev_addr: string;
      net_id: string;
      downlink_settings: unknown;
      rx_delay: number;
      cf_list: unknown;
    };
    expect(request.net_id).toBe('000013');
    expect(parseInt(request.dev_addr.slice(0, 2), 16) >> 1).toBe(0x13);
    expect(request).toMatchObject({
      downlink_settings: { rx1_dr_offset: 0, rx2_dr: 3 },
      cf_list: { type: 'FREQUENCIES', freq: [8671000, 8673000, 8675000, 8677000, 8679000] },
    });
    await eventually(() => atAs.length > 0 && downlinks.length > 0, 3000);
    const [first] = downlinks.slice(-1);
    expect(first.gateway).toBe('gtw-strong');
    expect(first.body.body).toMatchObject({
      raw_payload: Buffer.alloc(17, 0x20).toString('base64'),
      request: {
        class: 'CLASS_A',
        rx1_delay: 5,
        rx1_frequency: '868100000',
        rx2_frequency: '869525000',
        priority: 'HIGHEST',
        downlink_paths: [{ uplink_token: 'token-gtw-strong' }],
      },
    });
    const merge = events.all.find((e) => e.name === NS_EVENTS.mergeMetadata.name);
    expect(merge?.data).toMatchObject({ value: 2 });
    expect(merge?.correlation_ids).toEqual(expect.arrayContaining(['gs:uplink:COPYGTW-WEAK', 'gs:uplink:COPYGTW-STRONG']));
    const up = atAs[atAs.length - 1].body as { application_ups: Array<{ end_device_ids: { dev_addr: string }; join_accept: { app_s_key: { key: string } } }> };
    expect(up.application_ups[0]).toMatchObject({
      end_device_ids: { dev_addr: request.dev_addr },
      join_accept: { session_key_id: 'AQID', app_s_key: { key: 'A0A1A2A3A4A5A6A7A8A9AAABACADAEAF' } },
    });
    const stored = await get(ids, ['pending_session', 'pending_mac_state']);
    expect(stored.ok).toMatchObject({
      pending_session: { dev_addr: request.dev_addr, keys: { session_key_id: 'AQID', nwk_s_enc_key: { key: '0102030405060708090A0B0C0D0E0F10' } } },
      pending_mac_state: { pending_join_request: { dev_addr: request.dev_addr }, rx_windows_available: false },
    });
    expect(JSON.stringify(stored.ok)).not.toContain('A0A1A2A3A4A5A6A7A8A9AAABACADAEAF');
    // Opened from the JS's wrapping, stored wrapped with the NS's own KEK.
    const raw = (await rawFieldsOf(ns.running.app.get(DataSource), APP, ids.device_id)) ?? '';
    expect(raw).toContain('ns-rest');
    expect(raw).not.toContain(NWK_KEY);
    // No event holds a key.
    expect(JSON.stringify(events.all)).not.toMatch(/0102030405060708090A0B0C0D0E0F10|A0A1A2A3A4A5A6A7A8A9AAABACADAEAF/);
    await events.take();
  });

  it('tries the next gateway when the best one cannot send, and fails with ns.down.join.schedule.fail when none can', async () => {
    const ids = await device();
    refusingGateways.add('gtw-strong');
    try {
      const copies = uplink(loraJoinRequest({ joinEui: ids.join_eui, devEui: ids.dev_eui, devNonce: '0A0B' }), [
        { gateway: 'gtw-weak', snr: -3 },
        { gateway: 'gtw-strong', snr: 8 },
      ]);
      const before = downlinks.length;
      await Promise.all(copies.map(handle));
      await eventually(() => downlinks.length === before + 2, 3000);
      expect(downlinks.slice(before).map((d) => d.gateway)).toEqual(['gtw-strong', 'gtw-weak']);
      refusingGateways.add('gtw-weak');
      const other = await device();
      await Promise.all(uplink(loraJoinRequest({ joinEui: other.join_eui, devEui: other.dev_eui }), [{ gateway: 'gtw-weak', snr: 1 }]).map(handle));
      await eventually(() => events.all.some((e) => e.name === NS_EVENTS.joinScheduleFail.name), 3000);
      // The join-accept the device never got leaves the MAC state, and its session keys with it.
      let stored = await get(other, ['pending_session', 'pending_mac_state']);
      const queued = () => (stored.ok.pending_mac_state as { queued_join_accept?: unknown } | undefined)?.queued_join_accept;
      for (let i = 0; i < 100 && queued(); i++) {
        await new Promise((r) => setTimeout(r, 20));
        stored = await get(other, ['pending_session', 'pending_mac_state']);
      }
      expect(stored.ok.pending_session).toBeUndefined();
      expect(stored.ok.pending_mac_state).toMatchObject({ rx_windows_available: false });
      expect(stored.ok.pending_mac_state).not.toHaveProperty('queued_join_accept');
      expect(await rawFieldsOf(ns.running.app.get(DataSource), APP, other.device_id)).not.toMatch(/"keys"/);
    } finally {
      refusingGateways.clear();
      await events.take();
    }
  });

  it('refuses what it cannot join: unknown device, ABP device (ns.up.join.drop), JS refusal (ns.up.join.cluster.fail), keys wrapped for another NS, a join-request too old to answer; nothing stored', async () => {
    expect(await handle(uplink(loraJoinRequest({ joinEui: eui(), devEui: eui() }), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toMatchObject({
      error: { name: 'device_not_found', code: 5 },
    });
    const abp = await device({ supportsJoin: false });
    expect(await handle(uplink(loraJoinRequest({ joinEui: abp.join_eui, devEui: abp.dev_eui }), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toMatchObject({
      error: { name: 'abp_join_request', code: 9 },
    });
    expect(events.all.find((e) => e.name === NS_EVENTS.joinDrop.name)?.identifiers).toEqual([{ device_ids: { ...abp, dev_addr: '26000001' } }]);
    const refused = await device();
    jsAnswer = 'refuse';
    try {
      const res = await handle(uplink(loraJoinRequest({ joinEui: refused.join_eui, devEui: refused.dev_eui }), [{ gateway: 'gtw-weak', snr: 0 }])[0]);
      expect(res).toMatchObject({ error: { namespace: 'pkg/joinserver', name: 'mic_mismatch', code: 3 } });
    } finally {
      jsAnswer = 'accept';
    }
    expect(events.all.map((e) => e.name)).toEqual(expect.arrayContaining([NS_EVENTS.joinClusterFail.name]));
    expect((await get(refused, ['pending_mac_state'])).ok.pending_mac_state).toBeUndefined();
    // Keys wrapped for another NS (a KEK this one does not have): dropped, nothing stored.
    const foreign = await device();
    jsAnswer = 'foreign_kek';
    try {
      const res = await handle(uplink(loraJoinRequest({ joinEui: foreign.join_eui, devEui: foreign.dev_eui }), [{ gateway: 'gtw-weak', snr: 0 }])[0]);
      expect(res).toMatchObject({ error: { name: 'unwrap_key', code: 9, attributes: { kek_label: 'other-ns' } } });
    } finally {
      jsAnswer = 'accept';
    }
    expect((await get(foreign, ['pending_mac_state'])).ok.pending_mac_state).toBeUndefined();
    const old = await device();
    const calls = joinsAtJs.length;
    const stale = new Date(Date.now() - 5500).toISOString();
    expect(await handle(uplink(loraJoinRequest({ joinEui: old.join_eui, devEui: old.dev_eui }), [{ gateway: 'gtw-weak', snr: 0 }], stale)[0])).toMatchObject({
      error: { name: 'uplink_too_late', code: 4 },
    });
    expect(joinsAtJs.length).toBe(calls);
  });

  it('answers what is no uplink of a device: a data uplink no session matches, a downlink frame, bytes that are no frame', async () => {
    const data = loraPacket
      .fromFields(
        { MType: 'Unconfirmed Data Up', DevAddr: Buffer.from('26011BDA', 'hex'), FCnt: 1, FPort: 1, payload: Buffer.from('hi') },
        Buffer.alloc(16, 1),
        Buffer.alloc(16, 2),
      )
      .getPHYPayload() as Buffer;
    expect(await handle(uplink(data, [{ gateway: 'gtw-weak', snr: 0 }])[0])).toMatchObject({ error: { name: 'device_not_found', code: 5 } });
    const down = Buffer.from(data);
    down[0] = 0x60;
    expect(await handle(uplink(down, [{ gateway: 'gtw-weak', snr: 0 }])[0])).toMatchObject({ error: { name: 'unsupported_m_type', code: 3 } });
    expect(await handle(uplink(Buffer.from([0x00, 1]), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toMatchObject({ error: { name: 'decode_payload', code: 3 } });
  });

  describe('data uplinks', () => {
    const APP_S_KEY = Buffer.from('A0A1A2A3A4A5A6A7A8A9AAABACADAEAF', 'hex');
    /** A data uplink as the device sends it, built by lora-packet (the FCnt's high bytes only in the MIC). */
    function dataUp(devAddr: string, fCnt: number, o: { fPort?: number; payload?: string; nwkKey?: string; confirmed?: boolean; adr?: boolean } = {}): Buffer {
      const high = Buffer.alloc(2);
      high.writeUInt16LE(fCnt >>> 16); // lora-packet appends it to the little-endian 16 bits as given
      return loraPacket
        .fromFields(
          {
            MType: o.confirmed ? 'Confirmed Data Up' : 'Unconfirmed Data Up',
            DevAddr: Buffer.from(devAddr, 'hex'),
            FCnt: fCnt & 0xffff,
            FPort: o.fPort ?? 1,
            payload: Buffer.from(o.payload ?? 'hello'),
            ...(o.adr ? { FCtrl: { ADR: true } } : {}),
          },
          APP_S_KEY,
          Buffer.from(o.nwkKey ?? NWK_KEY, 'hex'),
          undefined,
          high,
        )
        .getPHYPayload() as Buffer;
    }

    async function joined(): Promise<{ ids: { device_id: string }; devAddr: string }> {
      const ids = await device();
      const before = atAs.length;
      await handle(uplink(loraJoinRequest({ joinEui: ids.join_eui, devEui: ids.dev_eui }), [{ gateway: 'gtw-strong', snr: 5 }])[0]);
      await eventually(() => atAs.length > before, 3000);
      const request = joinsAtJs[joinsAtJs.length - 1].body as { dev_addr: string };
      return { ids, devAddr: request.dev_addr };
    }

    const lastUplinkAtAs = () =>
      (atAs[atAs.length - 1].body as { application_ups: Array<{ uplink_message?: Record<string, unknown>; end_device_ids: Record<string, unknown> }> })
        .application_ups[0];

    it('matches the first uplink of a join’s pending session: the session becomes current, the uplink goes to the AS still encrypted', async () => {
      const { ids, devAddr } = await joined();
      const frame = dataUp(devAddr, 0, { fPort: 2, payload: 'hi there' });
      const before = atAs.length;
      expect(
        await handle(
          uplink(frame, [
            { gateway: 'gtw-strong', snr: 7 },
            { gateway: 'gtw-weak', snr: -2 },
          ])[0],
        ),
      ).toEqual({ ok: {} });
      await eventually(() => atAs.length === before + 1, 3000);
      const up = lastUplinkAtAs();
      expect(up.end_device_ids).toMatchObject({ device_id: ids.device_id, dev_addr: devAddr });
      const sent = loraPacket.fromWire(frame);
      expect(up.uplink_message).toMatchObject({ session_key_id: 'AQID', f_port: 2, f_cnt: 0, frm_payload: (sent.FRMPayload as Buffer).toString('base64') });
      const stored = await get(ids, ['session', 'pending_session', 'mac_state', 'pending_mac_state', 'recent_adr_uplinks']);
      expect(stored.ok).toMatchObject({ ids: { dev_addr: devAddr }, session: { dev_addr: devAddr, last_f_cnt_up: 0, keys: { session_key_id: 'AQID' } } });
      expect(stored.ok.pending_session).toBeUndefined();
      expect(stored.ok.pending_mac_state).toBeUndefined();
      const macState = stored.ok.mac_state as { rx_windows_available: boolean; recent_uplinks: unknown[]; pending_join_request?: unknown };
      expect(macState.rx_windows_available).toBe(true);
      expect(macState.recent_uplinks).toHaveLength(1);
      expect(macState.pending_join_request).toBeUndefined();
      // No ADR bit: the ADR uplinks are reset.
      expect(stored.ok.recent_adr_uplinks ?? []).toEqual([]);
      const names = events.all.filter((e) => JSON.stringify(e.identifiers).includes(ids.device_id)).map((e) => e.name);
      expect(names).toEqual(expect.arrayContaining(['ns.up.data.receive', 'ns.up.merge_metadata', 'ns.up.data.process', 'ns.up.data.forward']));
      await events.take();
    });

    it('a retransmission (the same FCnt again) is recognised and not forwarded again; an older FCnt and a bad MIC match no session', async () => {
      const { ids, devAddr } = await joined();
      const frame = dataUp(devAddr, 0);
      await handle(uplink(frame, [{ gateway: 'gtw-strong', snr: 7 }])[0]);
      await handle(uplink(dataUp(devAddr, 1), [{ gateway: 'gtw-strong', snr: 7 }])[0]);
      const forwardsOf = () => events.all.filter((e) => e.name === 'ns.up.data.forward' && JSON.stringify(e.identifiers).includes(ids.device_id)).length;
      await eventually(() => forwardsOf() === 2, 3000);
      const forwarded = atAs.length;
      // The same frame on another channel is no copy of the first: a retransmission of FCnt 1.
      const again = dataUp(devAddr, 1);
      const [retry] = uplink(again, [{ gateway: 'gtw-strong', snr: 7 }]);
      expect(await handle({ ...retry, settings: { ...retry.settings, frequency: '868300000' } })).toEqual({ ok: {} });
      // FCnt 0 again, after FCnt 1 (on another channel: within the cooldown the same bytes on the same channel are a copy).
      const [replay] = uplink(frame, [{ gateway: 'gtw-weak', snr: 1 }]);
      expect(await handle({ ...replay, settings: { ...replay.settings, frequency: '868500000' } })).toMatchObject({ error: { name: 'device_not_found' } });
      expect(await handle(uplink(dataUp(devAddr, 2, { nwkKey: '11'.repeat(16) }), [{ gateway: 'gtw-weak', snr: 1 }])[0])).toMatchObject({
        error: { name: 'device_not_found' },
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(atAs.length).toBe(forwarded);
      await events.take();
    });

    it('a frame that looked like a retransmission on a read another replica has since moved past is a replay: the FCnt never goes back', async () => {
      const { ids, devAddr } = await joined();
      const registry = ns.running.app.get(DeviceRegistry);
      await handle(uplink(dataUp(devAddr, 5), [{ gateway: 'gtw-strong', snr: 7 }])[0]);
      // What a replica read at FCnt 5, before the device's FCnt 6 was stored by another.
      const staleRead = await registry.bySessionDevAddr(devAddr);
      await handle(uplink(dataUp(devAddr, 6), [{ gateway: 'gtw-strong', snr: 7 }])[0]);
      const read = jest.spyOn(registry, 'bySessionDevAddr').mockResolvedValueOnce(staleRead);
      try {
        // FCnt 5 again, on another channel (not a copy): on the stale read it is the latest FCnt.
        const [again] = uplink(dataUp(devAddr, 5), [{ gateway: 'gtw-weak', snr: 1 }]);
        expect(await handle({ ...again, settings: { ...again.settings, frequency: '868500000' } })).toMatchObject({ error: { name: 'f_cnt_replay' } });
      } finally {
        read.mockRestore();
      }
      expect((await get(ids, ['session'])).ok).toMatchObject({ session: { last_f_cnt_up: 6 } });
      await events.take();
    });

    describe('the device this NS wrote last with the DevAddr, tried without reading it', () => {
      const OTHER_KEY = '1112131415161718191A1B1C1D1E1F20';
      let store: DeviceStore;
      /** Another NS replica on the same database (a registry of its own, without this one's memory). */
      let replica: DeviceRegistry<NsDevice>;
      const reads: jest.SpyInstance[] = [];
      let writes: jest.SpyInstance;
      beforeAll(() => {
        store = ns.running.app.get<DeviceStore>(DEVICE_STORE);
        const config = ns.running.app.get<StackConfig>(STACK_CONFIG);
        replica = new DeviceRegistry<NsDevice>(store, nsRegistryPolicy({}), keySealerFor('ns', config), new EventPublisher(ns.broker));
      });
      /** Counts the statements of the store from here on (the reads by kind, the writes). */
      function countStatements() {
        reads.splice(0).forEach((spy) => spy.mockRestore());
        writes?.mockRestore();
        reads.push(
          jest.spyOn(store, 'findBySessionDevAddr'),
          jest.spyOn(store, 'get'),
          jest.spyOn(store, 'findCandidates'),
          jest.spyOn(store, 'findByDevAddr'),
        );
        writes = jest.spyOn(store, 'replace');
        return { reads: () => reads.reduce((sum, spy) => sum + spy.mock.calls.length, 0), writes: () => writes.mock.calls.length };
      }
      afterEach(() => {
        reads.splice(0).forEach((spy) => spy.mockRestore());
        writes?.mockRestore();
      });
      async function abp(devAddr: string, key = NWK_KEY) {
        const ids = await device({ supportsJoin: false, devAddr });
        const set = await ns.call(
          'NsEndDeviceRegistry.Set',
          {
            end_device: { ids, session: { dev_addr: devAddr, keys: { f_nwk_s_int_key: { key }, session_key_id: sessionKeyId(ids) } } },
            field_mask: { paths: ['session.keys.f_nwk_s_int_key.key', 'session.keys.session_key_id'] },
          },
          rpcContext('NsEndDeviceRegistry.Set', universal),
        );
        expect(set).not.toHaveProperty('error');
        return ids;
      }
      const key = (ids: { device_id: string }) => ({ application_id: APP, device_id: ids.device_id });
      /** Each device's own session key ID (bytes: base64). */
      const sessionKeyId = (ids: { device_id: string }) => Buffer.from(ids.device_id).toString('base64');
      /** The same frame on another channel is no copy of an earlier one (a copy is the same bytes on the same channel). */
      const on = (frequency: string, up: ReturnType<typeof uplink>[number]) => ({ ...up, settings: { ...up.settings, frequency } });
      /** The events of a device by name (from the `from`-th event on). */
      const eventsOf = (name: string, ids: { device_id: string }, from = 0) =>
        events.all.slice(from).filter((e) => e.name === name && JSON.stringify(e.identifiers).includes(`"${ids.device_id}"`));

      it('stores its next uplink in one statement (no read), the same as from a read; another device with the DevAddr is still found', async () => {
        const first = await abp('26000010');
        const second = await abp('26000010', OTHER_KEY);
        expect(await handle(uplink(dataUp('26000010', 1), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toEqual({ ok: {} });
        await eventually(() => eventsOf('ns.up.data.forward', first).length === 1, 3000);
        const before = atAs.length;
        let count = countStatements();
        expect(await handle(uplink(dataUp('26000010', 2, { payload: 'two' }), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toEqual({ ok: {} });
        expect(count.reads()).toBe(0);
        expect(count.writes()).toBe(1);
        await eventually(() => atAs.length === before + 1, 3000);
        expect(lastUplinkAtAs()).toMatchObject({
          end_device_ids: { device_id: first.device_id, dev_addr: '26000010' },
          uplink_message: { f_cnt: 2, session_key_id: sessionKeyId(first) },
        });
        expect(
          eventsOf('ns.up.data.receive', first).map((e) => (e.data as { payload: { mac_payload: { full_f_cnt: number } } }).payload.mac_payload.full_f_cnt),
        ).toEqual([1, 2]);
        expect((await get(first, ['session'])).ok).toMatchObject({ session: { last_f_cnt_up: 2 } });
        // The other device sharing the DevAddr (its own keys): not the one remembered, so the candidates are read.
        count = countStatements();
        expect(await handle(uplink(dataUp('26000010', 1, { nwkKey: OTHER_KEY }), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toEqual({ ok: {} });
        expect(store.findBySessionDevAddr).toHaveBeenCalledTimes(1);
        expect(count.writes()).toBe(1);
        expect((await get(second, ['session'])).ok).toMatchObject({ session: { last_f_cnt_up: 1 } });
        expect((await get(first, ['session'])).ok).toMatchObject({ session: { last_f_cnt_up: 2 } });
        await eventually(() => atAs.length === before + 2, 3000);
        await events.take();
      });

      it('after another replica stored an uplink: matched on what is stored (a retransmission, not forwarded again; an older FCnt no match), never on what it remembers', async () => {
        const ids = await abp('26000011');
        expect(await handle(uplink(dataUp('26000011', 5), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toEqual({ ok: {} });
        // Another replica handles FCnt 6 (this one remembers the device at FCnt 5).
        await replica.modify(key(ids), (device) => ({ device: { ...device, session: { ...device.session, last_f_cnt_up: 6 } }, result: undefined }));
        await eventually(() => eventsOf('ns.up.data.forward', ids).length === 1, 3000);
        const forwarded = atAs.length;
        const from = events.all.length;
        const count = countStatements();
        // FCnt 5 again: what this NS remembers calls it a retransmission; stored, FCnt 6 is past it: no match, and no ns.up.data.receive.
        const [five] = uplink(dataUp('26000011', 5), [{ gateway: 'gtw-weak', snr: 0 }]);
        expect(await handle(on('868300000', five))).toMatchObject({ error: { name: 'device_not_found' } });
        expect(eventsOf('ns.up.data.receive', ids, from)).toEqual([]);
        expect(count.writes()).toBe(1); // The one refused, from what it remembered.
        // FCnt 6: new on what this NS remembers; stored, it is the latest: a retransmission, not forwarded again.
        const [six] = uplink(dataUp('26000011', 6), [{ gateway: 'gtw-weak', snr: 0 }]);
        expect(await handle(on('868500000', six))).toEqual({ ok: {} });
        expect(store.findBySessionDevAddr).toHaveBeenCalledTimes(2);
        expect((await get(ids, ['session'])).ok).toMatchObject({ session: { last_f_cnt_up: 6 } });
        // FCnt 7: what this NS wrote last is the device as stored again; one statement.
        const reads = count.reads();
        expect(await handle(uplink(dataUp('26000011', 7), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toEqual({ ok: {} });
        expect(count.reads()).toBe(reads);
        await eventually(() => eventsOf('ns.up.data.forward', ids, from).length === 1, 3000);
        await new Promise((r) => setTimeout(r, 200));
        expect(atAs.length).toBe(forwarded + 1);
        expect(lastUplinkAtAs().uplink_message).toMatchObject({ f_cnt: 7 });
        expect((await get(ids, ['session'])).ok).toMatchObject({ session: { last_f_cnt_up: 7 } });
        await events.take();
      });

      it('a device another replica deleted is not found; a session another replica replaced no longer matches, its successor does', async () => {
        const gone = await abp('26000012');
        expect(await handle(uplink(dataUp('26000012', 1), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toEqual({ ok: {} });
        await replica.delete({ application_ids: { application_id: APP }, device_id: gone.device_id }, rpcContext('NsEndDeviceRegistry.Delete', universal));
        let from = events.all.length;
        expect(await handle(uplink(dataUp('26000012', 2), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toMatchObject({ error: { name: 'device_not_found' } });
        expect(eventsOf('ns.up.data.receive', gone, from)).toEqual([]);
        expect(eventsOf('ns.up.data.drop', gone, from)).toEqual([]);
        expect(await store.get(APP, gone.device_id)).toBeUndefined();

        const replaced = await abp('26000013');
        expect(await handle(uplink(dataUp('26000013', 1), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toEqual({ ok: {} });
        const session = { dev_addr: '26000013', keys: { f_nwk_s_int_key: { key: OTHER_KEY }, session_key_id: 'NEW' } };
        await replica.modify(key(replaced), (device) => ({ device: { ...device, session }, result: undefined }));
        from = events.all.length;
        expect(await handle(uplink(dataUp('26000013', 2), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toMatchObject({ error: { name: 'device_not_found' } });
        expect(eventsOf('ns.up.data.receive', replaced, from)).toEqual([]);
        expect(await handle(uplink(dataUp('26000013', 1, { nwkKey: OTHER_KEY }), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toEqual({ ok: {} });
        expect((await get(replaced, ['session'])).ok).toMatchObject({ session: { last_f_cnt_up: 1, keys: { session_key_id: 'NEW' } } });
        await events.take();
      });
    });

    it('ignores a LoRaWAN 1.0.4 uplink whose MACPayload is longer than its data rate allows (SF12: 59 bytes), not at a rate that allows it', async () => {
      const abp = await device({ supportsJoin: false, version: 'MAC_V1_0_4', devAddr: '26000003' });
      const long = dataUp('26000003', 1, { payload: 'x'.repeat(60) });
      const [copy] = uplink(long, [{ gateway: 'gtw-weak', snr: 0 }]);
      const sf12 = { ...copy, settings: { ...copy.settings, data_rate: { lora: { spreading_factor: 12, bandwidth: 125000 } } } };
      expect(await handle(sf12)).toMatchObject({ error: { name: 'device_not_found' } });
      expect(await handle({ ...copy, settings: { ...copy.settings, frequency: '868300000' } })).toEqual({ ok: {} });
      expect((await get(abp, ['session'])).ok).toMatchObject({ session: { last_f_cnt_up: 1 } });
      await events.take();
    });

    it('recovers the 32-bit FCnt past 0xFFFF (an ABP session at FCnt 65535), and keeps FPort 0 uplinks in the NS', async () => {
      const abp = await device({ supportsJoin: false });
      const set = await ns.call(
        'NsEndDeviceRegistry.Set',
        {
          end_device: {
            ids: abp,
            session: { dev_addr: '26000001', last_f_cnt_up: 0xffff, keys: { f_nwk_s_int_key: { key: NWK_KEY }, session_key_id: 'ABP1' } },
          },
          field_mask: { paths: ['session.last_f_cnt_up', 'session.keys.session_key_id'] },
        },
        rpcContext('NsEndDeviceRegistry.Set', universal),
      );
      expect(set).not.toHaveProperty('error');
      const before = atAs.length;
      expect(await handle(uplink(dataUp('26000001', 0x10001), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toEqual({ ok: {} });
      await eventually(() => atAs.length === before + 1, 3000);
      expect(lastUplinkAtAs().uplink_message).toMatchObject({ f_cnt: 0x10001, session_key_id: 'ABP1' });
      expect((await get(abp, ['session'])).ok).toMatchObject({ session: { last_f_cnt_up: 0x10001 } });
      expect(await handle(uplink(dataUp('26000001', 0x10002, { fPort: 0, payload: '\u0002' }), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toEqual({ ok: {} });
      await new Promise((r) => setTimeout(r, 300));
      expect(atAs.length).toBe(before + 1);
      expect((await get(abp, ['session'])).ok).toMatchObject({ session: { last_f_cnt_up: 0x10002 } });
      await events.take();
    });

    it('refuses an FCnt more than MAX_FCNT_GAP (16384) ahead of the last one (LoRaWAN 1.0.3): no match, the device untouched', async () => {
      const abp = await device({ supportsJoin: false });
      const session = { dev_addr: '26000005', last_f_cnt_up: 10, keys: { f_nwk_s_int_key: { key: NWK_KEY }, session_key_id: 'ABP5' } };
      const set = await ns.call(
        'NsEndDeviceRegistry.Set',
        { end_device: { ids: abp, session }, field_mask: { paths: ['session.dev_addr', 'session.last_f_cnt_up', 'session.keys.session_key_id'] } },
        rpcContext('NsEndDeviceRegistry.Set', universal),
      );
      expect(set).not.toHaveProperty('error');
      const before = atAs.length;
      expect(await handle(uplink(dataUp('26000005', 10 + 16385), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toMatchObject({ error: { name: 'device_not_found' } });
      expect((await get(abp, ['session'])).ok).toMatchObject({ session: { last_f_cnt_up: 10 } });
      // The largest gap allowed.
      expect(await handle(uplink(dataUp('26000005', 10 + 16384), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toEqual({ ok: {} });
      expect((await get(abp, ['session'])).ok).toMatchObject({ session: { last_f_cnt_up: 10 + 16384 } });
      await eventually(() => atAs.length === before + 1, 3000);
      await events.take();
    });

    it('keeps recent_uplinks to NS_RECENT_UPLINKS (3 here), recent_adr_uplinks to the uplinks since the last one without ADR', async () => {
      const abp = await device({ supportsJoin: false });
      const session = { dev_addr: '26000004', keys: { f_nwk_s_int_key: { key: NWK_KEY }, session_key_id: 'ABP3' } };
      const set = await ns.call(
        'NsEndDeviceRegistry.Set',
        { end_device: { ids: abp, session }, field_mask: { paths: ['session.dev_addr', 'session.keys.session_key_id'] } },
        rpcContext('NsEndDeviceRegistry.Set', universal),
      );
      expect(set).not.toHaveProperty('error');
      type Recent = { payload: { mac_payload: { f_hdr: { f_cnt: number } } } };
      const fCnts = (list: unknown) => ((list ?? []) as Recent[]).map((u) => u.payload.mac_payload.f_hdr.f_cnt);
      const adr = [true, false, true, true, true];
      for (const [i, bit] of adr.entries()) {
        expect(await handle(uplink(dataUp('26000004', i + 1, { adr: bit }), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toEqual({ ok: {} });
      }
      const stored = (await get(abp, ['mac_state', 'recent_uplinks', 'recent_adr_uplinks'])).ok as Record<string, unknown> & {
        mac_state: { recent_uplinks: unknown };
      };
      expect(fCnts(stored.mac_state.recent_uplinks)).toEqual([3, 4, 5]);
      expect(fCnts(stored.recent_uplinks)).toEqual([3, 4, 5]);
      // The MAC state's uplinks keep the uplink tokens (downlink paths); the device's lists a summary without them.
      const metadataOf = (list: unknown) => ((list ?? []) as Array<{ rx_metadata: Array<Record<string, unknown>> }>).at(-1)?.rx_metadata[0];
      expect(metadataOf(stored.mac_state.recent_uplinks)).toMatchObject({ gateway_ids: { gateway_id: 'gtw-weak' }, uplink_token: expect.any(String) });
      expect(metadataOf(stored.recent_uplinks)).toMatchObject({ gateway_ids: { gateway_id: 'gtw-weak' }, snr: 0 });
      expect(metadataOf(stored.recent_uplinks)).not.toHaveProperty('uplink_token');
      // Only the latest of the MAC state's uplinks keeps its tokens.
      const first = (stored.mac_state.recent_uplinks as Array<{ rx_metadata: Array<Record<string, unknown>> }>)[0].rx_metadata[0];
      expect(first).toMatchObject({ gateway_ids: { gateway_id: 'gtw-weak' } });
      expect(first).not.toHaveProperty('uplink_token');
      // Reset by FCnt 2 (no ADR bit), then FCnt 3, 4 and 5.
      expect(fCnts(stored.recent_adr_uplinks)).toEqual([3, 4, 5]);
      expect(await handle(uplink(dataUp('26000004', 6), [{ gateway: 'gtw-weak', snr: 0 }])[0])).toEqual({ ok: {} });
      expect((await get(abp, ['recent_adr_uplinks'])).ok.recent_adr_uplinks ?? []).toEqual([]);
      await events.take();
    });

    it('answers a confirmed uplink in its receive windows with the queue head: ACK, the AS’s FCnt and FRMPayload, a MIC lora-packet verifies; the queue moves on', async () => {
      const abp = await device({ supportsJoin: false });
      const queued = loraPacket.fromFields(
        { MType: 'Unconfirmed Data Down', DevAddr: Buffer.from('26000002', 'hex'), FCnt: 0, FPort: 5, payload: Buffer.from('down!') },
        APP_S_KEY,
        Buffer.from(NWK_KEY, 'hex'),
      );
      const set = await ns.call(
        'NsEndDeviceRegistry.Set',
        {
          end_device: {
            ids: abp,
            session: {
              dev_addr: '26000002',
              keys: { f_nwk_s_int_key: { key: NWK_KEY }, session_key_id: 'ABP2' },
              queued_application_downlinks: [{ session_key_id: 'ABP2', f_port: 5, f_cnt: 0, frm_payload: (queued.FRMPayload as Buffer).toString('base64') }],
            },
          },
          field_mask: { paths: ['session.dev_addr', 'session.keys.session_key_id', 'session.queued_application_downlinks'] },
        },
        rpcContext('NsEndDeviceRegistry.Set', universal),
      );
      expect(set).not.toHaveProperty('error');
      const before = downlinks.length;
      const copies = uplink(dataUp('26000002', 1, { confirmed: true }), [
        { gateway: 'gtw-weak', snr: -1 },
        { gateway: 'gtw-strong', snr: 6 },
      ]);
      expect(await Promise.all(copies.map(handle))).toEqual([{ ok: {} }, { ok: {} }]);
      await eventually(() => downlinks.length === before + 1, 3000);
      const sent = downlinks[before];
      expect(sent.gateway).toBe('gtw-strong');
      const request = sent.body.body as { raw_payload: string; request: Record<string, unknown> };
      // EU_863_870_TTN, uplink SF7 on 868.1 MHz: RX1 the same channel and rate 1 s later, RX2 869.525 MHz SF12.
      expect(request.request).toMatchObject({
        class: 'CLASS_A',
        rx1_delay: 1,
        rx1_frequency: '868100000',
        rx1_data_rate: { lora: { spreading_factor: 7, bandwidth: 125000 } },
        rx2_frequency: '869525000',
        rx2_data_rate: { lora: { spreading_factor: 12, bandwidth: 125000 } },
      });
      const frame = loraPacket.fromWire(Buffer.from(request.raw_payload, 'base64'));
      expect(frame.getMType()).toBe('Unconfirmed Data Down');
      expect(frame.getFCtrlACK()).toBe(true);
      expect(frame.getFCnt()).toBe(0);
      expect(frame.getFPort()).toBe(5);
      expect(loraPacket.verifyMIC(frame, Buffer.from(NWK_KEY, 'hex'))).toBe(true);
      expect(loraPacket.decrypt(frame, APP_S_KEY, Buffer.from(NWK_KEY, 'hex')).toString()).toBe('down!');
      for (let i = 0; ; i++) {
        const st = (await get(abp, ['session'])).ok as { session: { queued_application_downlinks?: unknown[]; last_n_f_cnt_down?: number } };
        if ((st.session.queued_application_downlinks ?? []).length === 0 && st.session.last_n_f_cnt_down === 0) break;
        if (i > 100) throw new Error(`the queue did not move on: ${JSON.stringify(st.session)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const after = (await get(abp, ['mac_state'])).ok as { mac_state: { rx_windows_available: boolean; recent_downlinks: unknown[] } };
      expect(after.mac_state.rx_windows_available).toBe(false);
      expect(after.mac_state.recent_downlinks).toHaveLength(1);
      // The gateway's TX acknowledgment: the AS hears downlink_sent (the AS's FRMPayload, FCnt and FPort), or downlink_failed with the reason.
      const sentRequest = sent.body.body as { end_device_ids: unknown; correlation_ids: string[] };
      const atAsBefore = atAs.length;
      const ack = (result: string) =>
        ns.call(
          'GsNs.ReportTxAcknowledgment',
          { result, downlink_message: { end_device_ids: sentRequest.end_device_ids, correlation_ids: sentRequest.correlation_ids } },
          rpcContext('GsNs.ReportTxAcknowledgment'),
        );
      expect(await ack('SUCCESS')).toEqual({ ok: {} });
      expect(await ack('TOO_LATE')).toEqual({ ok: {} });
      const results = atAs.slice(atAsBefore).map((r) => (r.body as { application_ups: Array<Record<string, unknown>> }).application_ups[0]);
      expect(results[0].downlink_sent).toMatchObject({
        f_port: 5,
        f_cnt: 0,
        session_key_id: 'ABP2',
        frm_payload: (queued.FRMPayload as Buffer).toString('base64'),
        confirmed: false,
      });
      expect(results[1].downlink_failed).toMatchObject({
        downlink: { f_port: 5, f_cnt: 0 },
        error: { name: 'transmission', attributes: { result: 'TOO_LATE' } },
      });
      expect(events.all.map((e) => e.name)).toEqual(expect.arrayContaining(['ns.down.transmission.success', 'ns.down.transmission.fail']));
      // An unconfirmed uplink with nothing queued gets no downlink.
      await handle(uplink(dataUp('26000002', 2), [{ gateway: 'gtw-strong', snr: 6 }])[0]);
      await new Promise((r) => setTimeout(r, 400));
      expect(downlinks.length).toBe(before + 1);
      await events.take();
    });

    /** The downlink a GS hands back with a gateway's TX acknowledgment (`downlinks.service.ts`): built from the request alone, no NS memory. */
    function handedBack(body: Record<string, unknown>): Record<string, unknown> {
      const { end_device_ids, payload, correlation_ids, session_key_id, raw_payload, request, next_paths } = body;
      return {
        end_device_ids,
        payload,
        correlation_ids,
        session_key_id,
        ...((next_paths as unknown[] | undefined)?.length ? { raw_payload, request, next_paths } : {}),
      };
    }

    it('a downlink its gateway refuses (TX_ACK) goes out through the next gateway of its path, the same frame; the AS hears the outcome once; with no gateway left the last refusal stands', async () => {
      const abp = await device({ supportsJoin: false });
      const queued = (fCnt: number, text: string) =>
        loraPacket.fromFields(
          { MType: 'Confirmed Data Down', DevAddr: Buffer.from('26000007', 'hex'), FCnt: fCnt, FPort: 9, payload: Buffer.from(text) },
          APP_S_KEY,
          Buffer.from(NWK_KEY, 'hex'),
        );
      const item = (fCnt: number, text: string) => ({
        session_key_id: 'ABP7',
        f_port: 9,
        f_cnt: fCnt,
        confirmed: true,
        frm_payload: (queued(fCnt, text).FRMPayload as Buffer).toString('base64'),
      });
      const set = await ns.call(
        'NsEndDeviceRegistry.Set',
        {
          end_device: {
            ids: abp,
            session: {
              dev_addr: '26000007',
              keys: { f_nwk_s_int_key: { key: NWK_KEY }, session_key_id: 'ABP7' },
              queued_application_downlinks: [item(0, 'first'), item(1, 'second')],
            },
          },
          field_mask: { paths: ['session.dev_addr', 'session.keys.session_key_id', 'session.queued_application_downlinks'] },
        },
        rpcContext('NsEndDeviceRegistry.Set', universal),
      );
      expect(set).not.toHaveProperty('error');
      await events.take();
      const ack = (result: string, body: Record<string, unknown>) =>
        ns.call('GsNs.ReportTxAcknowledgment', { result, downlink_message: handedBack(body) }, rpcContext('GsNs.ReportTxAcknowledgment'));
      // What the AS hears of downlinks (the uplinks themselves, and a downlink_nack, go there too).
      const resultsSince = (i: number) =>
        atAs
          .slice(i)
          .map((r) => (r.body as { application_ups: Array<Record<string, unknown>> }).application_ups[0])
          .filter((up) => up.downlink_sent || up.downlink_failed);
      const both = [
        { gateway: 'gtw-weak', snr: -1 },
        { gateway: 'gtw-strong', snr: 6 },
      ];

      // The best gateway takes it; its request names the gateway after it.
      let before = downlinks.length;
      expect(await Promise.all(uplink(dataUp('26000007', 1, { confirmed: true }), both).map(handle))).toEqual([{ ok: {} }, { ok: {} }]);
      await eventually(() => downlinks.length === before + 1, 3000);
      const first = downlinks[before].body.body as Record<string, unknown> & { raw_payload: string; request: Record<string, unknown> };
      expect(downlinks[before].gateway).toBe('gtw-strong');
      expect(first.next_paths).toEqual([{ gateway_id: 'gtw-weak', uplink_token: 'token-gtw-weak' }]);
      // The gateway refuses it: the NS sends the same frame through the weak gateway, in the same windows.
      const atAsBefore = atAs.length;
      expect(await ack('COLLISION_PACKET', first)).toEqual({ ok: {} });
      expect(downlinks).toHaveLength(before + 2);
      const onward = downlinks[before + 1];
      const second = onward.body.body as Record<string, unknown> & { raw_payload: string; request: Record<string, unknown> };
      expect(onward.gateway).toBe('gtw-weak');
      expect(second.raw_payload).toBe(first.raw_payload);
      // (The token as the GS handed it back: base64, as a real one is.)
      expect(second.request).toEqual({ ...first.request, downlink_paths: [{ uplink_token: Buffer.from('token-gtw-weak', 'base64').toString('base64') }] });
      expect(second).not.toHaveProperty('next_paths');
      expect(second.correlation_ids).toEqual(expect.arrayContaining(first.correlation_ids as string[]));
      const frame = loraPacket.fromWire(Buffer.from(second.raw_payload, 'base64'));
      expect([frame.getMType(), frame.getFCnt(), frame.getFCtrlACK()]).toEqual(['Confirmed Data Down', 0, true]);
      expect(loraPacket.verifyMIC(frame, Buffer.from(NWK_KEY, 'hex'))).toBe(true);
      // Not a failure yet: the AS hears nothing until the weak gateway answers, then downlink_sent, once.
      expect(resultsSince(atAsBefore)).toEqual([]);
      expect((await events.take()).map((e) => e.name)).not.toContain(NS_EVENTS.transmissionFail.name);
      expect(await ack('SUCCESS', second)).toEqual({ ok: {} });
      const sentUps = resultsSince(atAsBefore);
      expect(sentUps).toHaveLength(1);
      expect(sentUps[0].downlink_sent).toMatchObject({ f_port: 9, f_cnt: 0, confirmed: true, frm_payload: item(0, 'first').frm_payload });
      expect((await events.take()).map((e) => e.name).filter((n) => n.startsWith('ns.down.transmission'))).toEqual([NS_EVENTS.transmissionSuccess.name]);
      // The device counted the frame once: the second item waits, the first is the pending confirmed downlink.
      const st = (await get(abp, ['session', 'mac_state'])).ok as {
        session: { queued_application_downlinks?: Array<{ f_cnt: number }>; last_n_f_cnt_down?: number };
        mac_state: { recent_downlinks: unknown[]; pending_application_downlink?: { f_cnt: number } };
      };
      expect(st.session.queued_application_downlinks?.map((d) => d.f_cnt)).toEqual([1]);
      expect(st.session.last_n_f_cnt_down).toBe(0);
      expect(st.mac_state.recent_downlinks).toHaveLength(1);
      expect(st.mac_state.pending_application_downlink?.f_cnt).toBe(0);

      // The next downlink: refused by the strong gateway's radio, then by the weak gateway's scheduler: downlink_failed with that last reason.
      before = downlinks.length;
      expect(await Promise.all(uplink(dataUp('26000007', 2, { confirmed: true }), both).map(handle))).toEqual([{ ok: {} }, { ok: {} }]);
      await eventually(() => downlinks.length === before + 1, 3000);
      const third = downlinks[before].body.body as Record<string, unknown>;
      refusingGateways.add('gtw-weak');
      try {
        const failedBefore = atAs.length;
        expect(await ack('TX_FREQ', third)).toEqual({ ok: {} });
        expect(downlinks.slice(before).map((d) => d.gateway)).toEqual(['gtw-strong', 'gtw-weak']);
        const failed = resultsSince(failedBefore);
        expect(failed).toHaveLength(1);
        expect(failed[0].downlink_failed).toMatchObject({ downlink: { f_port: 9, f_cnt: 1 }, error: { namespace: 'pkg/gatewayserver/io', name: 'too_late' } });
        const fail = (await events.take()).find((e) => e.name === NS_EVENTS.transmissionFail.name);
        expect(fail?.data).toMatchObject({ name: 'too_late' });
      } finally {
        refusingGateways.clear();
      }
      await events.take();
    });
  });
});
