/**
 * Every region end to end, in both run modes: for each frequency plan below, a gateway registered
 * on it (a simulated Semtech packet forwarder) hears an OTAA device of that plan join and exchange
 * a confirmed uplink and a downlink. Frames are built and opened by `lora-packet`. The join-accept
 * and the downlink must leave on the frequency and data rate, at the concentrator time, that the
 * RP002-1.0.4 tables give for the uplink: the expectations below are transcribed by hand from those
 * tables (RX1 channel rule, RX1 data-rate table at offset 0, JoinAcceptDelay1 = 5 s), independently
 * of the stack's own band tables.
 */
import loraPacket from 'lora-packet';
import { SimulatedOtaaDevice, SimulatedUdpGateway, startDistributedStack, startEmbeddedStack, type StackUnderTest, WebhookReceiver } from '@lorawan/testing';
import { Registries, randomEui, randomKey, uid } from './devices';
import { dataUplink } from './lora-frames';
import { setJsonWebhook } from './webhook-env';
import { ADMIN_USER_ID, Api, createApplications, expectStatus, sleep } from './http-client';

type Start = () => Promise<StackUnderTest>;
/** The data plane without the NS's DevStatusReq downlinks. */
const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', NS_DEFAULT_MAC_SETTINGS: JSON.stringify({ status_count_periodicity: 0, status_time_periodicity: '0s' }) };
const ALL = ['is', 'js', 'ns', 'as', 'events', 'gs'] as const;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: [...ALL], env })],
  ['embedded', () => startEmbeddedStack({ env })],
];

interface Radio {
  /** MHz, as the packet forwarder writes it. */
  freq: number;
  datr: string;
}

interface RegionCase {
  plan: string;
  /** The uplink channel and data rate the device joins and sends on. */
  up: Radio;
  /** RX1 of that uplink (RP002-1.0.4: the region's RX1 channel rule, its RX1 data-rate table at RX1DROffset 0). */
  rx1: Radio;
}

/**
 * Transcribed from RP002-1.0.4: EU-like regions answer in RX1 on the uplink's channel at its data
 * rate; US902-928 and AU915-928 on downlink channel (uplink channel mod 8) of 923.3 + 0.6·n MHz,
 * 500 kHz, at the data rate their RX1 table gives (US DR3 → DR13 = SF7BW500; AU DR5 → DR13 =
 * SF7BW500); CN470-510 on 500.3 + 0.2·(uplink channel mod 48) MHz at the uplink's rate.
 */
const CASES: RegionCase[] = [
  { plan: 'EU_863_870', up: { freq: 868.3, datr: 'SF7BW125' }, rx1: { freq: 868.3, datr: 'SF7BW125' } },
  { plan: 'EU_863_870_TTN', up: { freq: 867.5, datr: 'SF9BW125' }, rx1: { freq: 867.5, datr: 'SF9BW125' } },
  // Channel 9 (904.1 MHz) of sub-band 2 → downlink channel 1.
  { plan: 'US_902_928_FSB_2', up: { freq: 904.1, datr: 'SF7BW125' }, rx1: { freq: 923.9, datr: 'SF7BW500' } },
  // Channel 10 (917.2 MHz) of sub-band 2 → downlink channel 2.
  { plan: 'AU_915_928_FSB_2', up: { freq: 917.2, datr: 'SF7BW125' }, rx1: { freq: 924.5, datr: 'SF7BW500' } },
  { plan: 'AS_923', up: { freq: 923.4, datr: 'SF7BW125' }, rx1: { freq: 923.4, datr: 'SF7BW125' } },
  { plan: 'IN_865_867', up: { freq: 865.4025, datr: 'SF8BW125' }, rx1: { freq: 865.4025, datr: 'SF8BW125' } },
  // Channel 1 (902.5 MHz) of sub-band 1 → downlink channel 1.
  { plan: 'US_902_928_FSB_1', up: { freq: 902.5, datr: 'SF7BW125' }, rx1: { freq: 923.9, datr: 'SF7BW500' } },
  // Channel 1 (915.4 MHz) of sub-band 1 → downlink channel 1.
  { plan: 'AU_915_928_FSB_1', up: { freq: 915.4, datr: 'SF7BW125' }, rx1: { freq: 923.9, datr: 'SF7BW500' } },
  { plan: 'AS_923_2', up: { freq: 921.6, datr: 'SF7BW125' }, rx1: { freq: 921.6, datr: 'SF7BW125' } },
  { plan: 'AS_923_3', up: { freq: 916.8, datr: 'SF7BW125' }, rx1: { freq: 916.8, datr: 'SF7BW125' } },
  { plan: 'AS_923_4', up: { freq: 917.5, datr: 'SF7BW125' }, rx1: { freq: 917.5, datr: 'SF7BW125' } },
  // Dwell time on both ways: DR4 (SF8) is allowed up and answered at DR4 (the RX1 floor with dwell time is DR2).
  { plan: 'AS_923_2_DT', up: { freq: 921.4, datr: 'SF8BW125' }, rx1: { freq: 921.4, datr: 'SF8BW125' } },
  { plan: 'IL_917_920_TTN', up: { freq: 917.7, datr: 'SF7BW125' }, rx1: { freq: 917.7, datr: 'SF7BW125' } },
  { plan: 'KR_920_923_TTN', up: { freq: 922.3, datr: 'SF7BW125' }, rx1: { freq: 922.3, datr: 'SF7BW125' } },
  { plan: 'RU_864_870_TTN', up: { freq: 869.1, datr: 'SF7BW125' }, rx1: { freq: 869.1, datr: 'SF7BW125' } },
  { plan: 'EU_433', up: { freq: 433.375, datr: 'SF7BW125' }, rx1: { freq: 433.375, datr: 'SF7BW125' } },
  // Channel 81 (486.5 MHz) → downlink channel 81 mod 48 = 33: 500.3 + 0.2·33 = 506.9 MHz.
  { plan: 'CN_470_510_FSB_11', up: { freq: 486.5, datr: 'SF7BW125' }, rx1: { freq: 506.9, datr: 'SF7BW125' } },
];

describe.each(MODES)('regions (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  let api: Api;
  let reg: Registries;
  let receiver: WebhookReceiver;
  const app = uid('app');
  const opened: Array<{ close(): void }> = [];

  beforeAll(async () => {
    stack = await start();
    api = new Api(() => stack);
    reg = new Registries(api);
    await createApplications(api, [app]);
    receiver = await new WebhookReceiver().start();
    await setJsonWebhook(api, app, 'hook', receiver.url, { uplink_message: '/up', downlink_sent: '/down/sent', downlink_ack: '/down/ack' });
  }, 120_000);

  afterAll(async () => {
    for (const o of opened) o.close();
    await receiver?.stop();
    await stack?.stop();
  });

  /** A gateway on `plan`, its downlink path open. */
  async function gatewayOn(plan: string): Promise<SimulatedUdpGateway> {
    const port = stack.udpPort;
    if (!port) throw new Error('the stack has no Gateway Server UDP port');
    const eui = randomEui();
    const id = uid('gtw');
    expectStatus(await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, { gateway: { ids: { gateway_id: id, eui }, frequency_plan_id: plan } }), 200);
    const udp = new SimulatedUdpGateway(eui, { host: '127.0.0.1', port });
    await udp.open();
    opened.push(udp);
    expect(await udp.pull()).toBe(0x04);
    udp.keepAlive(2000);
    return udp;
  }

  /** The next PULL_RESP of the gateway after it pushed `frame` at `tmst` on `radio`. */
  async function answerTo(udp: SimulatedUdpGateway, frame: Buffer, radio: Radio, tmst: number, timeoutMs = 6000) {
    const before = udp.downlinks.length;
    await udp.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, { ...radio, tmst })] });
    return (await udp.waitForDownlinks(before + 1, timeoutMs))[before];
  }

  const uplinksOf = (dev: string) => receiver.to('/up').filter((r) => r.json?.end_device_ids?.device_id === dev);

  it.each(CASES)(
    '$plan: join-accept and a confirmed exchange on the RX1 frequency, data rate and time of RP002',
    async ({ plan, up, rx1 }) => {
      const udp = await gatewayOn(plan);
      const dev = uid('dev');
      const ids = { device_id: dev, dev_eui: randomEui(), join_eui: randomEui() };
      const appKey = randomKey();
      expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
      await reg.setOk('js', app, dev, { ids, root_keys: { app_key: { key: appKey } } }, ['root_keys.app_key.key']);
      const ns = { ids, frequency_plan_id: plan, lorawan_version: 'MAC_V1_0_3', lorawan_phy_version: 'PHY_V1_0_3_REV_A', supports_join: true };
      await reg.setOk('ns', app, dev, ns, ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join']);
      await reg.setOk('as', app, dev, { ids }, []);
      const sim = new SimulatedOtaaDevice({ joinEui: ids.join_eui, devEui: ids.dev_eui, appKey, macVersion: 'MAC_V1_0_3' });

      // The join-accept: RX1 of the join-request, JoinAcceptDelay1 (5 s) after it.
      const accept = await answerTo(udp, sim.joinRequest(), up, 10_000_000);
      expect(accept.txpk).toMatchObject({ tmst: 15_000_000, freq: rx1.freq, datr: rx1.datr });
      const joined = sim.acceptJoin(Buffer.from(accept.txpk.data as string, 'base64'));
      expect(joined.dlSettings.rx1DrOffset).toBe(0);
      udp.txAck(accept.token);
      const keys = joined.keys as { nwkSKey: string; appSKey: string };
      const rxDelayUs = Math.max(joined.rxDelay, 1) * 1_000_000;

      // The first uplink makes the session current; whatever MAC downlink it gets is not this test's.
      await udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(keys, joined.devAddr, 0, 1, Buffer.from([1])), { ...up, tmst: 30_000_000 })] });
      await receiver.waitFor(() => uplinksOf(dev).length === 1, 10_000, 'the first uplink');
      await sleep(300);
      expectStatus(
        await api.post(`/api/v3/as/applications/${app}/devices/${dev}/down/push`, {
          downlinks: [{ f_port: 3, frm_payload: Buffer.from('hi').toString('base64') }],
        }),
        200,
      );

      // A confirmed uplink: answered in its RX1 with the ACK and the queued downlink.
      const down = await answerTo(udp, dataUplink(keys, joined.devAddr, 1, 1, Buffer.from([2]), { confirmed: true }), up, 40_000_000);
      expect(down.txpk).toMatchObject({ tmst: 40_000_000 + rxDelayUs, freq: rx1.freq, datr: rx1.datr });
      const frame = loraPacket.fromWire(Buffer.from(down.txpk.data as string, 'base64'));
      expect(loraPacket.verifyMIC(frame, Buffer.from(keys.nwkSKey, 'hex'))).toBe(true);
      expect(frame.getFCtrlACK()).toBe(true);
      expect(frame.getFPort()).toBe(3);
      expect(loraPacket.decrypt(frame, Buffer.from(keys.appSKey, 'hex'), Buffer.from(keys.nwkSKey, 'hex')).toString()).toBe('hi');
      udp.txAck(down.token);
      await receiver.waitFor(() => receiver.to('/down/sent').some((r) => r.json?.end_device_ids?.device_id === dev), 10_000, 'downlink_sent');
    },
    60_000,
  );
});
