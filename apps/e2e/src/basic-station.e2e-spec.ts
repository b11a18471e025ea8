/**
 * LoRa Basics Station gateways end to end, in both run modes, through `SimulatedBasicStation`
 * (written from the specification, on `ws` and `lora-packet`): discovery on `/router-info`; the
 * `router_config` of an EU868 and a US915 (FSB 2) gateway against values transcribed by hand from
 * TTN's reference concentrator configurations and station's own test LNS
 * (`REFERENCE_ROUTER_CONFIGS`); an OTAA join (the
 * join-accept decoded by lora-packet, timed for RX1 on the station's clock) and data uplinks
 * reaching the webhook; a class A and a class C downlink each answered with `dntxed`, leading to
 * `downlink_sent`; the keepalive disconnecting a station that stops answering pings; tokens over
 * `wss://` (station sends its `tc.key` only there): the gateway's key accepted (with or without
 * "Bearer"), a wrong key, a key without RIGHT_GATEWAY_LINK, another gateway's key and no key where
 * the gateway requires one refused before any WebSocket; and a Semtech UDP gateway and a Basics
 * Station gateway hearing the same uplink, delivered once.
 */
import { execFileSync } from 'node:child_process';
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
import { ADMIN_USER_ID, Api, createApplications, expectStatus, sleep } from './http-client';
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
      expect(s.routerConfig?.raw).toMatchObject({ msgtype: 'router_config', NetID: null, JoinEui: null, ...expected });
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
    expectStatus(
      await api.post(`/api/v3/as/applications/${app}/devices/${dev}/down/push`, {
        downlinks: [{ f_port: 3, frm_payload: Buffer.from('hi').toString('base64') }],
      }),
      200,
    );
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
    expectStatus(
      await api.post(`/api/v3/as/applications/${app}/devices/${dev}/down/push`, {
        downlinks: [{ f_port: 7, frm_payload: Buffer.from('class c').toString('base64') }],
      }),
      200,
    );
    const down = await s.nextDownlink(10_000);
    expect(down.dC).toBe(2);
    expect(down.RX2Freq ?? down.Freq).toBe(869525000);
    const frame = loraPacket.fromWire(Buffer.from(down.pdu, 'hex'));
    expect((frame.DevAddr as Buffer).toString('hex').toUpperCase()).toBe(devAddr.toUpperCase());
    expect(loraPacket.decrypt(frame, Buffer.from(keys.appSKey, 'hex'), Buffer.from(keys.nwkSKey, 'hex')).toString()).toBe('class c');
    s.acknowledge(down);
    await receiver.waitFor(() => receiver.to('/down/sent').some((r) => r.json?.end_device_ids?.device_id === dev), 10_000, 'downlink_sent');
  }, 60_000);

  it('a station that stops answering pings is disconnected within (missed pongs + 1) ping intervals, with the reason', async () => {
    const { id, eui } = await gateway('EU_863_870');
    const events = await EventStream.open(stack.baseUrl, {
      authorization: `Bearer ${stack.adminKey}`,
      body: { identifiers: [{ gateway_ids: { gateway_id: id } }], names: ['gs.gateway.disconnect'] },
    });
    opened.push(events);
    expect((await events.nextEvent()).name).toBe('events.stream.start');
    const s = await station(eui);
    await sleep(1200);
    s.answerPings(false);
    const silentAt = Date.now();
    await s.closed();
    expect(Date.now() - silentAt).toBeLessThan(3 * 400 + 600);
    const disconnect: EventJson = await events.nextEvent(5000);
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

  it('a Semtech UDP gateway and a Basics Station gateway hear the same uplink: delivered once, with both gateways’ metadata', async () => {
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

    const { dev, devAddr, keys } = await registerAbpDevice(api, reg, app, 'dedup');

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
  }, 60_000);
});
