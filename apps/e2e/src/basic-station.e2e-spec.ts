/**
 * LoRa Basics Station gateways end to end, in both run modes, through `SimulatedBasicStation`
 * (written from the specification, on `ws` and `lora-packet`; it drops, and reports, any `dnmsg`
 * station's `handle_dnmsg` would drop):
 * - discovery on `/router-info`;
 * - the `router_config` of an EU868 and a US915 (FSB 2) gateway against values transcribed by hand
 *   from TTN's reference concentrator configurations and station's own test LNS
 *   (`REFERENCE_ROUTER_CONFIGS`), and its class B beaconing from the LoRaWAN specification;
 * - an OTAA join (the join-accept decoded by lora-packet, timed for RX1 on the station's clock) and
 *   data uplinks reaching the webhook; US915 uplinks on 125 and 500 kHz channels answered in RX1 on
 *   the 500 kHz downlink channels at the downlink-only DR13;
 * - class A, B and C downlinks, each answered with `dntxed`, leading to `downlink_sent`; class B in
 *   EU868 and US915 after a `timesync`, at a GPS time the test checks is one of the device's ping
 *   slots (the specification's AES formula, computed here) on the band's ping-slot channel;
 * - the connection stats over HTTP (one gateway and the batch) after uplinks, a downlink and its
 *   `dntxed`: protocol, counts, status and the round trip a slow link's `RefTime` tells;
 * - liveness: `gs.gateway.connect` (the protocol named as TTS does) and the keepalive
 *   disconnecting a station that stops answering pings;
 * - tokens over `wss://` (station sends its `tc.key` only there): the gateway's key accepted (with
 *   or without "Bearer"); a wrong key, a key without RIGHT_GATEWAY_LINK, another gateway's key and
 *   no key where the gateway requires one refused before any WebSocket;
 * - a Semtech UDP gateway and a Basics Station gateway hearing the same uplinks: each delivered
 *   once, each confirmed one's ACK sent once, through whichever gateway heard it best.
 */
import { execFileSync } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import loraPacket from 'lora-packet';
import WebSocket from 'ws';
import type { EventJson } from '@lorawan/api';
import {
  freePort,
  REFERENCE_ROUTER_CONFIGS,
  SimulatedBasicStation,
  SimulatedOtaaDevice,
  SimulatedUdpGateway,
  startDistributedStack,
  startEmbeddedStack,
  type StackUnderTest,
  WebhookReceiver,
} from '@lorawan/testing';
import { Registries, randomEui, randomKey, registerAbpDevice, uid } from './devices';
import { EventStream } from './event-stream';
import { ADMIN_USER_ID, Api, createApplications, expectStatus, expectTtsError, sleep } from './http-client';
import { dataUplink } from './lora-frames';
import { setJsonWebhook } from './webhook-env';

const ALL = ['is', 'js', 'ns', 'as', 'events', 'gs'] as const;
type Start = (env: Record<string, string>) => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', (env) => startDistributedStack({ components: [...ALL], env })],
  ['embedded', (env) => startEmbeddedStack({ env })],
];
/** The data plane without the NS's DevStatusReq downlinks; loopback webhooks; a fast keepalive. */
const ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  NS_DEFAULT_MAC_SETTINGS: JSON.stringify({ status_count_periodicity: 0, status_time_periodicity: '0s' }),
  GS_LBS_PING_INTERVAL_MS: '400',
  GS_LBS_MISSED_PONGS: '2',
};

/** The channels of EU_863_870_TTN, so that the NS has no NewChannelReq or RXParamSetupReq to send. */
const ON_PLAN = {
  factory_preset_frequencies: ['868100000', '868300000', '868500000', '867100000', '867300000', '867500000', '867700000', '867900000'],
  desired_rx2_data_rate_index: 0,
};

/**
 * Class B beaconing each band's gateways are told (`bcning`), from the LoRaWAN specification: the
 * beacon's data rate and channel(s) (RP002: EU868 DR3 on 869.525 MHz; US915 DR8 on 923.3 MHz +
 * 600 kHz × n, n = 0…7) and its frame layout (L2 1.0.4 §15.2: [offset of Time, offset of the
 * gateway-specific info, length]: SF9 RFU(2)|Time(4)|CRC(2)|Info(7)|CRC(2), SF12 RFU(5)|Time(4)|CRC(2)|Info(7)|RFU(3)|CRC(2)).
 */
const BEACONING: Record<string, unknown> = {
  EU_863_870: { DR: 3, layout: [2, 8, 17], freqs: [869525000] },
  US_902_928_FSB_2: { DR: 8, layout: [5, 11, 23], freqs: Array.from({ length: 8 }, (_, n) => 923300000 + 600000 * n) },
};

/** Class B slot timing (LoRaWAN L2 1.0.4 §13): a beacon every 128 s of GPS time, 2.120 s reserved, then ping slots of 30 ms. */
const BEACON_PERIOD_US = 128_000_000n;
const BEACON_RESERVED_US = 2_120_000n;
const PING_SLOT_US = 30_000n;

/**
 * The device's ping offset in a beacon period (§13.2), written here from the specification:
 * Rand = aes128_encrypt(16 × 0x00, BeaconTime | DevAddr | 8 × 0x00), BeaconTime (GPS seconds of the
 * beacon) and DevAddr little-endian; pingOffset = (Rand[0] + Rand[1] × 256) mod pingPeriod.
 */
function pingOffset(beaconTimeSeconds: number, devAddr: string, pingPeriod: number): number {
  const block = Buffer.alloc(16);
  block.writeUInt32LE(beaconTimeSeconds % 2 ** 32, 0);
  Buffer.from(devAddr, 'hex').reverse().copy(block, 4);
  const aes = createCipheriv('aes-128-ecb', Buffer.alloc(16), null).setAutoPadding(false);
  const rand = Buffer.concat([aes.update(block), aes.final()]);
  return (rand[0] + rand[1] * 256) % pingPeriod;
}

/**
 * Class B per plan: where the device's uplink is heard, MAC settings that leave the NS nothing to
 * change, and the ping-slot channel of a beacon period by RP002: EU868 DR3 on 869.525 MHz; US915
 * DR8 on 923.3 MHz + 600 kHz × ((DevAddr + ⌊beacon time / 128 s⌋) mod 8).
 */
const CLASS_B_PLANS: Array<
  [
    string,
    {
      uplink: { DR: number; Freq: number };
      macSettings: Record<string, unknown>;
      pingSlotChannel: (devAddr: string, beaconSeconds: number) => { DR: number; Freq: number };
    },
  ]
> = [
  ['EU_863_870_TTN', { uplink: { DR: 5, Freq: 868100000 }, macSettings: ON_PLAN, pingSlotChannel: () => ({ DR: 3, Freq: 869525000 }) }],
  [
    'US_902_928_FSB_2',
    {
      uplink: { DR: 3, Freq: 903900000 },
      macSettings: {},
      pingSlotChannel: (devAddr, beaconSeconds) => ({ DR: 8, Freq: 923300000 + 600000 * ((parseInt(devAddr, 16) + Math.floor(beaconSeconds / 128)) % 8) }),
    },
  ],
];

/** GPS ms now: the GPS epoch (1980-01-06) plus now, GPS ahead of UTC by 18 leap seconds. */
const gpsNowMs = () => Date.now() - Date.UTC(1980, 0, 6) + 18_000;

/** A self-signed certificate for `localhost` (station's TLS checks host names, not addresses), made by openssl. */
function localhostCertificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'lns.crt');
  const key = join(dir, 'lns.key');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost'].concat([
      '-addext',
      'subjectAltName=DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ]),
    { stdio: 'ignore' },
  );
  return { cert, key };
}

describe.each(MODES)('LoRa Basics Station (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  let api: Api;
  let reg: Registries;
  let receiver: WebhookReceiver;
  let tlsPort: number;
  let trust: Buffer;
  let certDir: string;
  const app = uid('app');
  const opened: Array<{ close(): void }> = [];

  beforeAll(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'lbs-e2e-'));
    const { cert, key } = localhostCertificate(certDir);
    trust = readFileSync(cert);
    tlsPort = await freePort();
    stack = await start({ ...ENV, GS_LBS_TLS_CERT_FILE: cert, GS_LBS_TLS_KEY_FILE: key, GS_LBS_TLS_PORT: String(tlsPort) });
    api = new Api(() => stack);
    reg = new Registries(api);
    await createApplications(api, [app]);
    receiver = await new WebhookReceiver().start();
    await setJsonWebhook(api, app, 'hook', receiver.url, { uplink_message: '/up', join_accept: '/join', downlink_sent: '/down/sent' });
  }, 120_000);

  afterAll(async () => {
    for (const o of opened) o.close();
    await receiver?.stop();
    await stack?.stop();
    if (certDir) rmSync(certDir, { recursive: true, force: true });
  });

  const tcUri = () => `ws://127.0.0.1:${stack.lbsPort}`;
  const tlsUri = () => `wss://localhost:${tlsPort}`;

  async function gateway(plan: string, extra: Record<string, unknown> = {}): Promise<{ id: string; eui: string }> {
    const eui = randomEui();
    const id = uid('lbs');
    expectStatus(
      await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, { gateway: { ids: { gateway_id: id, eui }, frequency_plan_id: plan, ...extra } }),
      200,
    );
    return { id, eui };
  }

  async function apiKey(gatewayId: string, rights: string[]): Promise<string> {
    const res = await api.post(`/api/v3/gateways/${gatewayId}/api-keys`, { name: 'lns', rights });
    expectStatus(res, 200);
    return res.json?.key as string;
  }

  /** A station connected over ws:// (discovery first), kept open until the suite ends. */
  async function station(eui: string): Promise<SimulatedBasicStation> {
    const info = await SimulatedBasicStation.discover(tcUri(), eui);
    const s = new SimulatedBasicStation(eui);
    opened.push(s);
    await s.connect(info.uri as string);
    return s;
  }

  async function otaaDevice(plan = 'EU_863_870_TTN') {
    const dev = uid('dev');
    const ids = { device_id: dev, dev_eui: randomEui(), join_eui: randomEui() };
    const appKey = randomKey();
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
    await reg.setOk('js', app, dev, { ids, root_keys: { app_key: { key: appKey } } }, ['root_keys.app_key.key']);
    const ns = { ids, frequency_plan_id: plan, lorawan_version: 'MAC_V1_0_3', lorawan_phy_version: 'PHY_V1_0_3_REV_A', supports_join: true };
    await reg.setOk('ns', app, dev, ns, ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join']);
    await reg.setOk('as', app, dev, { ids }, []);
    return { dev, sim: new SimulatedOtaaDevice({ joinEui: ids.join_eui, devEui: ids.dev_eui, appKey, macVersion: 'MAC_V1_0_3' }) };
  }

  /** Queues an application downlink (FPort, text) for the device at the AS. */
  async function pushDownlink(dev: string, fPort: number, text: string): Promise<void> {
    const res = await api.post(`/api/v3/as/applications/${app}/devices/${dev}/down/push`, {
      downlinks: [{ f_port: fPort, frm_payload: Buffer.from(text).toString('base64') }],
    });
    expectStatus(res, 200);
  }

  const uplinksOf = (dev: string) => receiver.to('/up').filter((r) => r.json?.end_device_ids?.device_id === dev);

  it('discovery: a registered gateway gets the data URI with port and path; an unknown EUI an error', async () => {
    const { eui } = await gateway('EU_863_870');
    const id6 = `${eui.slice(0, 4)}:${eui.slice(4, 8)}:${eui.slice(8, 12)}:${eui.slice(12)}`.toLowerCase();
    const info = await SimulatedBasicStation.discover(tcUri(), id6);
    expect(info).toEqual({ router: expect.any(String), muxs: 'muxs-::0', uri: `ws://127.0.0.1:${stack.lbsPort}/traffic/eui-${eui}` });
    const unknown = await SimulatedBasicStation.discover(tcUri(), randomEui());
    expect(unknown).toEqual({ router: expect.any(String), error: expect.stringContaining('gateway_not_found') });
    expect(unknown).not.toHaveProperty('uri');
    // Over wss:// the URI is the TLS listener's, on the host the gateway asked for.
    const secure = await SimulatedBasicStation.discover(tlsUri(), eui, { ca: trust });
    expect(secure.uri).toBe(`wss://localhost:${tlsPort}/traffic/eui-${eui}`);
  });

  it.each(Object.entries(REFERENCE_ROUTER_CONFIGS))(
    'router_config of a %s gateway: region, hardware, TX range, DRs and the concentrator',
    async (plan, expected) => {
      const { eui } = await gateway(plan);
      const s = await station(eui);
      // No NetID or JoinEUI filter (the stack configures none): station forwards every frame.
      expect(s.routerConfig?.raw).toMatchObject({ msgtype: 'router_config', NetID: null, JoinEui: null, ...expected, bcning: BEACONING[plan] });
      // A debug build of station (no `prod` feature) leaves LBT, duty cycle and dwell time to the server.
      expect(s.routerConfig).toMatchObject({ nocca: true, nodc: true, nodwell: true, MuxTime: expect.any(Number) });
    },
  );

  it('OTAA join: the join-accept goes out in RX1 on the station’s clock (lora-packet decodes it), dntxed, then data uplinks reach the webhook and a class A downlink is sent and reported', async () => {
    const { eui } = await gateway('EU_863_870_TTN');
    const s = await station(eui);
    const { dev, sim } = await otaaDevice();
    const sent = s.sendFrame(sim.joinRequest(), { DR: 5, Freq: 868100000, rssi: -50, snr: 9 });
    const uplinkXtime = (sent.upinfo as { xtime: bigint }).xtime;
    const accept = await s.nextDownlink(6000);
    // RX1 (JoinAcceptDelay1 = 5 s) on the uplink's channel and data rate, at the uplink's xtime + 5 s.
    expect(accept).toMatchObject({ dC: 0, RX1DR: 5, RX1Freq: 868100000, rctx: 0 });
    expect((accept.xtime as bigint) + BigInt((accept.RxDelay as number) * 1_000_000)).toBe(uplinkXtime + 5_000_000n);
    const joined = sim.acceptJoin(Buffer.from(accept.pdu, 'hex'));
    s.acknowledge(accept);
    await receiver.waitFor(() => receiver.to('/join').some((r) => r.json?.end_device_ids?.device_id === dev), 10_000, 'the /join webhook');
    const keys = joined.keys as { nwkSKey: string; appSKey: string };

    // The first data uplink makes the session current and reaches the application.
    s.sendFrame(dataUplink(keys, joined.devAddr, 0, 2, Buffer.from('hello')), { DR: 5, Freq: 868300000 });
    await receiver.waitFor(() => uplinksOf(dev).length === 1, 10_000, 'the first uplink');
    expect(uplinksOf(dev)[0].json?.uplink_message).toMatchObject({ f_port: 2, frm_payload: Buffer.from('hello').toString('base64') });
    await sleep(1500);
    s.downlinks.length = 0;

    // A queued downlink goes out in RX1 of the next (confirmed) uplink; its dntxed becomes downlink_sent.
    await pushDownlink(dev, 3, 'hi');
    const confirmed = s.sendFrame(dataUplink(keys, joined.devAddr, 1, 2, Buffer.from([2]), { confirmed: true }), { DR: 5, Freq: 868500000 });
    const down = await s.nextDownlink(5000);
    const rxDelayUs = BigInt(Math.max(joined.rxDelay, 1) * 1_000_000);
    expect(down).toMatchObject({ dC: 0, RX1DR: 5, RX1Freq: 868500000 });
    expect((down.xtime as bigint) + BigInt((down.RxDelay as number) * 1_000_000)).toBe((confirmed.upinfo as { xtime: bigint }).xtime + rxDelayUs);
    const frame = loraPacket.fromWire(Buffer.from(down.pdu, 'hex'));
    expect(loraPacket.verifyMIC(frame, Buffer.from(keys.nwkSKey, 'hex'))).toBe(true);
    expect(frame.getFCtrlACK()).toBe(true);
    expect(loraPacket.decrypt(frame, Buffer.from(keys.appSKey, 'hex'), Buffer.from(keys.nwkSKey, 'hex')).toString()).toBe('hi');
    s.acknowledge(down);
    await receiver.waitFor(() => receiver.to('/down/sent').some((r) => r.json?.end_device_ids?.device_id === dev), 10_000, 'downlink_sent');
  }, 60_000);

  it('US915 (FSB 2): uplinks on a 125 kHz and on the 500 kHz channel are answered in RX1 on their 500 kHz downlink channels at the downlink-only DR13, as station’s DR table names it', async () => {
    const { eui } = await gateway('US_902_928_FSB_2');
    const s = await station(eui);
    const { dev, devAddr, keys } = await registerAbpDevice(api, reg, app, 'us915', { frequency_plan_id: 'US_902_928_FSB_2' });
    // Channel 8 (903.9 MHz, the first of FSB 2) at DR3 (SF7/125 kHz).
    const confirmed = s.sendFrame(dataUplink(keys, devAddr, 1, 6, Buffer.from('us'), { confirmed: true }), { DR: 3, Freq: 903900000 });
    await receiver.waitFor(() => uplinksOf(dev).length === 1, 10_000, 'the uplink');
    expect(uplinksOf(dev)[0].json?.uplink_message?.settings).toMatchObject({
      data_rate: { lora: { spreading_factor: 7, bandwidth: 125000 } },
      frequency: '903900000',
    });
    const down = await s.nextDownlink(5000);
    // RP002 US902-928: RX1 on downlink channel 8 mod 8 = 0 (923.3 MHz), DR3 → DR13 (SF7/500 kHz, downlink only in router_config's DRs).
    expect(down).toMatchObject({ dC: 0, RX1DR: 13, RX1Freq: 923300000 });
    expect(s.routerConfig?.DRs[13]).toEqual([7, 500, 1]);
    expect((down.xtime as bigint) + BigInt((down.RxDelay as number) * 1_000_000)).toBe((confirmed.upinfo as { xtime: bigint }).xtime + 1_000_000n);
    const frame = loraPacket.fromWire(Buffer.from(down.pdu, 'hex'));
    expect(frame.getFCtrlACK()).toBe(true);
    expect(loraPacket.verifyMIC(frame, Buffer.from(keys.nwkSKey, 'hex'))).toBe(true);

    // The 500 kHz uplink channel 65 (904.6 MHz) at DR4 (SF8/500 kHz): RX1 on downlink channel 65 mod 8 = 1 (923.9 MHz) at DR13.
    await sleep(2500);
    s.downlinks.length = 0;
    s.sendFrame(dataUplink(keys, devAddr, 2, 6, Buffer.from('us'), { confirmed: true }), { DR: 4, Freq: 904600000 });
    await receiver.waitFor(() => uplinksOf(dev).length === 2, 10_000, 'the 500 kHz uplink');
    expect(uplinksOf(dev)[1].json?.uplink_message?.settings).toMatchObject({ data_rate: { lora: { spreading_factor: 8, bandwidth: 500000 } } });
    expect(await s.nextDownlink(5000)).toMatchObject({ dC: 0, RX1DR: 13, RX1Freq: 923900000 });
  }, 60_000);

  it('a class C downlink: sent as dC 2 on RX2, its dntxed becomes downlink_sent', async () => {
    const { eui } = await gateway('EU_863_870_TTN');
    const s = await station(eui);
    const { dev, ids, devAddr, keys } = await registerAbpDevice(api, reg, app, 'classc', { supports_class_c: true });
    const { json } = await reg.getOk('ns', app, dev, ['mac_state']);
    const { mac_state: macState } = json as { mac_state: Record<string, unknown> };
    await reg.setOk('ns', app, dev, { ids, mac_state: { ...macState, device_class: 'CLASS_C' } }, ['mac_state.device_class']);
    // One uplink, so the NS knows the gateway hears the device.
    s.sendFrame(dataUplink(keys, devAddr, 1, 3, Buffer.from('hi')), { DR: 5, Freq: 868100000 });
    await receiver.waitFor(() => uplinksOf(dev).length === 1, 10_000, 'the uplink');
    await sleep(2500);
    s.downlinks.length = 0;
    await pushDownlink(dev, 7, 'class c');
    const down = await s.nextDownlink(10_000);
    expect(down.dC).toBe(2);
    expect(down.RX2Freq ?? down.Freq).toBe(869525000);
    const frame = loraPacket.fromWire(Buffer.from(down.pdu, 'hex'));
    expect((frame.DevAddr as Buffer).toString('hex').toUpperCase()).toBe(devAddr.toUpperCase());
    expect(loraPacket.decrypt(frame, Buffer.from(keys.appSKey, 'hex'), Buffer.from(keys.nwkSKey, 'hex')).toString()).toBe('class c');
    s.acknowledge(down);
    await receiver.waitFor(() => receiver.to('/down/sent').some((r) => r.json?.end_device_ids?.device_id === dev), 10_000, 'downlink_sent');
  }, 60_000);

  it('the ping offset formula written here gives TTS’s test vectors (pkg/crypto ping_slot_test.go)', () => {
    expect(pingOffset(0, '00000000', 32)).toBe(6);
    expect(pingOffset(0xff42, '004200FF', 4096)).toBe(3994);
  });

  it.each(CLASS_B_PLANS)(
    'a class B downlink (%s): the station synced by timesync stamps its uplinks with GPS time; the downlink goes out as dC 1 at one of the device’s ping slots on its ping-slot channel, its dntxed becomes downlink_sent',
    async (plan, { uplink, macSettings, pingSlotChannel }) => {
      const { eui } = await gateway(plan);
      const s = await station(eui);
      const sync = await s.timesync();
      expect(Math.abs(Number(sync.gpstime / 1000n) - gpsNowMs())).toBeLessThan(2000);
      const { dev, ids, devAddr, keys } = await registerAbpDevice(api, reg, app, 'classb', {
        frequency_plan_id: plan,
        supports_class_b: true,
        mac_settings: { ping_slot_periodicity: 'PING_EVERY_1S', status_count_periodicity: 0, status_time_periodicity: '0s', ...macSettings },
      });
      // An uplink with the ClassB bit, received at a GPS time: the device is class B, the gateway can send at GPS times.
      const up = s.sendFrame(dataUplink(keys, devAddr, 1, 3, Buffer.from('b'), { classB: true }), uplink);
      expect((up.upinfo as { gpstime: bigint }).gpstime).toBeGreaterThan(0n);
      await receiver.waitFor(() => uplinksOf(dev).length === 1, 10_000, 'the uplink');
      expect(uplinksOf(dev)[0].json?.uplink_message?.rx_metadata?.[0]).toMatchObject({ gps_time: expect.any(String) });
      for (let i = 0; ; i++) {
        const { json } = await reg.getOk('ns', app, dev, ['mac_state']);
        if ((json as { mac_state: { device_class?: string } }).mac_state.device_class === 'CLASS_B') break;
        if (i === 20) throw new Error('the device did not become class B');
        await sleep(250);
      }
      await sleep(2500);
      s.downlinks.length = 0;

      await pushDownlink(dev, 4, 'ping slot');
      const down = await s.nextDownlink(10_000);
      const receivedGps = s.gpstime() as bigint;
      // Class B at a GPS time, no xtime.
      expect(down).toMatchObject({ dC: 1, DevEui: ids.dev_eui.match(/../g)?.join('-') });
      expect(down.xtime).toBeUndefined();
      const at = down.gpstime as bigint;
      expect(typeof at).toBe('bigint');
      // In the future of the station's GPS clock, within the next two beacon periods.
      expect(at).toBeGreaterThan(receivedGps);
      expect(at - receivedGps).toBeLessThan(2n * BEACON_PERIOD_US);
      // A ping slot of this device: beacon + 2.120 s + (pingOffset + N × pingPeriod) × 30 ms, pingPeriod 32 (PING_EVERY_1S).
      const beacon = at - (at % BEACON_PERIOD_US);
      const sinceReserved = at - beacon - BEACON_RESERVED_US;
      expect(sinceReserved).toBeGreaterThanOrEqual(0n);
      // At the slot's start (TTS adds a beacon delay of 1.5 µs).
      expect(sinceReserved % PING_SLOT_US).toBeLessThanOrEqual(2n);
      const slot = Number(sinceReserved / PING_SLOT_US);
      expect(slot % 32).toBe(pingOffset(Number(beacon / 1_000_000n), devAddr, 32));
      // On the band's ping-slot channel of that beacon period, at its ping-slot data rate.
      expect({ DR: down.DR, Freq: down.Freq }).toEqual(pingSlotChannel(devAddr, Number(beacon / 1_000_000n)));

      const frame = loraPacket.fromWire(Buffer.from(down.pdu, 'hex'));
      expect((frame.DevAddr as Buffer).toString('hex').toUpperCase()).toBe(devAddr.toUpperCase());
      expect(loraPacket.verifyMIC(frame, Buffer.from(keys.nwkSKey, 'hex'))).toBe(true);
      expect(loraPacket.decrypt(frame, Buffer.from(keys.appSKey, 'hex'), Buffer.from(keys.nwkSKey, 'hex')).toString()).toBe('ping slot');
      s.acknowledge(down);
      await receiver.waitFor(() => receiver.to('/down/sent').some((r) => r.json?.end_device_ids?.device_id === dev), 10_000, 'downlink_sent');
    },
    60_000,
  );

  it('connection stats over HTTP after uplinks, a downlink and its dntxed: protocol semtechws/lbslns, counts, the status, the round trips a slow link’s RefTime tells; the batch; not_connected once it closes', async () => {
    const LATENCY_MS = 40;
    const { id, eui } = await gateway('EU_863_870_TTN');
    const s = await station(eui);
    s.latencyMs = LATENCY_MS;
    const { devAddr, keys } = await registerAbpDevice(api, reg, app, 'stats', { mac_settings: ON_PLAN });
    const t0 = Date.now();
    // Confirmed uplinks until one's ACK goes out (a busy machine can make the NS miss both windows of one).
    let fCnt = 0;
    while (s.downlinks.length === 0 && fCnt < 4) {
      fCnt++;
      s.sendFrame(dataUplink(keys, devAddr, fCnt, 1, Buffer.from([fCnt]), { confirmed: true }), { DR: 5, Freq: 868100000 });
      await s.next((m) => m.msgtype === 'dnmsg', 4000).catch(() => undefined);
    }
    const down = await s.nextDownlink(1);
    s.acknowledge(down);
    // The NS's ACK (no application payload, so no downlink_sent): its dntxed counted once it arrives.
    // Once the downlink's window (RX1 or RX2) is over, its sub-band has been on the air.
    await sleep(2500);
    const statsPath = `/api/v3/gs/gateways/${id}/connection/stats`;
    let res = await api.get(statsPath);
    for (let i = 0; i < 20 && res.json?.tx_acknowledgment_count !== '1'; i++) {
      await sleep(250);
      res = await api.get(statsPath);
    }
    expectStatus(res, 200);
    const stats = res.json;
    expect(stats).toMatchObject({
      protocol: 'semtechws/lbslns',
      uplink_count: String(fCnt),
      downlink_count: '1',
      tx_acknowledgment_count: '1',
      gateway_remote_address: { ip: '127.0.0.1' },
      // The version message is the status (TTS lbslns: versions and features).
      last_status: { versions: { station: '2.0.6(test/std)' }, advanced: { model: 'test', features: 'gps' } },
      // Every uplink carried a RefTime (the router_config's MuxTime and the station's time since).
      round_trip_times: { count: fCnt },
    });
    for (const field of [
      'connected_at',
      'last_status_received_at',
      'last_uplink_received_at',
      'last_downlink_received_at',
      'last_tx_acknowledgment_received_at',
    ])
      expect(Date.parse(stats[field])).toBeGreaterThanOrEqual(t0 - 60_000);
    // The round trip is the link's latency (the loopback adds little); the millisecond clocks on both ends may take 1 ms off.
    const seconds = (d: string) => Number(/^(\d+(?:\.\d+)?)s$/.exec(d)?.[1]);
    expect(seconds(stats.round_trip_times.min)).toBeGreaterThanOrEqual((LATENCY_MS - 1) / 1000);
    expect(seconds(stats.round_trip_times.max)).toBeLessThan(LATENCY_MS / 1000 + 1);
    const hz = BigInt(down.RX1Freq ?? down.RX2Freq ?? down.Freq ?? 0);
    const subBands = stats.sub_bands as Array<Record<string, string | number>>;
    const used = subBands.find((b) => BigInt(b.min_frequency) <= hz && hz <= BigInt(b.max_frequency));
    expect(used?.downlink_utilization).toBeGreaterThan(0);

    // The batch: this gateway with the field mask, a gateway that is not connected left out.
    const offline = await gateway('EU_863_870_TTN');
    const batch = await api.post('/api/v3/gs/gateways/connection/stats', {
      gateway_ids: [{ gateway_id: id }, { gateway_id: offline.id }],
      field_mask: { paths: ['protocol', 'uplink_count', 'tx_acknowledgment_count', 'round_trip_times.count'] },
    });
    expectStatus(batch, 200);
    expect(batch.json).toEqual({
      entries: { [id]: { protocol: 'semtechws/lbslns', uplink_count: String(fCnt), tx_acknowledgment_count: '1', round_trip_times: { count: fCnt } } },
    });

    // Closed by the station: no stats any more.
    s.close();
    await s.closed();
    for (let i = 0; ; i++) {
      const gone = await api.get(statsPath);
      if (gone.status === 404) {
        expectTtsError(gone, 404, 5, 'pkg/gatewayserver', 'not_connected', { gateway_uid: id });
        break;
      }
      if (i === 20) throw new Error(`the stats still answer ${gone.status} after the station closed`);
      await sleep(250);
    }
  }, 60_000);

  it('gs.gateway.connect names the protocol; a station that stops answering pings is disconnected within (missed pongs + 1) ping intervals, with the reason', async () => {
    const { id, eui } = await gateway('EU_863_870');
    const events = await EventStream.open(stack.baseUrl, {
      authorization: `Bearer ${stack.adminKey}`,
      body: { identifiers: [{ gateway_ids: { gateway_id: id } }], names: ['gs.gateway.connect', 'gs.gateway.disconnect'] },
    });
    opened.push(events);
    expect((await events.nextEvent()).name).toBe('events.stream.start');
    const s = await station(eui);
    const connect: EventJson = await events.nextEvent(5000);
    expect(connect).toMatchObject({ name: 'gs.gateway.connect', data: { protocol: 'semtechws/lbslns', gateway_remote_address: { ip: '127.0.0.1' } } });
    await sleep(1200);
    s.answerPings(false);
    const silentAt = Date.now();
    await s.closed();
    expect(Date.now() - silentAt).toBeLessThan(3 * 400 + 600);
    const disconnect: EventJson = await events.nextEvent(5000);
    expect(disconnect.name).toBe('gs.gateway.disconnect');
    expect(disconnect.data).toMatchObject({ namespace: 'pkg/gatewayserver/io/semtechws', name: 'missed_too_many_pongs' });
  });

  it('tokens over wss://: the gateway’s link key is accepted (with or without Bearer); wrong, insufficient, foreign or missing keys are refused before any WebSocket', async () => {
    const { id, eui } = await gateway('EU_863_870', { require_authenticated_connection: true });
    const linkKey = await apiKey(id, ['RIGHT_GATEWAY_LINK']);
    const infoKey = await apiKey(id, ['RIGHT_GATEWAY_INFO']);
    const other = await gateway('EU_863_870');
    const otherKey = await apiKey(other.id, ['RIGHT_GATEWAY_LINK']);
    const data = `${tlsUri()}/traffic/eui-${eui}`;

    // The right key: discovery and the data connection.
    const info = await SimulatedBasicStation.discover(tlsUri(), eui, { ca: trust, token: linkKey });
    expect(info.uri).toBe(data);
    const good = new SimulatedBasicStation(eui);
    opened.push(good);
    expect((await good.connect(data, { ca: trust, token: linkKey })).region).toBe('EU868');
    good.close();
    await good.closed();

    // The bare key, as TTS accepts it.
    const bare = new WebSocket(data, { ca: trust, headers: { Authorization: linkKey } });
    await new Promise<void>((resolve, reject) => {
      bare.once('open', () => resolve());
      bare.once('unexpected-response', (_req, res) => reject(new Error(`answered ${res.statusCode}`)));
      bare.once('error', reject);
    });
    bare.close();

    const refusal = async (token: string | undefined, uri = data) => {
      const s = new SimulatedBasicStation(eui);
      opened.push(s);
      return s.connect(uri, { ca: trust, token }).then(
        () => 'connected',
        (err: Error) => err.message,
      );
    };
    expect(await refusal('NNSXS.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB')).toMatch(
      /answered 401/,
    );
    expect(await refusal(`${linkKey.slice(0, -4)}AAAA`)).toMatch(/answered 401/);
    expect(await refusal(infoKey)).toMatch(/answered 403/);
    expect(await refusal(otherKey)).toMatch(/answered 403/);
    expect(await refusal(undefined)).toMatch(/answered 401/);
    // A revoked key: refused from then on (each connection asks the IS).
    const revoked = await apiKey(id, ['RIGHT_GATEWAY_LINK']);
    expect(await refusal(revoked)).toBe('connected');
    expectStatus(await api.delete(`/api/v3/gateways/${id}/api-keys/${revoked.split('.')[1]}`), 200);
    expect(await refusal(revoked)).toMatch(/answered 401/);
    // Over ws:// station sends no token: a gateway that requires one cannot connect there.
    expect(await refusal(linkKey, `${tcUri()}/traffic/eui-${eui}`)).toMatch(/answered 401/);
    expect(await SimulatedBasicStation.discover(tcUri(), eui)).toMatchObject({ error: expect.stringContaining('no_auth_provided') });
    // The key never shows in the logs.
    expect(stack.logs()).not.toContain(linkKey.split('.')[2]);
  });

  it('a Semtech UDP gateway and a Basics Station gateway hear the same uplink: delivered once, with both gateways’ metadata; each ACK goes out once, through the gateway that heard it best', async () => {
    const lbs = await gateway('EU_863_870_TTN');
    const s = await station(lbs.eui);
    const udpId = uid('udp');
    const udpEui = randomEui();
    expectStatus(
      await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, { gateway: { ids: { gateway_id: udpId, eui: udpEui }, frequency_plan_id: 'EU_863_870_TTN' } }),
      200,
    );
    const udp = new SimulatedUdpGateway(udpEui, { host: '127.0.0.1', port: stack.udpPort as number });
    await udp.open();
    opened.push(udp);
    expect(await udp.pull()).toBe(0x04);
    udp.keepAlive(2000);

    const { dev, devAddr, keys } = await registerAbpDevice(api, reg, app, 'dedup', { mac_settings: ON_PLAN });

    const frame = dataUplink(keys, devAddr, 1, 5, Buffer.from('twice heard'));
    s.sendFrame(frame, { DR: 5, Freq: 868100000, rssi: -70 });
    await udp.push({ rxpk: [udp.rxpkNow(frame, { rssi: -90, lsnr: 5 })] });
    await receiver.waitFor(() => uplinksOf(dev).length >= 1, 10_000, 'the uplink');
    await sleep(1500);
    expect(uplinksOf(dev)).toHaveLength(1);
    const gateways = (uplinksOf(dev)[0].json?.uplink_message?.rx_metadata as Array<{ gateway_ids: { gateway_id: string } }>).map(
      (m) => m.gateway_ids.gateway_id,
    );
    expect(gateways.sort()).toEqual([lbs.id, udpId].sort());

    // Both serve the device: a confirmed uplink heard by both is answered once, by the gateway with the better SNR.
    const ackVia = async (fCnt: number, lbsSnr: number, udpSnr: number) => {
      // The previous uplink's windows (RX2: 2 s) are over.
      await sleep(2500);
      s.downlinks.length = 0;
      const udpBefore = udp.downlinks.length;
      const confirmed = dataUplink(keys, devAddr, fCnt, 5, Buffer.from([fCnt]), { confirmed: true });
      s.sendFrame(confirmed, { DR: 5, Freq: 868100000, rssi: -80, snr: lbsSnr });
      await udp.push({ rxpk: [udp.rxpkNow(confirmed, { rssi: -80, lsnr: udpSnr })] });
      await receiver.waitFor(() => uplinksOf(dev).length === fCnt, 10_000, `uplink ${fCnt}`);
      await sleep(2500);
      const ack = [
        ...s.downlinks.map((d) => d.pdu),
        ...udp.downlinks.slice(udpBefore).map((d) => Buffer.from(d.txpk.data as string, 'base64').toString('hex')),
      ];
      expect(ack).toHaveLength(1);
      const frame = loraPacket.fromWire(Buffer.from(ack[0], 'hex'));
      expect(frame.getFCtrlACK()).toBe(true);
      expect(loraPacket.verifyMIC(frame, Buffer.from(keys.nwkSKey, 'hex'))).toBe(true);
      return { lbs: s.downlinks.length, udp: udp.downlinks.length - udpBefore, refused: s.refusedDownlinks.length };
    };
    expect(await ackVia(2, 9.5, 2)).toEqual({ lbs: 1, udp: 0, refused: 0 });
    expect(await ackVia(3, -5, 8)).toEqual({ lbs: 0, udp: 1, refused: 0 });
    expect(uplinksOf(dev)).toHaveLength(3);
  }, 60_000);
});
