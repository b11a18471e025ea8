/**
 * Data uplinks end to end, in both run modes: a device joins over the simulated gateways (the
 * frames built and checked by `lora-packet` through `SimulatedOtaaDevice`), then sends data
 * uplinks heard by two gateways; the application's webhook gets each once at `/up`, decrypted and
 * decoded, with both gateways' metadata. Retransmissions are delivered once; the NS keeps FPort 0.
 */
import loraPacket from 'lora-packet';
import type { EventJson } from '@lorawan/api';
import { SimulatedOtaaDevice, SimulatedUdpGateway, startDistributedStack, startEmbeddedStack, type StackUnderTest, WebhookReceiver } from '@lorawan/testing';
import { abpAsDevice, abpNsDevice, randomDevAddr, Registries, randomEui, randomKey, uid } from './devices';
import { EventStream } from './event-stream';
import { ADMIN_USER_ID, Api, createApplications, expectStatus, sleep } from './http-client';

type Start = () => Promise<StackUnderTest>;
const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
const ALL = ['is', 'js', 'ns', 'as', 'events', 'gs'] as const;
const MODES: Array<[string, Start, { replicas: boolean }]> = [
  ['distributed', () => startDistributedStack({ components: [...ALL], env }), { replicas: false }],
  // Two NS replicas share the device's state (and two GS replicas the gateways): the first cases again.
  ['distributed, two replicas of each component', () => startDistributedStack({ components: [...ALL], replicas: 2, env }), { replicas: true }],
  ['embedded', () => startEmbeddedStack({ env }), { replicas: false }],
];

/** A data uplink as the device sends it, built by lora-packet with the session keys the device derived. */
function dataUplink(
  keys: { nwkSKey: string; appSKey: string },
  devAddr: string,
  fCnt: number,
  fPort: number,
  payload: Buffer,
  o: { confirmed?: boolean; ack?: boolean } = {},
): Buffer {
  const high = Buffer.alloc(2);
  high.writeUInt16LE(fCnt >>> 16);
  return loraPacket
    .fromFields(
      {
        MType: o.confirmed ? 'Confirmed Data Up' : 'Unconfirmed Data Up',
        DevAddr: Buffer.from(devAddr, 'hex'),
        FCnt: fCnt & 0xffff,
        FPort: fPort,
        payload,
        ...(o.ack ? { FCtrl: { ACK: true } } : {}),
      },
      Buffer.from(keys.appSKey, 'hex'),
      Buffer.from(keys.nwkSKey, 'hex'),
      undefined,
      high,
    )
    .getPHYPayload() as Buffer;
}

describe.each(MODES)('data uplinks (%s)', (_mode, start, { replicas }) => {
  let stack: StackUnderTest;
  let api: Api;
  let reg: Registries;
  let receiver: WebhookReceiver;
  const app = uid('app');
  const opened: Array<{ close(): void }> = [];
  const gateways: Array<{ id: string; eui: string; udp: SimulatedUdpGateway }> = [];

  beforeAll(async () => {
    stack = await start();
    api = new Api(() => stack);
    reg = new Registries(api);
    await createApplications(api, [app]);
    receiver = await new WebhookReceiver().start();
    expectStatus(
      await api.put(`/api/v3/as/webhooks/${app}/hook`, {
        webhook: {
          ids: { webhook_id: 'hook', application_ids: { application_id: app } },
          base_url: receiver.url,
          format: 'json',
          uplink_message: { path: '/up' },
          downlink_sent: { path: '/down/sent' },
          downlink_ack: { path: '/down/ack' },
        },
        field_mask: { paths: ['base_url', 'format', 'uplink_message', 'downlink_sent', 'downlink_ack'] },
      }),
      200,
    );
    for (let i = 0; i < 2; i++) {
      const eui = randomEui();
      const id = uid(`gtw${i}`);
      expectStatus(
        await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, { gateway: { ids: { gateway_id: id, eui }, frequency_plan_id: 'EU_863_870_TTN' } }),
        200,
      );
      // With replicas, each gateway on its own Gateway Server.
      const port = replicas ? stack.udpPorts?.get(`gs#${i}`) : stack.udpPort;
      const udp = new SimulatedUdpGateway(eui, { host: '127.0.0.1', port: port as number });
      await udp.open();
      opened.push(udp);
      expect(await udp.pull()).toBe(0x04);
      udp.keepAlive(2000);
      gateways.push({ id, eui, udp });
    }
  }, 120_000);

  afterAll(async () => {
    for (const o of opened) o.close();
    await receiver?.stop();
    await stack?.stop();
  });

  /** An OTAA device (CayenneLPP uplink formatter in the AS), joined through the strong gateway. */
  async function joinedDevice() {
    const dev = uid('dev');
    const ids = { device_id: dev, dev_eui: randomEui(), join_eui: randomEui() };
    const appKey = randomKey();
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
    await reg.setOk('js', app, dev, { ids, root_keys: { app_key: { key: appKey } } }, ['root_keys.app_key.key']);
    const ns = { ids, frequency_plan_id: 'EU_863_870_TTN', lorawan_version: 'MAC_V1_0_3', lorawan_phy_version: 'PHY_V1_0_3_REV_A', supports_join: true };
    await reg.setOk('ns', app, dev, ns, ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join']);
    await reg.setOk('as', app, dev, { ids, formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } }, ['formatters']);
    const sim = new SimulatedOtaaDevice({ joinEui: ids.join_eui, devEui: ids.dev_eui, appKey, macVersion: 'MAC_V1_0_3' });
    const gw = gateways[1];
    const before = gw.udp.downlinks.length;
    await gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(sim.joinRequest(), { tmst: 1_000_000 })] });
    const down = (await gw.udp.waitForDownlinks(before + 1, 5000))[before];
    const joined = sim.acceptJoin(Buffer.from(down.txpk.data as string, 'base64'));
    // A real device is not heard again before its join-accept's RX window (5 s); this one is at once, so wait until the NS holds the new session.
    for (let i = 0; ; i++) {
      const held = (await reg.getOk('ns', app, dev, ['pending_session'])).json as { pending_session?: { dev_addr?: string } };
      if (held.pending_session?.dev_addr === joined.devAddr) break;
      if (i > 100) throw new Error('the NS did not store the pending session');
      await sleep(20);
    }
    return { dev, ids, devAddr: joined.devAddr, keys: joined.keys as { nwkSKey: string; appSKey: string } };
  }

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

  if (replicas) return;

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
    const dev = uid('abp');
    const ids = { device_id: dev, dev_eui: randomEui() };
    const devAddr = randomDevAddr();
    const keys = { nwkSKey: randomKey(), appSKey: randomKey() };
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
    const ns = abpNsDevice(ids, devAddr, keys.nwkSKey, { frequency_plan_id: 'EU_863_870_TTN' });
    await reg.setOk('ns', app, dev, ns.device, ns.paths);
    const as = abpAsDevice(ids, devAddr, keys.appSKey);
    await reg.setOk('as', app, dev, as.device, as.paths);
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

  it('a class C device gets its queued downlink at once, without an uplink: RX2 channel and rate, sent immediately, through the gateway that heard it', async () => {
    const dev = uid('classc');
    const ids = { device_id: dev, dev_eui: randomEui() };
    const devAddr = randomDevAddr();
    const keys = { nwkSKey: randomKey(), appSKey: randomKey() };
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
    const ns = abpNsDevice(ids, devAddr, keys.nwkSKey, { frequency_plan_id: 'EU_863_870_TTN', supports_class_c: true });
    await reg.setOk('ns', app, dev, ns.device, [...ns.paths, 'supports_class_c']);
    // The MAC state a client sends back must be whole (TTS: current and desired parameters are required).
    const { mac_state: macState } = (await reg.getOk('ns', app, dev, ['mac_state'])).json as { mac_state: Record<string, unknown> };
    await reg.setOk('ns', app, dev, { ids, mac_state: { ...macState, device_class: 'CLASS_C' } }, ['mac_state.device_class']);
    const as = abpAsDevice(ids, devAddr, keys.appSKey);
    await reg.setOk('as', app, dev, as.device, as.paths);
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
    expect(down.txpk).toMatchObject({ imme: true, freq: 869.525, datr: 'SF12BW125' });
    const frame = loraPacket.fromWire(Buffer.from(down.txpk.data as string, 'base64'));
    expect(frame.getFPort()).toBe(11);
    expect(loraPacket.verifyMIC(frame, Buffer.from(keys.nwkSKey, 'hex'))).toBe(true);
    expect(loraPacket.decrypt(frame, Buffer.from(keys.appSKey, 'hex'), Buffer.from(keys.nwkSKey, 'hex')).toString()).toBe('class c');
  }, 60_000);
});
