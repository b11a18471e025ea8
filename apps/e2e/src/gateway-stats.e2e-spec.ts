/**
 * Gateway connection stats and liveness end to end, in both run modes (TTS
 * `Gs.GetGatewayConnectionStats`, `BatchGetGatewayConnectionStats`): a registered gateway (a
 * simulated packet forwarder that answers its PULL_RESPs as a concentrator) hears a confirmed
 * uplink of an ABP device and transmits the NS's ACK; its stats then show the counts, the protocol,
 * the round trip PULL_RESP → TX_ACK and the sub-band's airtime. A key without
 * RIGHT_GATEWAY_STATUS_READ is refused; a gateway that is not connected is `not_connected`; a
 * gateway whose keepalives stop is disconnected within GS_UDP_CONNECTION_TIMEOUT_MS (short here)
 * plus the one-second sweep, with `gs.gateway.disconnect` carrying the reason.
 */
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
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
    await gateway.udp.push({ rxpk: [gateway.udp.rxpkNow(dataUplink(keys, devAddr, 1, 1, Buffer.from([1]), { confirmed: true }), { rssi: -40, lsnr: 9 })] });
    await gateway.udp.push({ rxpk: [gateway.udp.rxpkNow(dataUplink(keys, devAddr, 2, 1, Buffer.from([2])), { rssi: -41, lsnr: 8 })], stat: { rxnb: 2, rxok: 2 } });
    // The ACK of the confirmed uplink, in RX1 (868.1 MHz, a second after the uplink), acknowledged by the concentrator.
    const [down] = await gateway.udp.waitForDownlinks(1, 10_000);
    expect(down.ack).toBe('NONE');
    // Once RX1 is over the sub-band has been on the air.
    await sleep(Math.max(0, t0 + 1500 - Date.now()));

    const res = await api.get(statsPath(gateway.id));
    expectStatus(res, 200);
    const stats = res.json;
    expect(stats).toMatchObject({
      protocol: 'udp',
      uplink_count: '2',
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
    const rx1 = (stats.sub_bands as Array<Record<string, string | number>>).find((s) => BigInt(s.min_frequency) <= 868_100_000n && 868_100_000n <= BigInt(s.max_frequency));
    expect(rx1).toMatchObject({ downlink_utilization_limit: 0.01 });
    expect(rx1?.downlink_utilization).toBeGreaterThan(0);

    // The batch: connected gateways by ID with the field mask, others left out.
    const offline = uid('gtwoff');
    expectStatus(
      await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, { gateway: { ids: { gateway_id: offline, eui: randomEui() }, frequency_plan_id: 'EU_863_870_TTN' } }),
      200,
    );
    const batch = await api.post('/api/v3/gs/gateways/connection/stats', {
      gateway_ids: [{ gateway_id: gateway.id }, { gateway_id: offline }],
      field_mask: { paths: ['protocol', 'uplink_count', 'round_trip_times.count'] },
    });
    expectStatus(batch, 200);
    expect(batch.json).toEqual({ entries: { [gateway.id]: { protocol: 'udp', uplink_count: '2', round_trip_times: { count: 1 } } } });

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
});
