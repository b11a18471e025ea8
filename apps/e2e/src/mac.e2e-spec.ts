/**
 * The Network Server's MAC layer end to end, in both run modes (issue 15): devices join over the
 * simulated gateways and exchange MAC commands with the NS in FOpts. Every frame is built and
 * read with `lora-packet` (FOpts written byte by byte, as lora-packet has no MAC command helpers),
 * never with the stack's own codec or crypto.
 */
import loraPacket from 'lora-packet';
import type { EventJson } from '@lorawan/api';
import { SimulatedOtaaDevice, SimulatedUdpGateway, startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { abpAsDevice, abpNsDevice, randomDevAddr, Registries, randomEui, randomKey, uid } from './devices';
import { EventStream } from './event-stream';
import { type ConnectedGateway, connectGateways } from './gateways';
import { Api, createApplications, expectStatus, sleep } from './http-client';

type Start = () => Promise<StackUnderTest>;
const ALL = ['is', 'js', 'ns', 'as', 'events', 'gs'] as const;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: [...ALL] })],
  ['embedded', () => startEmbeddedStack({})],
];

/** GPS time (ms) the simulated gateways report: the GPS epoch plus now, GPS ahead of UTC by 18 s. */
const gpsNowMs = () => Date.now() - Date.UTC(1980, 0, 6) + 18_000;

interface Keys10 {
  nwkSKey: string;
  appSKey: string;
}
interface Keys11 {
  fNwkSIntKey: string;
  sNwkSIntKey: string;
  nwkSEncKey: string;
  appSKey: string;
}

const hexBuf = (hex: string) => Buffer.from(hex, 'hex');
const fCntMsb = (fCnt: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(fCnt >>> 16);
  return b;
};

/** A LoRaWAN 1.0.x data uplink with MAC commands in FOpts (plain in 1.0.x). */
function uplink10(
  keys: Keys10,
  devAddr: string,
  fCnt: number,
  fOpts: number[],
  o: { confirmed?: boolean; adr?: boolean; classB?: boolean; fPort?: number } = {},
): Buffer {
  return loraPacket
    .fromFields(
      {
        MType: o.confirmed ? 'Confirmed Data Up' : 'Unconfirmed Data Up',
        DevAddr: hexBuf(devAddr),
        FCnt: fCnt & 0xffff,
        // Uplink FCtrl bit 4 is the ClassB bit (lora-packet names it by its downlink meaning).
        FCtrl: { ADR: o.adr ?? false, FPending: o.classB ?? false },
        FOpts: Buffer.from(fOpts),
        FPort: o.fPort ?? 1,
        payload: Buffer.from('mac'),
      },
      hexBuf(keys.appSKey),
      hexBuf(keys.nwkSKey),
      undefined,
      fCntMsb(fCnt),
    )
    .getPHYPayload() as Buffer;
}

/**
 * A LoRaWAN 1.1 data uplink: FOpts encrypted with the NwkSEncKey (the FCntDown errata's scheme), the
 * MIC over SNwkSIntKey and FNwkSIntKey with the data rate and channel it goes out on (EU DR5, channel 0).
 */
function uplink11(keys: Keys11, devAddr: string, fCnt: number, fOpts: number[]): Buffer {
  const packet = loraPacket.fromFields(
    { MType: 'Unconfirmed Data Up', DevAddr: hexBuf(devAddr), FCnt: fCnt & 0xffff, FOpts: Buffer.from(fOpts), FPort: 1, payload: Buffer.from('mac') },
    hexBuf(keys.appSKey),
    hexBuf(keys.sNwkSIntKey),
    undefined,
    fCntMsb(fCnt),
  );
  if (fOpts.length > 0) packet.encryptFOpts(hexBuf(keys.nwkSEncKey), undefined, fCntMsb(fCnt));
  const withMic = loraPacket.fromWire(packet.getPHYPayload() as Buffer);
  // lora-packet: the B0 block's key first (FNwkSIntKey), then the B1 block's (SNwkSIntKey, with ConfFCnt, TxDr, TxCh).
  loraPacket.recalculateMIC(withMic, hexBuf(keys.fNwkSIntKey), hexBuf(keys.sNwkSIntKey), fCntMsb(fCnt), Buffer.from([0, 0, 5, 0]));
  // The MIC is the frame's last 4 bytes.
  const raw = Buffer.from(packet.getPHYPayload() as Buffer);
  (withMic.MIC as Buffer).copy(raw, raw.length - 4);
  return raw;
}

/** What these tests read of the NS registry's device. */
interface NsView {
  session?: { dev_addr?: string; last_f_cnt_up?: number };
  pending_session?: { dev_addr?: string };
  battery_percentage?: number;
  power_state?: string;
  downlink_margin?: number;
  last_dev_status_received_at?: string;
  mac_state: {
    device_class?: string;
    lorawan_version?: string;
    last_network_initiated_downlink_at?: string;
    last_dev_status_f_cnt_up?: number;
    pending_requests?: unknown[];
    current_parameters: Record<string, unknown>;
    desired_parameters: Record<string, unknown>;
  };
}

describe.each(MODES)('the MAC layer (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  let api: Api;
  let reg: Registries;
  const app = uid('app');
  const opened: Array<{ close(): void }> = [];
  const gateways: ConnectedGateway[] = [];

  beforeAll(async () => {
    stack = await start();
    api = new Api(() => stack);
    reg = new Registries(api);
    await createApplications(api, [app]);
    gateways.push(...(await connectGateways(api, stack, { count: 2, replicas: false })));
    opened.push(...gateways.map((g) => g.udp));
  }, 120_000);

  afterAll(async () => {
    for (const o of opened) o.close();
    await stack?.stop();
  });

  const ns = async (dev: string, paths: string[]) => (await reg.getOk('ns', app, dev, paths)).json as NsView;

  async function events(dev: string): Promise<EventStream> {
    const stream = await EventStream.open(stack.baseUrl, {
      authorization: `Bearer ${stack.adminKey}`,
      body: { identifiers: [{ device_ids: { device_id: dev, application_ids: { application_id: app } } }] },
    });
    opened.push(stream);
    expect((await stream.nextEvent()).name).toBe('events.stream.start');
    return stream;
  }

  async function until(stream: EventStream, name: string, seen: EventJson[] = []): Promise<EventJson> {
    for (;;) {
      const event = await stream.nextEvent(10_000);
      seen.push(event);
      if (event.name === name) return event;
    }
  }

  /** The first defined value `read` gives within 2 s. */
  async function eventually<T>(read: () => Promise<T | undefined>): Promise<T | undefined> {
    for (let i = 0; i < 100; i++) {
      const value = await read();
      if (value !== undefined) return value;
      await sleep(20);
    }
    return undefined;
  }

  /** The requests the NS recorded for the downlink it just had sent (it records them once the GS took it). */
  const pendingRequests = (dev: string) => eventually(async () => (await ns(dev, ['mac_state'])).mac_state.pending_requests);

  /** An OTAA device in every registry, joined through gateway 1. */
  async function joinedDevice(version: 'MAC_V1_0_3' | 'MAC_V1_1', nsFields: Record<string, unknown> = {}) {
    const dev = uid('dev');
    const ids = { device_id: dev, dev_eui: randomEui(), join_eui: randomEui() };
    const appKey = randomKey();
    const nwkKey = version === 'MAC_V1_1' ? randomKey() : undefined;
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
    await reg.setOk('js', app, dev, { ids, root_keys: { app_key: { key: appKey }, ...(nwkKey ? { nwk_key: { key: nwkKey } } : {}) } }, [
      'root_keys.app_key.key',
      ...(nwkKey ? ['root_keys.nwk_key.key'] : []),
    ]);
    const device = {
      ids,
      frequency_plan_id: 'EU_863_870_TTN',
      lorawan_version: version,
      lorawan_phy_version: version === 'MAC_V1_1' ? 'PHY_V1_1_REV_B' : 'PHY_V1_0_3_REV_A',
      supports_join: true,
      ...nsFields,
    };
    await reg.setOk(
      'ns',
      app,
      dev,
      device,
      Object.keys(device).filter((k) => k !== 'ids'),
    );
    await reg.setOk('as', app, dev, { ids, formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } }, ['formatters']);
    const sim = new SimulatedOtaaDevice({ joinEui: ids.join_eui, devEui: ids.dev_eui, appKey, nwkKey, macVersion: version });
    const gw = gateways[1];
    const before = gw.udp.downlinks.length;
    await gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(sim.joinRequest(), { tmst: 1_000_000 })] });
    const down = (await gw.udp.waitForDownlinks(before + 1, 5000))[before];
    const joined = sim.acceptJoin(Buffer.from(down.txpk.data as string, 'base64'));
    for (let i = 0; (await ns(dev, ['pending_session'])).pending_session?.dev_addr !== joined.devAddr; i++) {
      if (i > 100) throw new Error('the NS did not store the pending session');
      await sleep(20);
    }
    return { dev, devAddr: joined.devAddr, keys: joined.keys };
  }

  let tmst = 10_000_000;
  /** Pushes an uplink through gateway `gw` and returns the frame the gateway is asked to send next. */
  async function exchange(frame: Buffer, o: { gw?: number; lsnr?: number; datr?: string; gps?: boolean; timeoutMs?: number } = {}) {
    const gw = gateways[o.gw ?? 1];
    const before = gw.udp.downlinks.length;
    tmst += 1_000_000;
    const rxpk = { ...SimulatedUdpGateway.rxpk(frame, { tmst, lsnr: o.lsnr, datr: o.datr }), ...(o.gps ? { tmms: gpsNowMs() } : {}) };
    await gw.udp.push({ rxpk: [rxpk] });
    const down = (await gw.udp.waitForDownlinks(before + 1, o.timeoutMs ?? 5000))[before];
    return { down, txpk: down.txpk, packet: loraPacket.fromWire(Buffer.from(down.txpk.data as string, 'base64')), tmst };
  }

  /** Pushes an uplink that needs no answer, and waits until the NS stored its FCnt. */
  async function send(dev: string, frame: Buffer, fCnt: number, o: { gw?: number; lsnr?: number; datr?: string; gps?: boolean } = {}) {
    tmst += 1_000_000;
    const rxpk = { ...SimulatedUdpGateway.rxpk(frame, { tmst, lsnr: o.lsnr, datr: o.datr }), ...(o.gps ? { tmms: gpsNowMs() } : {}) };
    await gateways[o.gw ?? 1].udp.push({ rxpk: [rxpk] });
    for (let i = 0; (await ns(dev, ['session'])).session?.last_f_cnt_up !== fCnt; i++) {
      if (i > 200) throw new Error(`the NS did not store FCnt ${fCnt}`);
      await sleep(20);
    }
  }

  it('LinkCheckReq, DeviceTimeReq, DevStatusReq/Ans, RxParamSetup and RxTimingSetup negotiated, an unknown CID, ADR (1.0.3)', async () => {
    const d = await joinedDevice('MAC_V1_0_3');
    const keys = d.keys as Keys10;
    const stream = await events(d.dev);

    // LinkCheckReq + DeviceTimeReq, heard by both gateways (the strong one reports GPS time).
    const frame = uplink10(keys, d.devAddr, 0, [0x02, 0x0d]);
    const gpsMs = gpsNowMs();
    await gateways[0].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, { tmst: 2_000_000, lsnr: -3 })] });
    const before = gateways[1].udp.downlinks.length;
    await gateways[1].udp.push({ rxpk: [{ ...SimulatedUdpGateway.rxpk(frame, { tmst: 3_000_000, lsnr: 8 }), tmms: gpsMs }] });
    const first = loraPacket.fromWire(Buffer.from((await gateways[1].udp.waitForDownlinks(before + 1, 5000))[before].txpk.data as string, 'base64'));
    expect(loraPacket.verifyMIC(first, hexBuf(keys.nwkSKey))).toBe(true);
    const fOpts = first.FOpts as Buffer;
    // LinkCheckAns: margin = best SNR 8 − SF7's demodulation floor −7.5 = 15 (whole dB), 2 gateways.
    expect([...fOpts.subarray(0, 3)]).toEqual([0x02, 15, 2]);
    // DeviceTimeAns: the GPS time the strong gateway reported, in seconds and 1/256 s.
    expect(fOpts[3]).toBe(0x0d);
    expect(fOpts.readUInt32LE(4)).toBe(Math.floor(gpsMs / 1000));
    // DevStatusReq: no status was ever received.
    expect([...fOpts.subarray(9)]).toEqual([0x06]);
    // The NS records what it asked once the GS took the downlink (the gateway may have it first).
    const asked = await pendingRequests(d.dev);
    expect(asked).toEqual([{ cid: 'CID_DEV_STATUS', dev_status_req: {} }]);
    const seen: EventJson[] = [];
    await until(stream, 'ns.mac.dev_status.request', seen);
    expect(seen.map((e) => e.name)).toEqual(expect.arrayContaining(['ns.mac.link_check.request', 'ns.mac.link_check.answer', 'ns.mac.device_time.answer']));

    // DevStatusAns: battery 128 of 254, margin 10 dB.
    await send(d.dev, uplink10(keys, d.devAddr, 1, [0x06, 128, 10]), 1);
    const status = await ns(d.dev, ['battery_percentage', 'power_state', 'downlink_margin', 'last_dev_status_received_at', 'mac_state']);
    expect(status.battery_percentage).toBeCloseTo(127 / 253, 5);
    expect(status.power_state).toBe('POWER_BATTERY');
    expect(status.downlink_margin).toBe(10);
    expect(Date.parse(status.last_dev_status_received_at ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(status.mac_state.last_dev_status_f_cnt_up).toBe(1);
    expect(status.mac_state.pending_requests).toBeUndefined();
    await until(stream, 'ns.mac.dev_status.answer');

    // A desired setting changed in the NS registry is negotiated at the next downlink opportunity.
    await reg.setOk('ns', app, d.dev, { ids: { device_id: d.dev }, mac_settings: { desired_rx2_data_rate_index: 2, desired_rx1_delay: 2 } }, [
      'mac_settings.desired_rx2_data_rate_index',
      'mac_settings.desired_rx1_delay',
    ]);
    expect((await ns(d.dev, ['mac_state'])).mac_state.desired_parameters).toMatchObject({ rx2_data_rate_index: 2, rx1_delay: 2 });
    const negotiation = await exchange(uplink10(keys, d.devAddr, 2, []));
    // RxParamSetupReq (RX1 DR offset 0, RX2 DR2 on 869.525 MHz), RxTimingSetupReq (2 s).
    const freq = 869_525_000 / 100;
    expect([...(negotiation.packet.FOpts as Buffer)]).toEqual([0x05, 0x02, freq & 0xff, (freq >> 8) & 0xff, freq >> 16, 0x08, 0x02]);
    // Both acknowledged (once the NS recorded its requests: a device answers a second later at the earliest): current from now on.
    await pendingRequests(d.dev);
    await send(d.dev, uplink10(keys, d.devAddr, 3, [0x05, 0x07, 0x08]), 3);
    expect((await ns(d.dev, ['mac_state'])).mac_state.current_parameters).toMatchObject({ rx2_data_rate_index: 2, rx1_delay: 2 });
    // The next downlink uses them: RX1 two seconds after the uplink, RX2 at SF10.
    const confirmed = await exchange(uplink10(keys, d.devAddr, 4, [], { confirmed: true }));
    expect(confirmed.packet.getFCtrlACK()).toBe(true);
    expect(confirmed.txpk.tmst).toBe(confirmed.tmst + 2_000_000);
    const fCntDown = confirmed.packet.getFCnt();
    let attempt: EventJson;
    do attempt = await until(stream, 'ns.down.data.schedule.attempt');
    while ((attempt.data as { payload?: { mac_payload?: { f_hdr?: { f_cnt?: number } } } }).payload?.mac_payload?.f_hdr?.f_cnt !== fCntDown);
    expect(attempt.data).toMatchObject({ request: { rx1_delay: 2, rx2_data_rate: { lora: { spreading_factor: 10 } }, rx2_frequency: '869525000' } });

    // An unknown CID: the rest of FOpts is ignored, the uplink itself handled.
    await send(d.dev, uplink10(keys, d.devAddr, 5, [0x80, 0x06, 0x00, 0x00]), 5);
    expect((await until(stream, 'ns.mac.command.unknown')).data).toMatchObject({ cid: '0x80' });
    expect((await ns(d.dev, ['downlink_margin'])).downlink_margin).toBe(10);

    // ADR: a strong SF12 uplink with the ADR bit → LinkADRReq for DR5 on the plan's 8 channels.
    const adr = await exchange(uplink10(keys, d.devAddr, 6, [], { adr: true }), { datr: 'SF12BW125', lsnr: 10 });
    const req = adr.packet.FOpts as Buffer;
    expect(req[0]).toBe(0x03);
    expect(req[1] >> 4).toBe(5);
    expect(req.readUInt16LE(2)).toBe(0x00ff);
    await pendingRequests(d.dev);
    await send(d.dev, uplink10(keys, d.devAddr, 7, [0x03, 0x07], { adr: true }), 7);
    const adrState = (await ns(d.dev, ['mac_state'])).mac_state;
    expect(adrState.current_parameters.adr_data_rate_index).toBe(5);
    expect(adrState.current_parameters.adr_tx_power_index).toBe(req[1] & 0x0f);

    // A weak link: an uplink without the ADR bit starts the ADR uplinks afresh, then the device at
    // DR5 (SF7) and full power is heard below SF7's demodulation floor → a lower data rate.
    expect(adrState.current_parameters.adr_tx_power_index).toBe(0);
    const gw = gateways[1].udp;
    const mark = gw.downlinks.length;
    await send(d.dev, uplink10(keys, d.devAddr, 8, []), 8);
    await send(d.dev, uplink10(keys, d.devAddr, 9, [], { adr: true }), 9, { lsnr: -12 });
    // FCnt 8 may have had its own downlink (the LinkADRReq of FCnt 7's ADR run): the answer to FCnt 9 is a later one.
    const lowered = await eventually(async () =>
      gw.downlinks
        .slice(mark)
        .map((down) => loraPacket.fromWire(Buffer.from(down.txpk.data as string, 'base64')).FOpts as Buffer | undefined)
        .find((fOpts) => fOpts?.[0] === 0x03 && fOpts[1] >> 4 < 5),
    );
    expect(lowered).toBeDefined();
  }, 120_000);

  it('LoRaWAN 1.1: the first uplink needs RekeyInd; then pending_session becomes session; DeviceModeInd switches to class C (encrypted FOpts)', async () => {
    const d = await joinedDevice('MAC_V1_1', { supports_class_c: true, mac_settings: { status_count_periodicity: 0, status_time_periodicity: '0s' } });
    const keys = d.keys as Keys11;
    const stream = await events(d.dev);
    // Without RekeyInd: dropped, the join still pending.
    await gateways[1].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(uplink11(keys, d.devAddr, 0, []), { tmst: 4_000_000 })] });
    expect((await until(stream, 'ns.up.data.drop')).data).toMatchObject({ name: 'rekey_ind_missing' });
    expect((await ns(d.dev, ['pending_session'])).pending_session?.dev_addr).toBe(d.devAddr);
    // RekeyInd (1.1) and DeviceModeInd (class C).
    const answer = await exchange(uplink11(keys, d.devAddr, 1, [0x0b, 0x01, 0x20, 0x02]));
    const stored = await ns(d.dev, ['session', 'pending_session', 'mac_state']);
    expect(stored.session?.dev_addr).toBe(d.devAddr);
    expect(stored.pending_session).toBeUndefined();
    expect(stored.mac_state.device_class).toBe('CLASS_C');
    expect(stored.mac_state.lorawan_version).toBe('MAC_V1_1');
    // RekeyConf (1.1) and DeviceModeConf (class C), encrypted with the NwkSEncKey.
    const down = answer.packet;
    expect(loraPacket.verifyMIC(down, hexBuf(keys.sNwkSIntKey), hexBuf(keys.sNwkSIntKey), undefined, Buffer.alloc(2))).toBe(true);
    expect([...down.decryptFOpts(hexBuf(keys.nwkSEncKey))]).toEqual([0x0b, 0x01, 0x20, 0x02]);
    const seen: EventJson[] = [];
    await until(stream, 'ns.mac.device_mode.confirmation', seen);
    expect(seen.map((e) => e.name)).toEqual(expect.arrayContaining(['ns.mac.rekey.indication', 'ns.mac.rekey.confirmation', 'ns.class.switch.c']));
  }, 60_000);

  it('LoRaWAN 1.1 ABP: ResetInd → ResetConf; DutyCycleReq, NewChannelReq, LinkADRReq and ADRParamSetupReq in an FPort 0 payload, answered and current', async () => {
    const dev = uid('abp11');
    const ids = { device_id: dev, dev_eui: randomEui() };
    const devAddr = randomDevAddr();
    const keys: Keys11 = { fNwkSIntKey: randomKey(), sNwkSIntKey: randomKey(), nwkSEncKey: randomKey(), appSKey: randomKey() };
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
    const base = abpNsDevice(ids, devAddr, keys.fNwkSIntKey, {
      frequency_plan_id: 'EU_863_870_TTN',
      lorawan_version: 'MAC_V1_1',
      lorawan_phy_version: 'PHY_V1_1_REV_B',
      mac_settings: {
        status_count_periodicity: 0,
        status_time_periodicity: '0s',
        desired_rx2_data_rate_index: 0,
        desired_max_duty_cycle: 'DUTY_CYCLE_4',
        desired_adr_ack_limit_exponent: 'ADR_ACK_LIMIT_128',
      },
    });
    const device = {
      ...base.device,
      session: {
        ...(base.device.session as Record<string, unknown>),
        keys: {
          session_key_id: 'AQID',
          f_nwk_s_int_key: { key: keys.fNwkSIntKey },
          s_nwk_s_int_key: { key: keys.sNwkSIntKey },
          nwk_s_enc_key: { key: keys.nwkSEncKey },
        },
      },
    };
    await reg.setOk('ns', app, dev, device, [...base.paths, 'session.keys.s_nwk_s_int_key.key', 'session.keys.nwk_s_enc_key.key']);
    const stream = await events(dev);
    // ResetInd (1.1), encrypted in FOpts.
    const answer = await exchange(uplink11(keys, devAddr, 0, [0x01, 0x01]));
    const down = answer.packet;
    expect(down.getFPort()).toBe(0);
    expect(loraPacket.verifyMIC(down, hexBuf(keys.sNwkSIntKey), hexBuf(keys.sNwkSIntKey), undefined, Buffer.alloc(2))).toBe(true);
    // FPort 0: the commands are the FRMPayload, encrypted with the NwkSEncKey.
    const commands = loraPacket.decrypt(down, undefined, hexBuf(keys.nwkSEncKey));
    const read: number[] = [];
    const lengths: Record<number, number> = { 0x01: 1, 0x03: 4, 0x04: 1, 0x07: 5, 0x0c: 1 };
    for (let i = 0; i < commands.length; i += 1 + lengths[commands[i]]) read.push(commands[i]);
    expect(read).toEqual([0x01, 0x04, 0x07, 0x07, 0x07, 0x07, 0x07, 0x03, 0x0c]);
    // ResetConf (1.1), DutyCycleReq (1/4: MaxDCycle 2), the plan's first extra channel (867.1 MHz, DR0–5), ADRParamSetupReq (limit 128 = 7).
    expect([...commands.subarray(0, 4)]).toEqual([0x01, 0x01, 0x04, 2]);
    expect([...commands.subarray(4, 10)]).toEqual([0x07, 3, ...[8671000 & 0xff, (8671000 >> 8) & 0xff, 8671000 >> 16], 0x50]);
    expect(commands[commands.length - 1] >> 4).toBe(7);
    const seen: EventJson[] = [];
    await until(stream, 'ns.mac.adr_param_setup.request', seen);
    expect(seen.map((e) => e.name)).toEqual(expect.arrayContaining(['ns.mac.reset.indication', 'ns.mac.reset.confirmation', 'ns.mac.new_channel.request']));
    // All accepted, in 14 bytes of FOpts.
    const acks = [0x04, ...[0, 1, 2, 3, 4].flatMap(() => [0x07, 0x03]), 0x03, 0x07, 0x0c];
    await pendingRequests(dev);
    await send(dev, uplink11(keys, devAddr, 1, acks), 1);
    const current = (await ns(dev, ['mac_state'])).mac_state.current_parameters as {
      channels: Array<{ uplink_frequency: string; enable_uplink: boolean }>;
    } & Record<string, unknown>;
    expect(current).toMatchObject({ max_duty_cycle: 'DUTY_CYCLE_4', adr_ack_limit_exponent: 'ADR_ACK_LIMIT_128' });
    expect(current.channels.filter((c) => c.enable_uplink).map((c) => c.uplink_frequency)).toEqual([
      '868100000',
      '868300000',
      '868500000',
      '867100000',
      '867300000',
      '867500000',
      '867700000',
      '867900000',
    ]);
    await until(stream, 'ns.mac.adr_param_setup.answer');
  }, 60_000);

  it('the ClassB bit moves a class B device to class B; its downlinks go out in ping slots, GPS-timed, through a gateway with GPS', async () => {
    const dev = uid('classb');
    const ids = { device_id: dev, dev_eui: randomEui() };
    const devAddr = randomDevAddr();
    const keys = { nwkSKey: randomKey(), appSKey: randomKey() };
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
    const nsDevice = abpNsDevice(ids, devAddr, keys.nwkSKey, {
      frequency_plan_id: 'EU_863_870_TTN',
      supports_class_b: true,
      mac_settings: {
        ping_slot_periodicity: 'PING_EVERY_1S',
        status_count_periodicity: 0,
        status_time_periodicity: '0s',
        factory_preset_frequencies: ['868100000', '868300000', '868500000', '867100000', '867300000', '867500000', '867700000', '867900000'],
        desired_rx2_data_rate_index: 0,
      },
    });
    await reg.setOk('ns', app, dev, nsDevice.device, nsDevice.paths);
    const as = abpAsDevice(ids, devAddr, keys.appSKey);
    await reg.setOk('as', app, dev, as.device, as.paths);
    const stream = await events(dev);
    await send(dev, uplink10(keys, devAddr, 0, [], { classB: true }), 0, { gps: true });
    expect((await ns(dev, ['mac_state'])).mac_state.device_class).toBe('CLASS_B');
    await until(stream, 'ns.class.switch.b');
    // An application downlink: sent at the device's next ping slot (`tmms`), on the band's ping-slot channel.
    const gw = gateways[1].udp;
    const before = gw.downlinks.length;
    expectStatus(await api.post(`/api/v3/as/applications/${app}/devices/${dev}/down/push`, { downlinks: [{ f_port: 3, frm_payload: 'aGk=' }] }), 200);
    const down = (await gw.waitForDownlinks(before + 1, 5000))[before];
    expect(down.txpk.tmms).toBeGreaterThan(gpsNowMs());
    expect(down.txpk.tmst).toBeUndefined();
    expect(down.txpk.freq).toBeCloseTo(869.525, 3);
    const packet = loraPacket.fromWire(Buffer.from(down.txpk.data as string, 'base64'));
    expect(loraPacket.decrypt(packet, hexBuf(keys.appSKey), hexBuf(keys.nwkSKey)).toString()).toBe('hi');
    expect(await eventually(async () => (await ns(dev, ['mac_state'])).mac_state.last_network_initiated_downlink_at)).toBeDefined();
  }, 60_000);
});
