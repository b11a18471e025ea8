import { readFileSync } from 'node:fs';
import { eventually, loraJoinRequest, SimulatedUdpGateway } from '@lorawan/testing';
import type { GatewayConnection, PendingDownlink } from '../../connection/gateway-connection';
import type { GatewayResolver } from '../../connection/gateway-connections';
import { GatewayLookup } from '../../lookup/gateway-lookup';
import type { UplinkMessageJson } from '../messages';
import { MAX_RXPK } from './packet-data';
import { UdpGatewayServer, type UdpServerOptions } from './udp-server';

/** The UDP frontend on a loopback port, driven by the simulated packet forwarder; frames built by lora-packet. */
const REGISTERED = 'AA555A0000000101';
const OTHER = 'AA555A0000000102';
const UNKNOWN = 'AA555A00000000FF';

function recorder() {
  const log = {
    connected: [] as string[],
    disconnected: [] as Array<[string, string]>,
    refused: [] as Array<[string, string, string | undefined]>,
    uplinks: [] as Array<[string, UplinkMessageJson]>,
    statuses: [] as unknown[],
    acks: [] as Array<[PendingDownlink, string]>,
    dropped: [] as Array<[string, string | undefined, number | undefined]>,
  };
  const handlers = {
    connected: (c: GatewayConnection) => log.connected.push(c.ids.gateway_id),
    disconnected: (c: GatewayConnection, reason: string) => log.disconnected.push([c.ids.gateway_id, reason]),
    refused: (eui: string, reason: string, detail?: string) => log.refused.push([eui, reason, detail]),
    uplink: (c: GatewayConnection, m: UplinkMessageJson) => log.uplinks.push([c.ids.gateway_id, m]),
    status: (_c: GatewayConnection, s: unknown) => log.statuses.push(s),
    txAck: (_c: GatewayConnection, d: PendingDownlink, r: string) => log.acks.push([d, r]),
    dropped: (reason: string, detail?: string, _conn?: unknown, count?: number) => log.dropped.push([reason, detail, count]),
  };
  return { log, handlers };
}

const joinRequest = loraJoinRequest();

describe('UdpGatewayServer', () => {
  let server: UdpGatewayServer;
  let port: number;
  let lookups: string[];
  let rec: ReturnType<typeof recorder>;
  const gateways: SimulatedUdpGateway[] = [];

  async function start(options: Partial<UdpServerOptions> = {}, resolver?: GatewayResolver) {
    lookups = [];
    rec = recorder();
    // The Gateway Server's lookup (unknown EUIs remembered) over an IS double.
    const registry = new GatewayLookup({ unknownCacheSize: 100, unknownCacheTtlMs: 60_000, lookupsPerSec: 0 }, async (eui) => {
      lookups.push(eui);
      return eui === REGISTERED || eui === OTHER ? { ids: { gateway_id: `gtw-${eui.slice(-2)}`, eui }, frequency_plan_ids: ['EU_863_870_TTN'] } : undefined;
    });
    const resolve: GatewayResolver = resolver ?? ((eui) => registry.lookup(eui));
    server = new UdpGatewayServer({ port: 0, host: '127.0.0.1', requireRegistered: true, ...options }, resolve, rec.handlers);
    port = await server.start();
  }
  async function gateway(eui: string): Promise<SimulatedUdpGateway> {
    const g = new SimulatedUdpGateway(eui, { host: '127.0.0.1', port });
    await g.open();
    gateways.push(g);
    return g;
  }
  afterEach(async () => {
    for (const g of gateways.splice(0)) g.close();
    await server.stop();
  });

  it('acks PUSH_DATA and PULL_DATA with their tokens, connects a registered gateway once, and hands over its uplinks', async () => {
    await start();
    const g = await gateway(REGISTERED);
    expect(await g.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest, { freq: 868.3, rssi: -42 })] })).toBe(0x01);
    expect(await g.pull()).toBe(0x04);
    await eventually(() => rec.log.uplinks.length === 1);
    expect(rec.log.connected).toEqual(['gtw-01']);
    expect(lookups).toEqual([REGISTERED]);
    const [gatewayId, message] = rec.log.uplinks[0];
    expect(gatewayId).toBe('gtw-01');
    expect(Buffer.from(message.raw_payload, 'base64')).toEqual(joinRequest);
    expect(message.settings.frequency).toBe('868300000');
    expect(message.rx_metadata[0]).toMatchObject({ gateway_ids: { gateway_id: 'gtw-01', eui: REGISTERED }, rssi: -42 });
    expect(message.correlation_ids[0]).toMatch(/^gs:uplink:[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('sets the socket receive buffer it is given (up to the kernel cap, net.core.rmem_max), else keeps the system default', async () => {
    const rmemMax = Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8'));
    const rmemDefault = Number(readFileSync('/proc/sys/net/core/rmem_default', 'utf8'));
    await start();
    expect(server.receiveBufferSize).toBe(rmemDefault);
    await server.stop();
    const asked = 3 * 1024 * 1024;
    await start({ receiveBuffer: asked });
    // Linux reports twice what was set (its bookkeeping included).
    expect(server.receiveBufferSize).toBe(2 * Math.min(asked, rmemMax));
  });

  it('acks an unknown gateway too, but refuses each of its datagrams (looked up once: the lookup remembers it)', async () => {
    await start();
    const g = await gateway(UNKNOWN);
    for (let i = 0; i < 3; i++) expect(await g.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest)] })).toBe(0x01);
    await eventually(() => rec.log.refused.length === 3);
    expect(rec.log.refused).toEqual(Array.from({ length: 3 }, () => [UNKNOWN, 'unknown_gateway', undefined]));
    expect(lookups).toEqual([UNKNOWN]);
    expect(rec.log.uplinks).toEqual([]);
  });

  it('refuses the datagrams of a gateway it may not look up now (the lookup rate is spent), and connects it at a later one', async () => {
    let throttled = true;
    await start({}, async (eui) =>
      throttled ? { status: 'throttled' } : { status: 'found', gateway: { ids: { gateway_id: 'gtw-01', eui }, frequency_plan_ids: ['EU_863_870_TTN'] } },
    );
    const g = await gateway(REGISTERED);
    expect(await g.pull()).toBe(0x04);
    await eventually(() => rec.log.refused.length === 1);
    expect(rec.log.refused).toEqual([[REGISTERED, 'lookup_throttled', undefined]]);
    expect(server.connection(REGISTERED)).toBeUndefined();
    throttled = false;
    expect(await g.pull()).toBe(0x04);
    await eventually(() => rec.log.connected.length === 1);
    expect(rec.log.connected).toEqual(['gtw-01']);
  });

  it('connects an unknown gateway as eui-<eui> with the fallback plan when registration is not required', async () => {
    await start({ requireRegistered: false, fallbackFrequencyPlan: 'EU_863_870' });
    const g = await gateway(UNKNOWN);
    await g.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest)] });
    await eventually(() => rec.log.uplinks.length === 1);
    expect(rec.log.connected).toEqual([`eui-${UNKNOWN.toLowerCase()}`]);
    expect(server.connection(UNKNOWN)?.frequency_plan_ids).toEqual(['EU_863_870']);
  });

  it('sends downlinks on the path of the latest PULL_DATA, with fresh tokens matched by TX_ACK', async () => {
    await start();
    const g = await gateway(REGISTERED);
    await g.push({ stat: { rxnb: 1 } });
    await eventually(() => rec.log.statuses.length === 1);
    expect(server.sendDownlink(REGISTERED, { imme: true })).toBeUndefined(); // no PULL_DATA yet: no downlink path
    await g.pull();
    await eventually(() => server.connection(REGISTERED) !== undefined);
    const first = server.sendDownlink(REGISTERED, { tmst: 6_000_000, freq: 868.1 }, 'first');
    const second = server.sendDownlink(REGISTERED, { tmst: 7_000_000, freq: 869.525 }, 'second');
    const received = await g.waitForDownlinks(2);
    expect(received.map((d) => d.token)).toEqual([first?.token, second?.token]);
    expect(received[0].txpk).toEqual({ tmst: 6_000_000, freq: 868.1 });
    g.txAck(received[1].token, 'TOO_LATE');
    g.txAck(received[0].token);
    g.txAck(12345 === received[0].token ? 12346 : 12345);
    await eventually(() => rec.log.acks.length === 2 && rec.log.dropped.length === 1);
    expect(rec.log.acks.map(([d, r]) => [d.context, r])).toEqual([
      ['second', 'TOO_LATE'],
      ['first', 'SUCCESS'],
    ]);
    expect(rec.log.dropped[0][0]).toBe('unknown_token');
  });

  it('remembers whether the latest rxpk carried GPS time (tmms): set by one that does, forgotten on one without', async () => {
    await start();
    const g = await gateway(REGISTERED);
    await g.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest)] });
    await eventually(() => rec.log.uplinks.length === 1);
    expect(server.connection(REGISTERED)?.gps_time).toBeUndefined();
    // Of several rxpk, the last one counts (copies of one frame: one uplink, the best).
    await g.push({
      rxpk: [SimulatedUdpGateway.rxpk(joinRequest, { tmst: 1 }), { ...SimulatedUdpGateway.rxpk(joinRequest, { tmst: 2 }), tmms: 1_479_549_618_123 }],
    });
    await eventually(() => rec.log.uplinks.length === 2);
    expect(server.connection(REGISTERED)?.gps_time).toEqual({ tmms: 1_479_549_618_123, received_ms: expect.any(Number) });
    await g.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest, { tmst: 3 })] });
    await eventually(() => rec.log.uplinks.length === 3);
    expect(server.connection(REGISTERED)?.gps_time).toBeUndefined();
  });

  it('drops malformed datagrams and rxpks with a reason, keeps serving, and keeps the best copy of a frame', async () => {
    await start();
    const g = await gateway(REGISTERED);
    g.sendRaw(Buffer.from([2, 0]));
    g.sendRaw(Buffer.from([9, 0, 1, 0, ...Buffer.from(REGISTERED, 'hex')]));
    g.sendRaw(Buffer.from([2, 0, 1, 7, ...Buffer.from(REGISTERED, 'hex')]));
    g.sendRaw(Buffer.from([2, 0, 1, 0, 1, 2]));
    g.sendRaw(Buffer.concat([Buffer.from([2, 0, 9, 0]), Buffer.from(REGISTERED, 'hex'), Buffer.from('{not json')]));
    await g.push({
      rxpk: [
        { ...SimulatedUdpGateway.rxpk(joinRequest), data: '%%%' },
        SimulatedUdpGateway.rxpk(joinRequest, { rssi: -90 }),
        SimulatedUdpGateway.rxpk(joinRequest, { rssi: -30, chan: 4 }),
      ],
    });
    await eventually(() => rec.log.uplinks.length === 1 && rec.log.dropped.length === 6);
    expect(rec.log.dropped.map(([r]) => r).sort()).toEqual([
      'bad_push_data',
      'bad_rxpk',
      'no_gateway_eui',
      'too_short',
      'unexpected_identifier',
      'unsupported_version',
    ]);
    expect(rec.log.uplinks[0][1].rx_metadata[0]).toMatchObject({ rssi: -30, channel_index: 4 });
  });

  it('takes at most MAX_RXPK packets of one PUSH_DATA and counts the ones it leaves out', async () => {
    await start();
    const g = await gateway(REGISTERED);
    const frames = Array.from({ length: MAX_RXPK + 3 }, (_, i) =>
      SimulatedUdpGateway.rxpk(loraJoinRequest({ devNonce: i.toString(16).padStart(4, '0') }), { tmst: i }),
    );
    await g.push({ rxpk: frames });
    await eventually(() => rec.log.uplinks.length === MAX_RXPK && rec.log.dropped.length === 1);
    expect(rec.log.dropped[0]).toEqual(['too_many_rxpk', `3 rxpk past the first ${MAX_RXPK} left out`, 3]);
  });

  it('cuts a flood from one EUI (the 10th previous datagram less than the window ago), not the others', async () => {
    await start({ floodCount: 10, floodWindowMs: 1000 });
    const flooding = await gateway(REGISTERED);
    const other = await gateway(OTHER);
    // Ten PULL_DATAs (tokens the simulator does not wait for), then an eleventh within the window.
    for (let i = 0; i < 10; i++) flooding.sendRaw(Buffer.concat([Buffer.from([2, 0x80, i, 2]), Buffer.from(REGISTERED, 'hex')]));
    await expect(flooding.pull(300)).rejects.toThrow('no ack');
    expect(await other.pull()).toBe(0x04);
    expect(rec.log.dropped.filter(([r]) => r === 'rate_limited')).toEqual([['rate_limited', REGISTERED]]);
  });

  it('expires the downlink path and then the connection', async () => {
    await start({ downlinkPathExpiresMs: 100, connectionTimeoutMs: 300 });
    const g = await gateway(REGISTERED);
    await g.pull();
    await eventually(() => server.connection(REGISTERED) !== undefined);
    expect(server.sendDownlink(REGISTERED, { imme: true })).toBeDefined();
    await new Promise((r) => setTimeout(r, 250));
    expect(server.sendDownlink(REGISTERED, { imme: true })).toBeUndefined();
    await eventually(() => rec.log.disconnected.length === 1, 2000);
    expect(rec.log.disconnected).toEqual([['gtw-01', 'timeout']]);
    expect(server.connection(REGISTERED)).toBeUndefined();
  });

  it('refuses (and retries later) when the registry is away, instead of failing the socket', async () => {
    let calls = 0;
    await start({}, async () => {
      calls++;
      throw new Error('registry unavailable');
    });
    const g = await gateway(REGISTERED);
    expect(await g.pull()).toBe(0x04);
    expect(await g.pull()).toBe(0x04);
    await eventually(() => rec.log.refused.length === 2);
    expect(rec.log.refused[0]).toEqual([REGISTERED, 'lookup_failed', 'registry unavailable']);
    expect(calls).toBe(2);
  });
});
