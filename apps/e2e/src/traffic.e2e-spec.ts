/**
 * Data uplinks end to end, in both run modes: a device joins over the simulated gateways (the
 * frames built and checked by `lora-packet` through `SimulatedOtaaDevice`), then sends data
 * uplinks heard by two gateways; the application's webhook gets each once at `/up`, decrypted and
 * decoded, with both gateways' metadata. Retransmissions are delivered once; the NS keeps FPort 0.
 */
import loraPacket from 'lora-packet';
import type { EventJson } from '@lorawan/api';
import {
  type SimulatedOtaaDevice,
  SimulatedUdpGateway,
  startDistributedStack,
  startEmbeddedStack,
  type StackUnderTest,
  WebhookReceiver,
} from '@lorawan/testing';
import { abpAsDevice, abpNsDevice, randomDevAddr, Registries, randomEui, randomKey, registerOtaaDevice, uid } from './devices';
import { EventStream } from './event-stream';
import { dataUplink } from './lora-frames';
import { setJsonWebhook } from './webhook-env';
import { type ConnectedGateway, connectGateways } from './gateways';
import { Api, createApplications, expectStatus, sleep } from './http-client';

type Start = () => Promise<StackUnderTest>;
// The data plane without the NS's DevStatusReq downlinks (the MAC layer's own suite has them).
const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', NS_DEFAULT_MAC_SETTINGS: JSON.stringify({ status_count_periodicity: 0, status_time_periodicity: '0s' }) };
/** An ABP device already on the plan's channels and RX2: no MAC commands to negotiate them. */
const ON_PLAN = {
  factory_preset_frequencies: ['868100000', '868300000', '868500000', '867100000', '867300000', '867500000', '867700000', '867900000'],
  desired_rx2_data_rate_index: 0,
};
const ALL = ['is', 'js', 'ns', 'as', 'events', 'gs'] as const;
const MODES: Array<[string, Start, { replicas: boolean }]> = [
  ['distributed', () => startDistributedStack({ components: [...ALL], env }), { replicas: false }],
  // Two NS replicas share the device's state (and two GS replicas the gateways): the first cases again.
  ['distributed, two replicas of each component', () => startDistributedStack({ components: [...ALL], replicas: 2, env }), { replicas: true }],
  ['embedded', () => startEmbeddedStack({ env }), { replicas: false }],
];

describe.each(MODES)('data uplinks (%s)', (_mode, start, { replicas }) => {
  let stack: StackUnderTest;
  let api: Api;
  let reg: Registries;
  let receiver: WebhookReceiver;
  const app = uid('app');
  const opened: Array<{ close(): void }> = [];
  const gateways: ConnectedGateway[] = [];

  beforeAll(async () => {
    stack = await start();
    api = new Api(() => stack);
    reg = new Registries(api);
    await createApplications(api, [app]);
    receiver = await new WebhookReceiver().start();
    await setJsonWebhook(api, app, 'hook', receiver.url, {
      uplink_message: '/up',
      downlink_sent: '/down/sent',
      downlink_ack: '/down/ack',
      downlink_nack: '/down/nack',
      downlink_failed: '/down/failed',
    });
    // With replicas, each gateway on its own Gateway Server.
    gateways.push(...(await connectGateways(api, stack, { count: 2, replicas })));
    opened.push(...gateways.map((g) => g.udp));
  }, 120_000);

  afterAll(async () => {
    for (const o of opened) o.close();
    await receiver?.stop();
    await stack?.stop();
  });

  /** An OTAA device (CayenneLPP uplink formatter in the AS), joined through the strong gateway. */
  async function joinedDevice() {
    const { dev, ids, sim } = await registerOtaaDevice(api, app, 'FORMATTER_CAYENNELPP');
    return { dev, ids, sim, ...(await join(dev, sim)) };
  }

  /** The device joins (again) through the strong gateway: its new DevAddr and session keys, once the NS and the AS hold the pending session. */
  async function join(dev: string, sim: SimulatedOtaaDevice) {
    const gw = gateways[1];
    const before = gw.udp.downlinks.length;
    await gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(sim.joinRequest(), { tmst: 1_000_000 })] });
    const down = (await gw.udp.waitForDownlinks(before + 1, 5000))[before];
    const joined = sim.acceptJoin(Buffer.from(down.txpk.data as string, 'base64'));
    // A real device is not heard again before its join-accept's RX window (5 s); this one is at once, so wait until the NS and the AS hold the new session.
    for (let i = 0; ; i++) {
      const ns = (await reg.getOk('ns', app, dev, ['pending_session'])).json as { pending_session?: { dev_addr?: string } };
      const as = (await reg.getOk('as', app, dev, ['pending_session'])).json as { pending_session?: { dev_addr?: string } };
      if (ns.pending_session?.dev_addr === joined.devAddr && as.pending_session?.dev_addr === joined.devAddr) break;
      if (i > 100) throw new Error('the NS or the AS did not store the pending session');
      await sleep(20);
    }
    return { devAddr: joined.devAddr, keys: joined.keys as { nwkSKey: string; appSKey: string } };
  }

  /** The next PULL_RESP of the gateway after it pushed `frame` (as rxpk with `o`). */
  async function answerTo(gw: (typeof gateways)[number], frame: Buffer, o: Parameters<typeof SimulatedUdpGateway.rxpk>[1], timeoutMs = 3000) {
    const before = gw.udp.downlinks.length;
    await gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, o)] });
    return (await gw.udp.waitForDownlinks(before + 1, timeoutMs))[before];
  }

  /** Registers an ABP device (NS session and AS AppSKey, EU_863_870_TTN), with more NS and AS fields. */
  async function abpDevice(prefix: string, o: { ns?: Record<string, unknown>; as?: Record<string, unknown> } = {}) {
    const dev = uid(prefix);
    const ids = { device_id: dev, dev_eui: randomEui() };
    const devAddr = randomDevAddr();
    const keys = { nwkSKey: randomKey(), appSKey: randomKey() };
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
    const ns = abpNsDevice(ids, devAddr, keys.nwkSKey, {
      frequency_plan_id: 'EU_863_870_TTN',
      ...o.ns,
      mac_settings: { ...ON_PLAN, ...(o.ns?.mac_settings as Record<string, unknown> | undefined) },
    });
    await reg.setOk('ns', app, dev, ns.device, ns.paths);
    const as = abpAsDevice(ids, devAddr, keys.appSKey);
    await reg.setOk('as', app, dev, { ...as.device, ...o.as }, [...as.paths, ...Object.keys(o.as ?? {})]);
    return { dev, ids, devAddr, keys };
  }

  const push = async (dev: string, downlinks: Array<Record<string, unknown>>) =>
    expectStatus(await api.post(`/api/v3/as/applications/${app}/devices/${dev}/down/push`, { downlinks }), 200);

  const uplinksOf = (dev: string) => receiver.to('/up').filter((r) => r.json?.end_device_ids?.device_id === dev);

  it('an uplink heard by two gateways reaches the webhook once at /up: decrypted, CayenneLPP-decoded, with both gateways', async () => {
    const d = await joinedDevice();
    const events = await EventStream.open(stack.baseUrl, {
      authorization: `Bearer ${stack.adminKey}`,
      body: { identifiers: [{ device_ids: { device_id: d.dev, application_ids: { application_id: app } } }] },
    });
    opened.push(events);
    expect((await events.nextEvent()).name).toBe('events.stream.start');
    // CayenneLPP: channel 3, temperature 27.2 °C.
    const frame = dataUplink(d.keys, d.devAddr, 0, 1, Buffer.from('03670110', 'hex'));
    await gateways[0].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, { tmst: 2_000_000, lsnr: -3, rssi: -100 })] });
    await gateways[1].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, { tmst: 3_000_000, lsnr: 8, rssi: -50 })] });
    await receiver.waitFor(() => uplinksOf(d.dev).length === 1, 10_000, 'the /up webhook');
    const up = uplinksOf(d.dev)[0].json;
    expect(up.end_device_ids).toMatchObject({ device_id: d.dev, dev_addr: d.devAddr });
    expect(up.uplink_message).toMatchObject({
      f_port: 1,
      f_cnt: 0,
      frm_payload: Buffer.from('03670110', 'hex').toString('base64'),
      decoded_payload: { temperature_3: 27.2 },
    });
    expect(up.uplink_message.rx_metadata.map((m: { gateway_ids: { gateway_id: string } }) => m.gateway_ids.gateway_id).sort()).toEqual(
      gateways.map((g) => g.id).sort(),
    );
    const seen: EventJson[] = [];
    const wanted = ['ns.up.data.receive', 'ns.up.data.process', 'as.up.data.receive', 'as.up.data.forward', 'ns.up.data.forward'];
    while (!wanted.every((n) => seen.some((e) => e.name === n))) seen.push(await events.nextEvent(10_000));
    expect(JSON.stringify(seen)).not.toContain(d.keys.appSKey);
    // The NS: the pending session is the session now.
    const ns = (await reg.getOk('ns', app, d.dev, ['session', 'pending_session'])).json as {
      session?: { dev_addr: string; last_f_cnt_up: number };
      pending_session?: unknown;
    };
    expect(ns.session).toMatchObject({ dev_addr: d.devAddr, last_f_cnt_up: 0 });
    expect(ns.pending_session).toBeUndefined();
  }, 60_000);

  it('a retransmission is delivered once; the next FCnt is delivered; an FPort 0 uplink stays in the NS', async () => {
    const d = await joinedDevice();
    const first = dataUplink(d.keys, d.devAddr, 0, 2, Buffer.from('one'));
    await gateways[1].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(first, { tmst: 4_000_000 })] });
    await receiver.waitFor(() => uplinksOf(d.dev).length === 1, 10_000, 'the first uplink');
    // The device repeats it on another channel (no ACK came), then goes on.
    await gateways[1].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(first, { tmst: 6_000_000, freq: 868.3 })] });
    await gateways[1].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(d.keys, d.devAddr, 1, 0, Buffer.from([0x02])), { tmst: 7_000_000 })] });
    await gateways[1].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(d.keys, d.devAddr, 2, 2, Buffer.from('two')), { tmst: 8_000_000 })] });
    await receiver.waitFor(() => uplinksOf(d.dev).length === 2, 10_000, 'the FCnt 2 uplink');
    await sleep(1000);
    const delivered = uplinksOf(d.dev).map((r) => [r.json.uplink_message.f_cnt, Buffer.from(r.json.uplink_message.frm_payload, 'base64').toString()]);
    expect(delivered).toEqual([
      [0, 'one'],
      [2, 'two'],
    ]);
  }, 60_000);

  it('a queued downlink goes out in the RX1 window of the next uplink, the device decrypts it (lora-packet), and the TX_ACK becomes downlink_sent', async () => {
    const d = await joinedDevice();
    // The first uplink makes the pending session current.
    await gateways[1].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(d.keys, d.devAddr, 0, 1, Buffer.from([1])), { tmst: 10_000_000 })] });
    await receiver.waitFor(() => uplinksOf(d.dev).length === 1, 10_000, 'the first uplink');
    const push = await api.post(`/api/v3/as/applications/${app}/devices/${d.dev}/down/push`, {
      downlinks: [{ f_port: 7, frm_payload: Buffer.from('hello device').toString('base64'), priority: 'NORMAL' }],
    });
    expectStatus(push, 200);
    const before = gateways[1].udp.downlinks.length;
    const sentAt = Date.now();
    await gateways[1].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(d.keys, d.devAddr, 1, 1, Buffer.from([2])), { tmst: 20_000_000 })] });
    const down = (await gateways[1].udp.waitForDownlinks(before + 1, 3000))[before];
    // RX1: one second after the uplink (the plan's RX1 delay), on its channel and data rate, in time.
    expect(down.txpk).toMatchObject({ tmst: 21_000_000, freq: 868.1, datr: 'SF7BW125' });
    expect(down.at - sentAt).toBeLessThan(1000);
    const frame = loraPacket.fromWire(Buffer.from(down.txpk.data as string, 'base64'));
    expect(frame.getMType()).toBe('Unconfirmed Data Down');
    expect(frame.getFPort()).toBe(7);
    expect(loraPacket.verifyMIC(frame, Buffer.from(d.keys.nwkSKey, 'hex'))).toBe(true);
    expect(loraPacket.decrypt(frame, Buffer.from(d.keys.appSKey, 'hex'), Buffer.from(d.keys.nwkSKey, 'hex')).toString()).toBe('hello device');
    gateways[1].udp.txAck(down.token);
    await receiver.waitFor(() => receiver.to('/down/sent').some((r) => r.json?.end_device_ids?.device_id === d.dev), 10_000, 'downlink_sent');
    const sent = receiver.to('/down/sent').find((r) => r.json?.end_device_ids?.device_id === d.dev)?.json;
    expect(sent.downlink_sent).toMatchObject({ f_port: 7, frm_payload: Buffer.from('hello device').toString('base64') });
  }, 60_000);

  it('an ABP device (session from the registries, no join) is heard and answered: a confirmed downlink, then downlink_ack on the uplink with ACK', async () => {
    const { dev, devAddr, keys } = await abpDevice('abp');
    await gateways[1].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(keys, devAddr, 1, 3, Buffer.from('abp')), { tmst: 30_000_000 })] });
    await receiver.waitFor(() => uplinksOf(dev).length === 1, 10_000, 'the ABP uplink');
    expect(uplinksOf(dev)[0].json.uplink_message).toMatchObject({ f_port: 3, f_cnt: 1, frm_payload: Buffer.from('abp').toString('base64') });
    expectStatus(
      await api.post(`/api/v3/as/applications/${app}/devices/${dev}/down/push`, {
        downlinks: [{ f_port: 9, frm_payload: Buffer.from('please ack').toString('base64'), confirmed: true }],
      }),
      200,
    );
    const before = gateways[1].udp.downlinks.length;
    await gateways[1].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(keys, devAddr, 2, 3, Buffer.from('x')), { tmst: 40_000_000 })] });
    const down = (await gateways[1].udp.waitForDownlinks(before + 1, 3000))[before];
    const frame = loraPacket.fromWire(Buffer.from(down.txpk.data as string, 'base64'));
    expect(frame.getMType()).toBe('Confirmed Data Down');
    expect(loraPacket.decrypt(frame, Buffer.from(keys.appSKey, 'hex'), Buffer.from(keys.nwkSKey, 'hex')).toString()).toBe('please ack');
    gateways[1].udp.txAck(down.token);
    // The device acknowledges it in its next uplink.
    await gateways[1].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(keys, devAddr, 3, 3, Buffer.from('y'), { ack: true }), { tmst: 50_000_000 })] });
    await receiver.waitFor(() => receiver.to('/down/ack').some((r) => r.json?.end_device_ids?.device_id === dev), 10_000, 'downlink_ack');
    const ack = receiver.to('/down/ack').find((r) => r.json?.end_device_ids?.device_id === dev)?.json;
    expect(ack.downlink_ack).toMatchObject({ f_port: 9, confirmed: true, frm_payload: Buffer.from('please ack').toString('base64') });
  }, 60_000);

  it('a downlink too long for RX1 at the uplink’s data rate goes out in RX2 (EU_863_870_TTN: SF9 after the join)', async () => {
    const d = await joinedDevice();
    await gateways[1].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(d.keys, d.devAddr, 0, 1, Buffer.from([1])), { tmst: 60_000_000 })] });
    await receiver.waitFor(() => uplinksOf(d.dev).length === 1, 10_000, 'the first uplink');
    // 80 bytes: more than SF12's 59 (RX1 of an SF12 uplink), within SF9's 123 (RX2 of the plan).
    const payload = Buffer.alloc(80, 0x5a);
    expectStatus(
      await api.post(`/api/v3/as/applications/${app}/devices/${d.dev}/down/push`, { downlinks: [{ f_port: 4, frm_payload: payload.toString('base64') }] }),
      200,
    );
    const before = gateways[1].udp.downlinks.length;
    await gateways[1].udp.push({
      rxpk: [SimulatedUdpGateway.rxpk(dataUplink(d.keys, d.devAddr, 1, 1, Buffer.from([2])), { tmst: 70_000_000, datr: 'SF12BW125' })],
    });
    const down = (await gateways[1].udp.waitForDownlinks(before + 1, 4000))[before];
    expect(down.txpk).toMatchObject({ tmst: 72_000_000, freq: 869.525, datr: 'SF9BW125' });
    const frame = loraPacket.fromWire(Buffer.from(down.txpk.data as string, 'base64'));
    expect(loraPacket.decrypt(frame, Buffer.from(d.keys.appSKey, 'hex'), Buffer.from(d.keys.nwkSKey, 'hex'))).toEqual(payload);
  }, 60_000);

  it('a class C device gets its queued downlink at once, without an uplink: RX2 channel and rate, at the earliest free concentrator time, through the gateway that heard it', async () => {
    const { dev, ids, devAddr, keys } = await abpDevice('classc', { ns: { supports_class_c: true } });
    // The MAC state a client sends back must be whole (TTS: current and desired parameters are required).
    const { mac_state: macState } = (await reg.getOk('ns', app, dev, ['mac_state'])).json as { mac_state: Record<string, unknown> };
    await reg.setOk('ns', app, dev, { ids, mac_state: { ...macState, device_class: 'CLASS_C' } }, ['mac_state.device_class']);
    // One uplink, so the NS knows a gateway that hears the device.
    await gateways[0].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(keys, devAddr, 1, 3, Buffer.from('hi')), { tmst: 90_000_000 })] });
    await receiver.waitFor(() => uplinksOf(dev).length === 1, 10_000, 'the class C device’s uplink');
    await sleep(1500);
    const before = gateways[0].udp.downlinks.length;
    expectStatus(
      await api.post(`/api/v3/as/applications/${app}/devices/${dev}/down/push`, {
        downlinks: [{ f_port: 11, frm_payload: Buffer.from('class c').toString('base64') }],
      }),
      200,
    );
    const down = (await gateways[0].udp.waitForDownlinks(before + 1, 5000))[before];
    // Timed by the concentrator's clock (the uplink anchored it), at the earliest moment the gateway's radio is free.
    expect(down.txpk).toMatchObject({ tmst: expect.any(Number), freq: 869.525, datr: 'SF12BW125' });
    expect(down.txpk.imme).toBeUndefined();
    const frame = loraPacket.fromWire(Buffer.from(down.txpk.data as string, 'base64'));
    expect(frame.getFPort()).toBe(11);
    expect(loraPacket.verifyMIC(frame, Buffer.from(keys.nwkSKey, 'hex'))).toBe(true);
    expect(loraPacket.decrypt(frame, Buffer.from(keys.appSKey, 'hex'), Buffer.from(keys.nwkSKey, 'hex')).toString()).toBe('class c');
  }, 60_000);

  const ofDevice = (path: string, dev: string) => receiver.to(path).filter((r) => r.json?.end_device_ids?.device_id === dev);
  const frameOf = (down: { txpk: Record<string, unknown> }) => loraPacket.fromWire(Buffer.from(down.txpk.data as string, 'base64'));
  const plain = (frame: ReturnType<typeof frameOf>, keys: { nwkSKey: string; appSKey: string }) =>
    loraPacket.decrypt(frame, Buffer.from(keys.appSKey, 'hex'), Buffer.from(keys.nwkSKey, 'hex')).toString();

  it('32-bit FCnt: the counter rolls over past 0xFFFF; a replayed FCnt is dropped; a JavaScript formatter decodes', async () => {
    const script = 'function decodeUplink(input) { return { data: { sum: input.bytes.reduce((a, b) => a + b, 0), port: input.fPort } }; }';
    const { dev, ids, devAddr, keys } = await abpDevice('roll', {
      as: { formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: script } },
    });
    const session = { dev_addr: devAddr, keys: { session_key_id: 'AQID', f_nwk_s_int_key: { key: keys.nwkSKey } }, last_f_cnt_up: 0xfffe };
    await reg.setOk('ns', app, dev, { ids, session }, ['session.last_f_cnt_up']);
    const gw = gateways[0];
    const before = gw.udp.downlinks.length;
    const old = dataUplink(keys, devAddr, 0xffff, 5, Buffer.from([1, 2]));
    await gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(old, { tmst: 100_000_000 })] });
    await receiver.waitFor(() => uplinksOf(dev).length === 1, 10_000, 'FCnt 0xFFFF');
    // 16 bits on air: 0x0000; the NS recovers 0x10000.
    await gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(keys, devAddr, 0x10000, 5, Buffer.from([3, 4])), { tmst: 102_000_000 })] });
    await receiver.waitFor(() => uplinksOf(dev).length === 2, 10_000, 'FCnt 0x10000');
    // The frame of 0xFFFF again, later than the deduplication window: a replay.
    await sleep(1200);
    await gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(old, { tmst: 104_000_000 })] });
    await gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(keys, devAddr, 0x10001, 5, Buffer.from([5])), { tmst: 106_000_000 })] });
    await receiver.waitFor(() => uplinksOf(dev).length === 3, 10_000, 'FCnt 0x10001');
    await sleep(500);
    expect(uplinksOf(dev).map((r) => [r.json.uplink_message.f_cnt, r.json.uplink_message.decoded_payload])).toEqual([
      [0xffff, { sum: 3, port: 5 }],
      [0x10000, { sum: 7, port: 5 }],
      [0x10001, { sum: 5, port: 5 }],
    ]);
    const ns = (await reg.getOk('ns', app, dev, ['session.last_f_cnt_up'])).json as { session: { last_f_cnt_up: number } };
    expect(ns.session.last_f_cnt_up).toBe(0x10001);
    expect(gw.udp.downlinks.length).toBe(before);
  }, 60_000);

  it('a confirmed downlink the device does not acknowledge: downlink_nack, queued again (its second attempt) and sent again; refused by the gateway in RX1 it goes in RX2, refused there too it becomes downlink_failed', async () => {
    const { dev, devAddr, keys } = await abpDevice('nack');
    const gw = gateways[1];
    await push(dev, [{ f_port: 12, frm_payload: Buffer.from('retry me').toString('base64'), confirmed: true }]);
    const first = await answerTo(gw, dataUplink(keys, devAddr, 1, 3, Buffer.from('a')), { tmst: 110_000_000 });
    const firstFrame = frameOf(first);
    expect(firstFrame.getMType()).toBe('Confirmed Data Down');
    expect(plain(firstFrame, keys)).toBe('retry me');
    gw.udp.txAck(first.token);
    // The next uplink has no ACK.
    await gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(keys, devAddr, 2, 3, Buffer.from('b')), { tmst: 112_000_000 })] });
    await receiver.waitFor(() => ofDevice('/down/nack', dev).length === 1, 10_000, 'downlink_nack');
    expect(ofDevice('/down/nack', dev)[0].json.downlink_nack).toMatchObject({
      f_port: 12,
      confirmed: true,
      frm_payload: Buffer.from('retry me').toString('base64'),
      confirmed_retry: { attempt: 2 },
    });
    // Queued again with a new FCnt: it goes out after the next uplink.
    const again = await answerTo(gw, dataUplink(keys, devAddr, 3, 3, Buffer.from('c')), { tmst: 114_000_000 });
    const againFrame = frameOf(again);
    expect(againFrame.getMType()).toBe('Confirmed Data Down');
    expect(againFrame.getFCnt()).toBeGreaterThan(firstFrame.getFCnt() as number);
    expect(loraPacket.verifyMIC(againFrame, Buffer.from(keys.nwkSKey, 'hex'))).toBe(true);
    expect(plain(againFrame, keys)).toBe('retry me');
    // The gateway refuses it in RX1: the GS sends it again in RX2 (a second later, the RX2 channel); refused there too, the application learns it.
    const before = gw.udp.downlinks.length;
    gw.udp.txAck(again.token, 'TOO_LATE');
    const [rx2] = (await gw.udp.waitForDownlinks(before + 1, 3000)).slice(before);
    expect(rx2.txpk).toMatchObject({ tmst: (again.txpk.tmst as number) + 1_000_000, freq: 869.525, data: again.txpk.data });
    gw.udp.txAck(rx2.token, 'COLLISION_PACKET');
    await receiver.waitFor(() => ofDevice('/down/failed', dev).length === 1, 10_000, 'downlink_failed');
    expect(ofDevice('/down/failed', dev)[0].json.downlink_failed).toMatchObject({
      downlink: { f_port: 12, frm_payload: Buffer.from('retry me').toString('base64') },
      error: { namespace: 'pkg/networkserver', attributes: { result: 'COLLISION_PACKET' } },
    });
  }, 60_000);

  it('the queue survives a rejoin: the NS hands it back with the join-accept, the AS encrypts it for the new session', async () => {
    const d = await joinedDevice();
    await gateways[1].udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(d.keys, d.devAddr, 0, 1, Buffer.from([1])), { tmst: 120_000_000 })] });
    await receiver.waitFor(() => uplinksOf(d.dev).length === 1, 10_000, 'the first uplink');
    await push(d.dev, [{ f_port: 13, frm_payload: Buffer.from('still here').toString('base64') }]);
    const rejoined = await join(d.dev, d.sim);
    expect(rejoined.devAddr).not.toBe(d.devAddr);
    // The NS holds it in the new session too (encrypted with its AppSKey) until the device is heard in it.
    for (let i = 0; ; i++) {
      const ns = (await reg.getOk('ns', app, d.dev, ['pending_session.queued_application_downlinks'])).json as {
        pending_session?: { queued_application_downlinks?: Array<{ f_port: number }> };
      };
      if (ns.pending_session?.queued_application_downlinks?.[0]?.f_port === 13) break;
      if (i > 100) throw new Error(`the queue was not pushed again for the new session: ${JSON.stringify(ns)}`);
      await sleep(50);
    }
    const down = await answerTo(gateways[1], dataUplink(rejoined.keys, rejoined.devAddr, 0, 1, Buffer.from([2])), { tmst: 130_000_000 });
    const frame = frameOf(down);
    expect(frame.getBuffers().DevAddr?.toString('hex').toUpperCase()).toBe(rejoined.devAddr.toUpperCase());
    expect(loraPacket.verifyMIC(frame, Buffer.from(rejoined.keys.nwkSKey, 'hex'))).toBe(true);
    expect(plain(frame, rejoined.keys)).toBe('still here');
  }, 60_000);

  it('a confirmed uplink whose answer cannot carry the queued downlink gets an empty ACK; the queue its FCnts made stale is invalidated, encrypted again by the AS and delivered', async () => {
    const { dev, devAddr, keys } = await abpDevice('stale');
    const gw = gateways[1];
    // 150 bytes: too long for SF12 (RX1 of an SF12 uplink) and SF9 (RX2), within SF7.
    const payload = Buffer.alloc(150, 0x33);
    await push(dev, [{ f_port: 14, frm_payload: payload.toString('base64') }]);
    const fCnts: number[] = [];
    for (const [i, tmst] of [140_000_000, 142_000_000].entries()) {
      const ackOnly = frameOf(await answerTo(gw, dataUplink(keys, devAddr, i + 1, 3, Buffer.from('?'), { confirmed: true }), { tmst, datr: 'SF12BW125' }));
      expect(ackOnly.getFPort()).toBeNull();
      expect(ackOnly.getFCtrlACK()).toBe(true);
      expect(ackOnly.getFCtrlFPending()).toBe(true);
      fCnts.push(ackOnly.getFCnt() as number);
    }
    // The second ACK took the FCnt the AS had given the queued downlink: the next uplink finds the queue stale.
    await gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(keys, devAddr, 3, 3, Buffer.from('!')), { tmst: 144_000_000 })] });
    for (let i = 0; ; i++) {
      const queue = (await api.get(`/api/v3/as/applications/${app}/devices/${dev}/down`)).json as { downlinks?: Array<{ f_cnt: number }> };
      if ((queue.downlinks?.[0]?.f_cnt ?? 0) > Math.max(...fCnts)) break;
      if (i > 100) throw new Error(`the queue was not encrypted again: ${JSON.stringify(queue)}`);
      await sleep(50);
    }
    const down = frameOf(await answerTo(gw, dataUplink(keys, devAddr, 4, 3, Buffer.from('.')), { tmst: 146_000_000 }));
    expect(down.getFCnt()).toBe(Math.max(...fCnts) + 1);
    expect(loraPacket.verifyMIC(down, Buffer.from(keys.nwkSKey, 'hex'))).toBe(true);
    expect(loraPacket.decrypt(down, Buffer.from(keys.appSKey, 'hex'), Buffer.from(keys.nwkSKey, 'hex'))).toEqual(payload);
  }, 60_000);
});
