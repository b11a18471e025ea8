/**
 * OTAA joins end to end, GS → NS → JS → AS, in each run mode and with two replicas of every
 * component: devices registered through the HTTP API, simulated Semtech packet forwarders on the
 * Gateway Server's UDP port(s), join-requests and join-accepts built and checked by `lora-packet`
 * (never by the stack's own crypto), and what a user sees: the join-accept on the gateway with the
 * better signal timed for RX1, the join-flow events of the seed with a shared correlation ID, the
 * `/join` webhook, and the registries after the join. Refusals (replayed DevNonce, bad MIC,
 * unknown device) send nothing.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import loraPacket from 'lora-packet';
import type { EventJson } from '@lorawan/api';
import { SimulatedOtaaDevice, SimulatedUdpGateway, startDistributedStack, startEmbeddedStack, type StackUnderTest, WebhookReceiver } from '@lorawan/testing';
import { Registries, randomEui, randomKey, uid } from './devices';
import { EventStream } from './event-stream';
import { type ConnectedGateway, connectGateways } from './gateways';
import { ADMIN_USER_ID, Api, createApplications, expectStatus, sleep } from './http-client';
import { setJsonWebhook } from './webhook-env';

type Start = () => Promise<StackUnderTest>;
const CLI = join(process.env.LW_DIST_DIR ?? join(__dirname, '../../../dist'), 'tools/src/cli/main.js');
const ALL = ['is', 'js', 'ns', 'as', 'events', 'gs'] as const;
/** The webhook receiver listens on loopback. */
const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
/** Distributed with the default NetID (000000: DevAddrs 00000000/7), embedded with TTN's (000013: 26000000/7). */
const MODES: Array<[string, Start, { replicas: boolean; netId: string; devAddrTop7: number }]> = [
  ['distributed', () => startDistributedStack({ components: [...ALL], env }), { replicas: false, netId: '000000', devAddrTop7: 0x00 }],
  [
    'distributed, two replicas of each component',
    () => startDistributedStack({ components: [...ALL], replicas: 2, env }),
    { replicas: true, netId: '000000', devAddrTop7: 0x00 },
  ],
  ['embedded', () => startEmbeddedStack({ env: { ...env, NS_NET_ID: '000013' } }), { replicas: false, netId: '000013', devAddrTop7: 0x26 >> 1 }],
];

const JOIN_FLOW = [
  'gs.up.receive',
  'gs.up.forward',
  'gs.down.send',
  'js.join.accept',
  'ns.up.join.forward',
  'ns.up.merge_metadata',
  'as.up.join.receive',
  'as.up.join.forward',
];

/** The join-accept as the device reads it: decrypted by lora-packet. */
function openJoinAccept(phy: Buffer, key: Buffer): ReturnType<typeof loraPacket.fromWire> {
  return loraPacket.fromWire(loraPacket.decryptJoinAccept(loraPacket.fromWire(phy), key));
}

function joinRequest(o: { joinEui: string; devEui: string; devNonce: string; key: string }): Buffer {
  return loraPacket
    .fromFields(
      { MType: 'Join Request', AppEUI: Buffer.from(o.joinEui, 'hex'), DevEUI: Buffer.from(o.devEui, 'hex'), DevNonce: Buffer.from(o.devNonce, 'hex') },
      undefined,
      undefined,
      Buffer.from(o.key, 'hex'),
    )
    .getPHYPayload() as Buffer;
}

describe.each(MODES)('OTAA join (%s)', (_mode, start, { replicas, netId, devAddrTop7 }) => {
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
    await setJsonWebhook(api, app, 'join-hook', receiver.url, { join_accept: '/join' });
    // Two gateways; with replicas, each on its own Gateway Server.
    gateways.push(...(await connectGateways(api, stack, { count: 2, replicas })));
    opened.push(...gateways.map((g) => g.udp));
  }, 120_000);

  afterAll(async () => {
    for (const o of opened) o.close();
    await receiver?.stop();
    await stack?.stop();
  });

  async function stream(identifiers: unknown[]): Promise<EventStream> {
    const s = await EventStream.open(stack.baseUrl, { authorization: `Bearer ${stack.adminKey}`, body: { identifiers } });
    opened.push(s);
    expect((await s.nextEvent()).name).toBe('events.stream.start');
    return s;
  }

  /** An OTAA device in all four registries; 1.1 devices also get a NwkKey. */
  async function device(version: 'MAC_V1_0_3' | 'MAC_V1_0_4' | 'MAC_V1_1') {
    const dev = uid('dev');
    const ids = { device_id: dev, dev_eui: randomEui(), join_eui: randomEui() };
    const appKey = randomKey();
    const nwkKey = version === 'MAC_V1_1' ? randomKey() : undefined;
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
    const rootKeys = { app_key: { key: appKey }, ...(nwkKey ? { nwk_key: { key: nwkKey } } : {}) };
    await reg.setOk('js', app, dev, { ids, root_keys: rootKeys }, ['root_keys.app_key.key', ...(nwkKey ? ['root_keys.nwk_key.key'] : [])]);
    const phy = version === 'MAC_V1_1' ? 'PHY_V1_1_REV_B' : 'PHY_V1_0_3_REV_A';
    const ns = { ids, frequency_plan_id: 'EU_863_870_TTN', lorawan_version: version, lorawan_phy_version: phy, supports_join: true };
    await reg.setOk('ns', app, dev, ns, ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join']);
    await reg.setOk('as', app, dev, { ids }, []);
    return { dev, ...ids, appKey, nwkKey, version };
  }

  /**
   * A registry's view of the device once it holds the join's pending session: the gateway has the
   * join-accept a moment before the NS and the AS have stored the session (a real device is heard
   * again only after its RX windows).
   */
  async function withPendingSession(c: 'ns' | 'as', dev: string): Promise<Record<string, unknown>> {
    for (let i = 0; ; i++) {
      const json = (await reg.getOk(c, app, dev, ['pending_session'])).json as Record<string, unknown>;
      if (json.pending_session) return json;
      if (i > 100) throw new Error(`the ${c.toUpperCase()} did not store the pending session of ${dev}`);
      await sleep(20);
    }
  }

  function uplinkIdOf(event: EventJson): string {
    const id = event.correlation_ids.find((c) => c.startsWith('gs:uplink:'));
    if (!id) throw new Error(`${event.name} has no gs:uplink correlation ID`);
    return id;
  }

  it('two gateways hear a 1.0.3 join-request: one join-accept via the better gateway, timed for RX1, with the join-flow events, the webhook and the registries after it', async () => {
    const d = await device('MAC_V1_0_3');
    const [weak, strong] = gateways;
    const events = await stream([
      { device_ids: { device_id: d.dev, application_ids: { application_id: app } } },
      ...gateways.map((g) => ({ gateway_ids: { gateway_id: g.id } })),
    ]);
    const frame = joinRequest({ joinEui: d.join_eui, devEui: d.dev_eui, devNonce: '1A2B', key: d.appKey });
    const sentAt = Date.now();
    await weak.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, { tmst: 3_000_000_000, rssi: -110, lsnr: -5 })] });
    await strong.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, { tmst: 100_000, rssi: -45, lsnr: 9 })] });

    const [down] = await strong.udp.waitForDownlinks(1, 5000);
    // Sent well before RX1 (5 s after the uplink), and for RX1: the uplink's concentrator time + 5 s, the uplink's channel and data rate.
    expect(down.at - sentAt).toBeLessThan(4000);
    expect(down.txpk).toMatchObject({ tmst: 5_100_000, freq: 868.1, datr: 'SF7BW125', codr: '4/5', ipol: true, modu: 'LORA', powe: 14 });
    const accept = openJoinAccept(Buffer.from(down.txpk.data as string, 'base64'), Buffer.from(d.appKey, 'hex'));
    expect(accept.getMType()).toBe('Join Accept');
    expect(loraPacket.verifyMIC(accept, undefined, Buffer.from(d.appKey, 'hex'))).toBe(true);
    const devAddr = (accept.DevAddr as Buffer).toString('hex').toUpperCase();
    // The NetID's DevAddr prefix (type 0: 7 bits).
    expect((accept.NetID as Buffer).toString('hex')).toBe(netId);
    expect(parseInt(devAddr.slice(0, 2), 16) >> 1).toBe(devAddrTop7);
    // EU_863_870_TTN: RX1 delay 1 s (the plan's), RX2 SF9 (DR3), a CFList with 867.1–867.9 MHz.
    expect((accept.RxDelay as Buffer)[0]).toBe(1);
    expect((accept.DLSettings as Buffer)[0]).toBe(0x03);
    expect((accept.CFList as Buffer).toString('hex')).toBe('184f84e85684b85e84886684586e8400');
    strong.udp.txAck(down.token);
    // Exactly one join-accept: none on the weaker gateway.
    await sleep(1500);
    expect(weak.udp.downlinks).toHaveLength(0);
    expect(strong.udp.downlinks).toHaveLength(1);

    // The join flow's events, each sharing the first copy's gs:uplink ID; the merge counts both gateways.
    const seen: EventJson[] = [];
    while (!JOIN_FLOW.every((n) => seen.some((e) => e.name === n))) seen.push(await events.nextEvent(10_000));
    // The copy that claimed the join-request (with two GS and NS replicas, either gateway's may be first to the NS) is the JS's.
    const firstId = uplinkIdOf(seen.find((e) => e.name === 'js.join.accept') as EventJson);
    for (const name of JOIN_FLOW) {
      const event = seen.find((e) => e.name === name && e.correlation_ids.includes(firstId));
      expect([name, event?.correlation_ids.includes(firstId)]).toEqual([name, true]);
    }
    const merge = seen.find((e) => e.name === 'ns.up.merge_metadata') as EventJson;
    expect(merge.data).toEqual({ '@type': 'type.googleapis.com/google.protobuf.Value', value: 2 });
    // Merged events hold the IDs of both copies.
    expect(merge.correlation_ids.filter((c) => c.startsWith('gs:uplink:'))).toHaveLength(2);
    const send = seen.find((e) => e.name === 'gs.down.send') as EventJson;
    expect(send.identifiers).toEqual([{ gateway_ids: { gateway_id: strong.id, eui: strong.eui } }]);
    for (const name of ['as.up.join.receive', 'as.up.join.forward']) {
      expect(seen.find((e) => e.name === name)?.identifiers).toEqual([
        { device_ids: { device_id: d.dev, application_ids: { application_id: app }, dev_eui: d.dev_eui, join_eui: d.join_eui, dev_addr: devAddr } },
      ]);
    }
    expect(JSON.stringify(seen)).not.toContain(d.appKey);

    // The webhook's join_accept, without the key.
    await receiver.waitFor(() => receiver.to('/join').some((r) => r.json?.end_device_ids?.device_id === d.dev), 10_000, 'the /join webhook');
    const hook = receiver.to('/join').find((r) => r.json?.end_device_ids?.device_id === d.dev);
    expect(hook?.json).toMatchObject({
      end_device_ids: { dev_addr: devAddr },
      join_accept: { session_key_id: expect.any(String), received_at: expect.any(String) },
    });
    expect(hook?.json.join_accept.app_s_key).toBeUndefined();
    expect(hook?.json.correlation_ids).toContain(firstId);

    // The registries after the join.
    const ns = await reg.getOk('ns', app, d.dev, ['pending_session', 'pending_mac_state', 'session']);
    const nsDevice = ns.json as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(nsDevice.pending_session).toMatchObject({ dev_addr: devAddr, keys: { session_key_id: hook?.json.join_accept.session_key_id } });
    expect(nsDevice.pending_session.keys.f_nwk_s_int_key.key).toMatch(/^[0-9A-F]{32}$/);
    expect(nsDevice.pending_mac_state.queued_join_accept).toBeUndefined();
    expect(nsDevice.pending_mac_state.pending_join_request).toMatchObject({ downlink_settings: { rx2_dr: 3 }, rx_delay: 1 });
    expect(nsDevice.pending_mac_state).toMatchObject({ device_class: 'CLASS_A', lorawan_version: 'MAC_V1_0_3', rx_windows_available: false });
    const js = await reg.getOk('js', app, d.dev, ['used_dev_nonces', 'last_join_nonce']);
    expect(js.json).toMatchObject({ used_dev_nonces: [0x1a2b], last_join_nonce: 1 });
    const as = await reg.getOk('as', app, d.dev, ['pending_session', 'session']);
    const asDevice = as.json as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const asSession = asDevice.pending_session ?? asDevice.session;
    expect(asSession).toMatchObject({ dev_addr: devAddr, keys: { session_key_id: hook?.json.join_accept.session_key_id } });
  }, 60_000);

  if (replicas) return;

  it.each(['MAC_V1_0_4', 'MAC_V1_1'] as const)(
    'joins a %s device (DevNonce a counter; 1.1: NwkKey and OptNeg): the keys the device derives (lora-packet) are those the NS and the AS hold',
    async (version) => {
      const d = await device(version);
      const sim = new SimulatedOtaaDevice({ joinEui: d.join_eui, devEui: d.dev_eui, appKey: d.appKey, nwkKey: d.nwkKey, macVersion: version });
      const [, gw] = gateways;
      const before = gw.udp.downlinks.length;
      // Heard at another concentrator time for each version (two join-requests at one instant could not both have RX1).
      const tmst = version === 'MAC_V1_1' ? 2_042_000 : 42_000;
      await gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(sim.joinRequest(1), { tmst })] });
      const down = (await gw.udp.waitForDownlinks(before + 1, 5000))[before];
      expect(down.txpk.tmst).toBe(tmst + 5_000_000);
      // Decrypted and its MIC checked by the simulator (1.1: over JSIntKey, OptNeg set).
      const joined = sim.acceptJoin(Buffer.from(down.txpk.data as string, 'base64'));
      expect(joined.dlSettings.optNeg).toBe(version === 'MAC_V1_1');
      const js = await reg.getOk('js', app, d.dev, ['last_dev_nonce']);
      expect(js.json).toMatchObject({ last_dev_nonce: 1 });
      const keys = joined.keys as Record<string, string>;
      const ns = (await withPendingSession('ns', d.dev)) as {
        pending_session: { dev_addr: string; keys: Record<string, { key: string }> };
      };
      expect(ns.pending_session.dev_addr).toBe(joined.devAddr);
      if (version === 'MAC_V1_1') {
        expect(ns.pending_session.keys.f_nwk_s_int_key.key).toBe(keys.fNwkSIntKey);
        expect(ns.pending_session.keys.s_nwk_s_int_key.key).toBe(keys.sNwkSIntKey);
        expect(ns.pending_session.keys.nwk_s_enc_key.key).toBe(keys.nwkSEncKey);
      } else {
        for (const k of ['f_nwk_s_int_key', 's_nwk_s_int_key', 'nwk_s_enc_key']) expect(ns.pending_session.keys[k].key).toBe(keys.nwkSKey);
      }
      const as = (await withPendingSession('as', d.dev)) as { pending_session: { keys: { app_s_key: { key: string } } } };
      expect(as.pending_session.keys.app_s_key.key).toBe(keys.appSKey);
    },
    30_000,
  );

  it('`npm run cli -- simulate join` joins a device against the running stack', async () => {
    const d = await device('MAC_V1_0_3');
    // The CLI is its own packet forwarder: a gateway of its own.
    const eui = randomEui();
    expectStatus(
      await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, { gateway: { ids: { gateway_id: uid('gtw-cli'), eui }, frequency_plan_id: 'EU_863_870_TTN' } }),
      200,
    );
    const args = [
      'simulate',
      'join',
      '--udp',
      `127.0.0.1:${stack.udpPort}`,
      '--gateway-eui',
      eui,
      '--join-eui',
      d.join_eui,
      '--dev-eui',
      d.dev_eui,
      '--app-key',
      d.appKey,
    ];
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, ...args], { timeout: 20_000 });
    const result = JSON.parse(stdout) as { dev_addr: string; rx_window: string; session_keys: { app_s_key: string } };
    expect(result.rx_window).toBe('RX1');
    const as = (await withPendingSession('as', d.dev)) as { pending_session: { dev_addr: string; keys: { app_s_key: { key: string } } } };
    expect(as.pending_session.dev_addr).toBe(result.dev_addr);
    expect(as.pending_session.keys.app_s_key.key).toBe(result.session_keys.app_s_key);
  }, 30_000);

  it('refuses a replayed DevNonce, a bad MIC and an unknown device: js.join.reject or nothing, and no join-accept', async () => {
    const d = await device('MAC_V1_0_3');
    const [, gw] = gateways;
    const events = await stream([{ device_ids: { device_id: d.dev, application_ids: { application_id: app } } }]);
    const frame = joinRequest({ joinEui: d.join_eui, devEui: d.dev_eui, devNonce: '7777', key: d.appKey });
    const expected = gw.udp.downlinks.length + 1;
    await gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, { tmst: 1000 })] });
    await gw.udp.waitForDownlinks(expected, 5000);
    // The same join-request again (on another channel, so it is not a copy of the first): a replay.
    await gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, { tmst: 9_000_000, freq: 868.3 })] });
    // A bad MIC (another key).
    await gw.udp.push({
      rxpk: [SimulatedUdpGateway.rxpk(joinRequest({ joinEui: d.join_eui, devEui: d.dev_eui, devNonce: '7778', key: randomKey() }), { tmst: 2000 })],
    });
    // An unknown device.
    await gw.udp.push({
      rxpk: [SimulatedUdpGateway.rxpk(joinRequest({ joinEui: randomEui(), devEui: randomEui(), devNonce: '0001', key: d.appKey }), { tmst: 3000 })],
    });
    const rejects: EventJson[] = [];
    while (rejects.length < 2) {
      const e = await events.nextEvent(10_000);
      if (e.name === 'js.join.reject') rejects.push(e);
    }
    expect(rejects.map((e) => (e.data as { name: string }).name).sort()).toEqual(['mic_mismatch', 'reuse_dev_nonce']);
    await sleep(1500);
    expect(gw.udp.downlinks).toHaveLength(expected);
    const js = await reg.getOk('js', app, d.dev, ['used_dev_nonces', 'last_join_nonce']);
    expect(js.json).toMatchObject({ used_dev_nonces: [0x7777], last_join_nonce: 1 });
  }, 30_000);
});
