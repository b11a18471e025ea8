/**
 * Gateway connection stats and liveness end to end, in both run modes (TTS
 * `Gs.GetGatewayConnectionStats`, `BatchGetGatewayConnectionStats`): a registered gateway (a
 * simulated packet forwarder that answers its PULL_RESPs as a concentrator) hears a confirmed
 * uplink of an ABP device and transmits the NS's ACK; its stats then show the counts, the protocol,
 * the round trip PULL_RESP → TX_ACK and the sub-band's airtime. A key without
 * RIGHT_GATEWAY_STATUS_READ is refused; a gateway that is not connected is `not_connected`; a
 * gateway whose keepalives stop is disconnected within GS_UDP_CONNECTION_TIMEOUT_MS (short here)
 * plus the one-second sweep, with `gs.gateway.disconnect` carrying the reason. A status with a GPS
 * location sets the gateway's antenna location in the IS when `update_location_from_status` is set,
 * and not otherwise.
 */
import { SimulatedUdpGateway, startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { abpAsDevice, abpNsDevice, randomDevAddr, randomEui, randomKey, Registries, uid } from './devices';
import { EventStream } from './event-stream';
import { connectGateways } from './gateways';
import { ADMIN_USER_ID, Api, createApplications, expectStatus, expectTtsError, sleep } from './http-client';
import { dataUplink } from './lora-frames';

type Start = (env: Record<string, string>) => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', (env) => startDistributedStack({ components: ['is', 'js', 'ns', 'as', 'events', 'gs'], env })],
  ['embedded', (env) => startEmbeddedStack({ env })],
];
const TIMEOUT_MS = 4000;
const ENV = {
  GS_UDP_CONNECTION_TIMEOUT_MS: String(TIMEOUT_MS),
  // Every changed location from a status goes to the IS (one hour by default).
  GS_UPDATE_GATEWAY_LOCATION_DEBOUNCE_MS: '0',
  // The data plane without the NS's DevStatusReq downlinks.
  NS_DEFAULT_MAC_SETTINGS: JSON.stringify({ status_count_periodicity: 0, status_time_periodicity: '0s' }),
};
const ON_PLAN = {
  factory_preset_frequencies: ['868100000', '868300000', '868500000', '867100000', '867300000', '867500000', '867700000', '867900000'],
  desired_rx2_data_rate_index: 0,
};
const statsPath = (gatewayId: string) => `/api/v3/gs/gateways/${gatewayId}/connection/stats`;

describe.each(MODES)('gateway connection stats and liveness (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  let api: Api;
  const opened: Array<{ close(): void }> = [];

  beforeAll(async () => {
    stack = await start(ENV);
    api = new Api(() => stack);
  }, 120_000);
  afterAll(async () => {
    for (const o of opened) o.close();
    await stack?.stop();
  });

  it('GET stats after uplinks, a downlink and its TX_ACK: counts, protocol udp, round trip, sub-band utilization; the batch', async () => {
    const app = uid('app');
    await createApplications(api, [app]);
    const [gateway] = await connectGateways(api, stack, { count: 1, replicas: false });
    opened.push(gateway.udp);
    gateway.udp.actAsConcentrator();
    const dev = uid('dev');
    const ids = { device_id: dev, dev_eui: randomEui() };
    const devAddr = randomDevAddr();
    const keys = { nwkSKey: randomKey(), appSKey: randomKey() };
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
    const reg = new Registries(api);
    const ns = abpNsDevice(ids, devAddr, keys.nwkSKey, { frequency_plan_id: 'EU_863_870_TTN', mac_settings: ON_PLAN });
    await reg.setOk('ns', app, dev, ns.device, ns.paths);
    const as = abpAsDevice(ids, devAddr, keys.appSKey);
    await reg.setOk('as', app, dev, as.device, as.paths);

    const t0 = Date.now();
    // Confirmed uplinks until one's ACK goes out (in RX1 or RX2; a busy machine can make the NS miss both windows of one).
    let fCnt = 0;
    while (gateway.udp.downlinks.length === 0 && fCnt < 5) {
      fCnt++;
      await gateway.udp.push({
        rxpk: [gateway.udp.rxpkNow(dataUplink(keys, devAddr, fCnt, 1, Buffer.from([fCnt]), { confirmed: true }), { rssi: -40, lsnr: 9 })],
      });
      await gateway.udp.waitForDownlinks(1, 4000).catch(() => undefined);
    }
    const [down] = await gateway.udp.waitForDownlinks(1, 1);
    // Acknowledged by the concentrator.
    expect(down.ack).toBe('NONE');
    await gateway.udp.push({
      rxpk: [gateway.udp.rxpkNow(dataUplink(keys, devAddr, fCnt + 1, 1, Buffer.from([0])), { rssi: -41, lsnr: 8 })],
      stat: { rxnb: 2, rxok: 2 },
    });
    const uplinks = String(fCnt + 1);
    // Once the downlink's window is over (RX2: 2 s after its uplink) the sub-band has been on the air.
    await sleep(2500);

    const res = await api.get(statsPath(gateway.id));
    expectStatus(res, 200);
    const stats = res.json;
    expect(stats).toMatchObject({
      protocol: 'udp',
      uplink_count: uplinks,
      downlink_count: '1',
      tx_acknowledgment_count: '1',
      gateway_remote_address: { ip: '127.0.0.1' },
      last_status: { metrics: { rxin: 2, rxok: 2 } },
      round_trip_times: { count: 1 },
    });
    for (const at of ['connected_at', 'last_uplink_received_at', 'last_status_received_at', 'last_downlink_received_at', 'last_tx_acknowledgment_received_at'])
      expect(Date.parse(stats[at])).toBeGreaterThan(t0 - 60_000);
    expect(stats.round_trip_times.min).toMatch(/^\d+(\.\d+)?s$/);
    expect(stats.round_trip_times.min).toBe(stats.round_trip_times.max);
    // The sub-band of the downlink's frequency (RX1: 868.1 MHz, 1 %; RX2: 869.525 MHz, 10 %) has been on the air, no other.
    const hz = BigInt(Math.round((down.txpk.freq as number) * 1e6));
    const subBands = stats.sub_bands as Array<Record<string, string | number>>;
    const used = subBands.find((s) => BigInt(s.min_frequency) <= hz && hz <= BigInt(s.max_frequency));
    expect(used?.downlink_utilization_limit).toBe(hz === 868_100_000n ? 0.01 : 0.1);
    expect(used?.downlink_utilization).toBeGreaterThan(0);
    expect(subBands.filter((s) => s !== used).map((s) => s.downlink_utilization)).toEqual(subBands.filter((s) => s !== used).map(() => 0));

    // The batch: connected gateways by ID with the field mask, others left out.
    const offline = uid('gtwoff');
    expectStatus(
      await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, {
        gateway: { ids: { gateway_id: offline, eui: randomEui() }, frequency_plan_id: 'EU_863_870_TTN' },
      }),
      200,
    );
    const batch = await api.post('/api/v3/gs/gateways/connection/stats', {
      gateway_ids: [{ gateway_id: gateway.id }, { gateway_id: offline }],
      field_mask: { paths: ['protocol', 'uplink_count', 'round_trip_times.count'] },
    });
    expectStatus(batch, 200);
    expect(batch.json).toEqual({ entries: { [gateway.id]: { protocol: 'udp', uplink_count: uplinks, round_trip_times: { count: 1 } } } });

    // A registered gateway that is not connected.
    expectTtsError(await api.get(statsPath(offline)), 404, 5, 'pkg/gatewayserver', 'not_connected', { gateway_uid: offline });

    // A key of the gateway without RIGHT_GATEWAY_STATUS_READ: refused, also in a batch.
    const key = await api.post(`/api/v3/gateways/${gateway.id}/api-keys`, { name: 'info-only', rights: ['RIGHT_GATEWAY_INFO'] });
    expectStatus(key, 200);
    const headers = { authorization: `Bearer ${key.json.key as string}` };
    expectTtsError(await api.get(statsPath(gateway.id), { headers }), 403, 7, 'pkg/auth/rights', 'insufficient_gateway_rights');
    const refused = await api.call('POST', '/api/v3/gs/gateways/connection/stats', { headers, body: { gateway_ids: [{ gateway_id: gateway.id }] } });
    expectTtsError(refused, 403, 7, 'pkg/auth/rights', 'insufficient_gateway_rights');
    const status = await api.post(`/api/v3/gateways/${gateway.id}/api-keys`, { name: 'status', rights: ['RIGHT_GATEWAY_STATUS_READ'] });
    expectStatus(await api.get(statsPath(gateway.id), { headers: { authorization: `Bearer ${status.json.key as string}` } }), 200);
    // Without a credential.
    expectStatus(await api.get(statsPath(gateway.id), { headers: {} }), 401);
  }, 90_000);

  it('disconnects a gateway whose keepalives stop within GS_UDP_CONNECTION_TIMEOUT_MS: gs.gateway.disconnect with reason timeout, then not_connected', async () => {
    const [gateway] = await connectGateways(api, stack, { count: 1, replicas: false });
    const stream = await EventStream.open(stack.baseUrl, {
      authorization: `Bearer ${stack.adminKey}`,
      body: { identifiers: [{ gateway_ids: { gateway_id: gateway.id } }], names: ['gs.gateway.disconnect'] },
    });
    opened.push(stream);
    expect((await stream.nextEvent()).name).toBe('events.stream.start');
    expectStatus(await api.get(statsPath(gateway.id)), 200);
    // The forwarder goes away: no keepalive from now on.
    await gateway.udp.pull();
    const silentSince = Date.now();
    gateway.udp.close();
    const event = await stream.nextEvent(TIMEOUT_MS + 5000);
    const elapsed = Date.now() - silentSince;
    expect(event.name).toBe('gs.gateway.disconnect');
    expect(event.identifiers).toEqual([{ gateway_ids: { gateway_id: gateway.id, eui: gateway.eui } }]);
    expect(event.data).toMatchObject({ name: 'connection_expired', attributes: { reason: 'timeout', timeout_ms: TIMEOUT_MS } });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS);
    // The bound: the timeout and the one-second sweep (and the event's way to the stream).
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1000 + 1500);
    expectTtsError(await api.get(statsPath(gateway.id)), 404, 5, 'pkg/gatewayserver', 'not_connected');
  }, 60_000);

  it('sets the antenna location in the IS from a status when update_location_from_status is set, and not otherwise', async () => {
    if (!stack.udpPort) throw new Error('the stack has no Gateway Server UDP port');
    const register = async (flag: boolean) => {
      const eui = randomEui();
      const id = uid(flag ? 'gtwloc' : 'gtwnoloc');
      const gateway = { ids: { gateway_id: id, eui }, frequency_plan_id: 'EU_863_870_TTN', update_location_from_status: flag };
      expectStatus(await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, { gateway }), 200);
      const udp = new SimulatedUdpGateway(eui, { host: '127.0.0.1', port: stack.udpPort as number });
      await udp.open();
      opened.push(udp);
      return { id, udp };
    };
    const antennas = async (id: string) => {
      const res = await api.get(`/api/v3/gateways/${id}?field_mask=antennas,update_location_from_status`);
      expectStatus(res, 200);
      return res.json.antennas;
    };
    const located = await register(true);
    const unlocated = await register(false);
    for (const g of [located, unlocated]) await g.udp.push({ stat: { rxnb: 0, rxok: 0, lati: 52.37, long: 4.89, alti: 12 } });
    await waitFor(async () => (await antennas(located.id)) !== undefined);
    expect(await antennas(located.id)).toEqual([{ location: { latitude: 52.37, longitude: 4.89, altitude: 12, source: 'SOURCE_GPS' } }]);
    // A new location is sent too (no debounce here); a forwarder's placeholder location (0, 0) is none.
    await located.udp.push({ stat: { lati: 52.38, long: 4.9, alti: 14 } });
    await waitFor(async () => (await antennas(located.id))?.[0]?.location?.latitude === 52.38);
    await located.udp.push({ stat: { lati: 0, long: 0, alti: 0 } });
    // The other gateway's status went through the same path, and its record has no antenna.
    await located.udp.pull();
    await sleep(500);
    expect((await antennas(located.id))[0].location).toMatchObject({ latitude: 52.38, longitude: 4.9, altitude: 14 });
    expect(await antennas(unlocated.id)).toBeUndefined();
  }, 60_000);
});

/** Polls `check` until it holds (10 s at most). */
async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(100);
  }
}
