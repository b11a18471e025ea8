import { type CallerIdentity, type EventJson, gatewayDownlinkSubject, GS_EVENTS, type Right, RPCS } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import { Code, defineError } from '@lorawan/errors';
import { InProcessBroker, inProcessMessaging, type RpcEnvelope } from '@lorawan/transport';
import {
  eventually,
  type EventRecorder,
  loraJoinRequest,
  recordEvents,
  rpcContext,
  serveRpcDouble,
  SimulatedUdpGateway,
  startTestComponent,
  type TestComponent,
} from '@lorawan/testing';
import { GsModule } from '../gs.module';
import { GatewayServerService } from '../server/gateway-server.service';

/**
 * Connection stats and liveness across two Gateway Server replicas on one in-process broker (the
 * queue group hands each request to either): gateway A connected to the first, B to the second, a
 * stats request answered whichever replica takes it; a silent gateway disconnected within its
 * timeout (GS_UDP_CONNECTION_TIMEOUT_MS, short here).
 */
const A = 'AA555A00000000A1';
const B = 'AA555A00000000B2';
const TIMEOUT_MS = 1500;
const GATEWAY_EUI_NOT_FOUND = defineError('pkg/identityserver/store', 'gateway_eui_not_found', 'gateway with EUI `{eui}` not found', Code.NotFound);
const STATUS_READ: Right = 'RIGHT_GATEWAY_STATUS_READ';

/** An API key's caller with `rights` on one gateway, or on several (a batch's `entity_rights`). */
function caller(rights: Right[], gatewayId?: string, batch?: Record<string, Right[]>): CallerIdentity {
  return {
    kind: 'api-key',
    id: 'KEY',
    is_admin: false,
    key_rights: rights,
    universal: false,
    ...(gatewayId ? { entity: { kind: 'gateway', id: gatewayId } } : {}),
    rights: gatewayId ? rights : [],
    ...(batch ? { entity_rights: Object.entries(batch).map(([id, r]) => ({ entity: { kind: 'gateway' as const, id }, rights: r })) } : {}),
  };
}

describe('Gateway connection stats and liveness (two GS replicas, in-process)', () => {
  const broker = new InProcessBroker();
  const replicas: TestComponent[] = [];
  let events: EventRecorder;
  let a: SimulatedUdpGateway;
  let b: SimulatedUdpGateway;
  const uplinks: RpcEnvelope[] = [];
  const client = inProcessMessaging(broker, { rpcTimeoutMs: 2000, shutdownGraceMs: 0 }).client();
  const get = (gatewayId: string, who: CallerIdentity) =>
    client.call(RPCS['Gs.GetGatewayConnectionStats'].subject, { ctx: rpcContext('Gs.GetGatewayConnectionStats', who), body: { gateway_id: gatewayId } });

  beforeAll(async () => {
    const config = loadConfig({
      GS_UDP_PORT: '0',
      GS_UDP_HOST: '127.0.0.1',
      GS_LBS_PORT: '0',
      GS_LBS_HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      GS_UDP_CONNECTION_TIMEOUT_MS: String(TIMEOUT_MS),
    });
    for (let i = 0; i < 2; i++) replicas.push(await startTestComponent(GsModule, { component: 'gs', config, broker }));
    events = recordEvents(broker);
    serveRpcDouble(broker, 'GsIs.GetGatewayForEUI', (req) => {
      const { eui } = req.body as { eui: string };
      return eui === A || eui === B
        ? { ok: { ids: { gateway_id: `gtw-${eui.slice(-2).toLowerCase()}`, eui }, frequency_plan_ids: ['EU_863_870_TTN'] } }
        : { error: GATEWAY_EUI_NOT_FOUND.with({ eui }).toDetails() };
    });
    serveRpcDouble(broker, 'GsNs.HandleUplink', (req) => (uplinks.push(req), { ok: {} }));
    const port = (i: number) => replicas[i].running.app.get(GatewayServerService).udp?.port as number;
    a = new SimulatedUdpGateway(A, { host: '127.0.0.1', port: port(0) });
    b = new SimulatedUdpGateway(B, { host: '127.0.0.1', port: port(1) });
    await a.open();
    await b.open();
    // A forwarder's keepalives (a faster one than the 10 s default), until the last test stops them.
    a.keepAlive(300);
  });
  afterAll(async () => {
    a?.close();
    b?.close();
    for (const r of replicas) await r.close();
    broker.close();
  });

  it('counts uplinks, the status, a downlink and its TX acknowledgment (round trip, sub-band airtime), answered by either replica', async () => {
    const t0 = Date.now();
    expect(await a.pull()).toBe(0x04);
    const frames = [loraJoinRequest({ devNonce: '0001' }), loraJoinRequest({ devNonce: '0002' }), loraJoinRequest({ devNonce: '0003' })];
    await a.push({ rxpk: frames.map((f) => SimulatedUdpGateway.rxpk(f, { tmst: 5_000_000, freq: 868.1 })) });
    const heard = Date.now();
    await a.push({ stat: { rxnb: 3, rxok: 3, rxfw: 3, ackr: 100, dwnb: 0, txnb: 0, lati: 52.1, long: 5.1, alti: 10 } });
    await eventually(() => uplinks.length === 3);
    const token = (uplinks[0].body as { rx_metadata: Array<{ uplink_token: string }> }).rx_metadata[0].uplink_token;
    const downlink = {
      raw_payload: Buffer.alloc(17, 9).toString('base64'),
      request: {
        class: 'CLASS_A',
        downlink_paths: [{ uplink_token: token }],
        rx1_delay: 1,
        rx1_frequency: '868100000',
        rx1_data_rate: { lora: { spreading_factor: 7, bandwidth: 125000 } },
        rx2_frequency: '869525000',
        rx2_data_rate: { lora: { spreading_factor: 9, bandwidth: 125000 } },
      },
    };
    const subject = gatewayDownlinkSubject(RPCS['NsGs.ScheduleDownlink'].subject, 'gtw-a1');
    await client.call(subject, { ctx: rpcContext('NsGs.ScheduleDownlink'), body: downlink });
    const [down] = await a.waitForDownlinks(1);
    await new Promise((r) => setTimeout(r, 20));
    a.txAck(down.token);
    await eventually(() => events.all.some((e) => e.name === GS_EVENTS.txAckReceive.name));
    // The sub-band's utilization is of the window until now: once RX1 (a second after the uplink) is over.
    await new Promise((r) => setTimeout(r, Math.max(0, heard + 1200 - Date.now())));
    // The queue group alternates between the replicas: both answer for A (one holds it, the other asks it).
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await get('gtw-a1', caller([STATUS_READ], 'gtw-a1'))) as Record<string, unknown>);
    for (const stats of answers) {
      expect(stats).toMatchObject({
        protocol: 'udp',
        uplink_count: '3',
        downlink_count: '1',
        tx_acknowledgment_count: '1',
        gateway_remote_address: { ip: '127.0.0.1' },
        last_status: { metrics: { rxin: 3, rxok: 3 }, antenna_locations: [{ latitude: 52.1, longitude: 5.1, altitude: 10 }] },
        round_trip_times: { count: 1 },
      });
      for (const at of [
        'connected_at',
        'last_uplink_received_at',
        'last_status_received_at',
        'last_downlink_received_at',
        'last_tx_acknowledgment_received_at',
      ])
        expect(Date.parse(stats[at] as string)).toBeGreaterThanOrEqual(t0 - 1000);
      const rtt = stats.round_trip_times as { min: string; max: string; median: string };
      expect(parseFloat(rtt.min)).toBeGreaterThanOrEqual(0.02);
      expect(rtt.min).toBe(rtt.max);
      expect(rtt.median).toBe(rtt.min);
      const subBands = stats.sub_bands as Array<{
        min_frequency: string;
        max_frequency: string;
        downlink_utilization: number;
        downlink_utilization_limit: number;
      }>;
      const used = subBands.find((s) => BigInt(s.min_frequency) <= 868_100_000n && 868_100_000n <= BigInt(s.max_frequency));
      expect(used?.downlink_utilization_limit).toBe(0.01);
      expect(used?.downlink_utilization).toBeGreaterThan(0);
      expect(subBands.filter((s) => s !== used).every((s) => s.downlink_utilization === 0)).toBe(true);
    }
    expect(answers[0]).toEqual(answers[3]);
  });

  it('answers a batch from both replicas, leaving out gateways not connected, with the field mask applied to each', async () => {
    expect(await b.pull()).toBe(0x04);
    await eventually(() => replicas[1].running.app.get(GatewayServerService).connectionById('gtw-b2') !== undefined);
    const rights = { 'gtw-a1': [STATUS_READ], 'gtw-b2': [STATUS_READ], 'gtw-none': [STATUS_READ] };
    const body = {
      gateway_ids: [{ gateway_id: 'gtw-a1' }, { gateway_id: 'gtw-b2' }, { gateway_id: 'gtw-none' }],
      field_mask: { paths: ['protocol', 'uplink_count'] },
    };
    const ctx = rpcContext('Gs.BatchGetGatewayConnectionStats', caller([STATUS_READ], undefined, rights));
    for (let i = 0; i < 2; i++) {
      const answer = await client.call(RPCS['Gs.BatchGetGatewayConnectionStats'].subject, { ctx, body });
      expect(answer).toEqual({ entries: { 'gtw-a1': { protocol: 'udp', uplink_count: '3' }, 'gtw-b2': { protocol: 'udp', uplink_count: '0' } } });
    }
    // A path that is no field of the stats.
    await expect(
      client.call(RPCS['Gs.BatchGetGatewayConnectionStats'].subject, { ctx, body: { ...body, field_mask: { paths: ['uplink_count', 'secret'] } } }),
    ).rejects.toMatchObject({ name: 'field_mask_paths', code: Code.InvalidArgument });
  });

  it('refuses callers without RIGHT_GATEWAY_STATUS_READ (also on one gateway of a batch), and answers not_connected for a gateway no replica holds', async () => {
    await expect(get('gtw-a1', caller(['RIGHT_GATEWAY_INFO'], 'gtw-a1'))).rejects.toMatchObject({
      name: 'insufficient_gateway_rights',
      code: Code.PermissionDenied,
    });
    await expect(get('gtw-a1', caller([STATUS_READ], 'gtw-b2'))).rejects.toMatchObject({ name: 'no_gateway_rights', code: Code.PermissionDenied });
    const batch = { gateway_ids: [{ gateway_id: 'gtw-a1' }, { gateway_id: 'gtw-b2' }] };
    const partial = caller([STATUS_READ], undefined, { 'gtw-a1': [STATUS_READ], 'gtw-b2': ['RIGHT_GATEWAY_INFO'] });
    await expect(
      client.call(RPCS['Gs.BatchGetGatewayConnectionStats'].subject, { ctx: rpcContext('Gs.BatchGetGatewayConnectionStats', partial), body: batch }),
    ).rejects.toMatchObject({ name: 'insufficient_gateway_rights', attributes: { uid: 'gtw-b2' } });
    for (let i = 0; i < 2; i++)
      await expect(get('gtw-none', caller([STATUS_READ], 'gtw-none'))).rejects.toMatchObject({
        namespace: 'pkg/gatewayserver',
        name: 'not_connected',
        code: Code.NotFound,
        attributes: { gateway_uid: 'gtw-none' },
      });
  });

  it('disconnects a gateway whose keepalives stop within its timeout (gs.gateway.disconnect, reason timeout); then not_connected', async () => {
    b.keepAlive(300);
    await a.pull();
    // A's keepalives stop (its timer is replaced by one that never fires within the test).
    a.keepAlive(2 ** 30);
    const silentSince = Date.now();
    const disconnects = () => events.all.filter((e: EventJson) => e.name === GS_EVENTS.disconnect.name);
    await eventually(() => disconnects().length === 1, TIMEOUT_MS + 3000);
    const elapsed = Date.now() - silentSince;
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(elapsed).toBeLessThanOrEqual(TIMEOUT_MS + 1000 + 200);
    const [event] = disconnects();
    expect(event.identifiers).toEqual([{ gateway_ids: { gateway_id: 'gtw-a1', eui: A } }]);
    expect(event.data).toMatchObject({
      namespace: 'pkg/gatewayserver/io/udp',
      name: 'connection_expired',
      attributes: { reason: 'timeout', timeout_ms: TIMEOUT_MS },
    });
    await expect(get('gtw-a1', caller([STATUS_READ], 'gtw-a1'))).rejects.toMatchObject({ name: 'not_connected' });
    // B kept its keepalives: still connected, through more than its timeout.
    await new Promise((r) => setTimeout(r, 500));
    expect(await get('gtw-b2', caller([STATUS_READ], 'gtw-b2'))).toMatchObject({ protocol: 'udp' });
    expect(disconnects()).toHaveLength(1);
    b?.close();
  });
});
