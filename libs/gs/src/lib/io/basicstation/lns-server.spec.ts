import type { CallerIdentity, EntityRef, TxRequest } from '@lorawan/api';
import { ErrApiKeyNotFound, isStackError } from '@lorawan/errors';
import type { FrequencyPlan } from '@lorawan/lorawan';
import { gsLbsAuthRefused } from '@lorawan/observability';
import { SimulatedBasicStation, stationFrameFields } from '@lorawan/testing';
import WebSocket from 'ws';
import { gatewayConnectionStats } from '../../connection/connection-stats';
import type { GatewayConnection, PendingDownlink } from '../../connection/gateway-connection';
import { type DisconnectReason, GatewayConnections } from '../../connection/gateway-connections';
import { assertGatewayLink } from '../../lookup/gateway-link-rights';
import type { GatewayLookupResult } from '../../lookup/gateway-lookup';
import type { PlannedDownlink } from '../../scheduling/class-a-downlink';
import { planDownlink } from '../../scheduling/plan-downlink';
import type { GatewayScheduler } from '../../scheduling/scheduler';
import type { GatewayStatusJson, TxAckResult, UplinkMessageJson } from '../messages';
import type { AuthLimitOptions } from './auth-limits';
import { BasicStationServer } from './lns-server';

/**
 * The Basics Station frontend over real WebSockets with the test station, the core's real
 * `GatewayConnections` and planner behind it; the Identity Server is a double answering for two
 * gateways and one key (`EntityAccess.Authorize`'s answer shape).
 */
describe('BasicStationServer', () => {
  const open = { gateway_id: 'gtw-open', eui: 'B827EBFFFE6151D9' };
  const locked = { gateway_id: 'gtw-locked', eui: '0016C001FF10A235' };
  const KEY = 'NNSXS.GATEWAYKEY.SECRET';
  const registered: Record<string, GatewayLookupResult> = {
    [open.eui]: { status: 'found', gateway: { ids: open, frequency_plan_ids: ['EU_863_870_TTN'] } },
    [locked.eui]: { status: 'found', gateway: { ids: locked, frequency_plan_ids: ['EU_863_870_TTN'], require_authenticated_connection: true } },
  };
  const authorize = async (authorization: string, entity: EntityRef): Promise<CallerIdentity> => {
    // As the RPC client rejects: with the IS's error details.
    if (authorization !== `Bearer ${KEY}`) throw ErrApiKeyNotFound.with().toDetails();
    return {
      kind: 'api-key',
      id: 'GATEWAYKEY',
      is_admin: false,
      key_rights: [],
      universal: false,
      entity,
      rights: entity.id === locked.gateway_id ? ['RIGHT_GATEWAY_LINK'] : [],
    };
  };
  const seen = {
    connected: [] as string[],
    disconnected: [] as Array<[string, DisconnectReason]>,
    uplinks: [] as UplinkMessageJson[],
    statuses: [] as GatewayStatusJson[],
    acks: [] as Array<[PendingDownlink, TxAckResult]>,
    dropped: [] as string[],
  };
  const events = {
    connected: (c: GatewayConnection) => void seen.connected.push(c.ids.gateway_id),
    disconnected: (c: GatewayConnection, reason: DisconnectReason) => void seen.disconnected.push([c.ids.gateway_id, reason]),
    refused: () => undefined,
    uplink: (_c: GatewayConnection, m: UplinkMessageJson) => void seen.uplinks.push(m),
    status: (_c: GatewayConnection, s: GatewayStatusJson) => void seen.statuses.push(s),
    txAck: (_c: GatewayConnection, d: PendingDownlink, r: TxAckResult) => void seen.acks.push([d, r]),
    dropped: (reason: string) => void seen.dropped.push(reason),
  };
  const resolve = async (eui: string): Promise<GatewayLookupResult> => registered[eui] ?? { status: 'unknown' };
  let connections: GatewayConnections;
  let server: BasicStationServer;
  const stations: SimulatedBasicStation[] = [];

  beforeEach(async () => {
    for (const list of Object.values(seen)) list.length = 0;
    connections = new GatewayConnections({ requireRegistered: true }, resolve, events);
    server = new BasicStationServer(
      { port: 0, host: '127.0.0.1', pingIntervalMs: 100, missedPongs: 2 },
      connections,
      { gateway: resolve, assertLink: (gateway, authorization) => assertGatewayLink(gateway, authorization, authorize) },
      events,
    );
    expect(await server.start()).toBeGreaterThan(0);
  });

  afterEach(async () => {
    for (const s of stations.splice(0)) s.close();
    await server.stop();
  });

  const uri = (eui: string) => `ws://127.0.0.1:${server.port}/traffic/eui-${eui}`;
  async function connect(eui: string): Promise<SimulatedBasicStation> {
    const station = new SimulatedBasicStation(eui);
    stations.push(station);
    await station.connect(uri(eui));
    return station;
  }
  async function until<T>(get: () => T | undefined): Promise<T> {
    for (let i = 0; i < 300; i++) {
      const value = get();
      if (value !== undefined) return value;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('timed out');
  }

  it('serves on an ephemeral port and says where', () => {
    expect(server.describe()).toEqual({ fields: { lbs_port: server.port }, message: `LoRa Basics Station gateways served on ws://127.0.0.1:${server.port}` });
  });

  it('refuses before the upgrade: an unknown EUI (404), a path that is none (404), no key where one is required (401)', async () => {
    const refused = (url: string) =>
      new SimulatedBasicStation(open.eui).connect(url).then(
        () => 'connected',
        (err: Error) => err.message,
      );
    expect(await refused(uri('0102030405060708'))).toMatch(/answered 404/);
    expect(await refused(`ws://127.0.0.1:${server.port}/traffic/gateway-1`)).toMatch(/answered 404/);
    expect(await refused(uri(locked.eui))).toMatch(/answered 401/);
    expect(seen.connected).toEqual([]);
    const plain = await fetch(`http://127.0.0.1:${server.port}/router-info`);
    expect(plain.status).toBe(426);
    expect(await plain.json()).toMatchObject({ code: 5, details: [{ namespace: 'pkg/gatewayserver/io/semtechws', name: 'invalid_path' }] });
  });

  it('version → status and router_config; an uplink with gpstime; a planned class B downlink as dnmsg at its gpstime; dntxed → SUCCESS; an unknown diid and a malformed message dropped', async () => {
    const station = await connect(open.eui);
    expect(station.routerConfig?.region).toBe('EU868');
    expect(seen.statuses[0].versions).toMatchObject({ station: '2.0.6(test/std)' });
    const conn = connections.get(open.eui) as GatewayConnection;
    expect(conn.frontend).toBe(server);
    // TTS's name of the protocol (`semtechws/` and the formatter's ID), in the stats and gs.gateway.connect.
    expect(gatewayConnectionStats(conn).protocol).toBe('semtechws/lbslns');

    // GPS time of reception (µs since 1980-01-06): the gateway can send at GPS times from now on.
    const gpstime = BigInt(Date.now() - Date.UTC(1980, 0, 6) + 18_000) * 1000n;
    station.sendFrame(Buffer.from('E0AABBCCDD', 'hex'), { DR: 5, Freq: 868100000, gpstime });
    await until(() => seen.uplinks[0]);
    expect(conn.gps_time?.tmms).toBe(Number(gpstime / 1000n));

    const slot = new Date(Math.ceil((Date.now() + 3000) / 1000) * 1000).toISOString();
    const request: TxRequest = {
      downlink_paths: [],
      class: 'CLASS_B',
      absolute_time: slot,
      rx2_frequency: '869525000',
      rx2_data_rate: { lora: { spreading_factor: 9, bandwidth: 125000 } },
    };
    const token = { gateway_id: open.gateway_id, eui: open.eui, antenna_index: 0, timestamp: 0, received_ms: Date.now() };
    const plan = conn.frequency_plan as FrequencyPlan;
    const planned = planDownlink(Buffer.from('60AABBCCDD', 'hex'), request, token, plan, conn.scheduler as GatewayScheduler, true);
    if (isStackError(planned)) throw planned;
    const pending = server.send(conn, planned, { end_device_ids: { dev_eui: '0004A30B001C0531' } });
    const dn = await station.nextDownlink();
    expect(dn).toMatchObject({ dC: 1, diid: pending?.token, DevEui: '00-04-A3-0B-00-1C-05-31', Freq: 869525000, DR: 3, pdu: '60AABBCCDD' });
    // The slot's GPS time: UTC + 18 leap seconds since the GPS epoch.
    expect(dn.gpstime).toBe(BigInt(Date.parse(slot) - Date.UTC(1980, 0, 6) + 18_000) * 1000n);
    station.acknowledge(dn);
    expect(await until(() => seen.acks[0])).toEqual([pending, 'SUCCESS']);

    station.acknowledge({ ...dn, diid: 4242 });
    station.sendRaw('{"msgtype":"updf","MHdr":"x"}');
    expect(await until(() => (seen.dropped.length >= 2 ? seen.dropped : undefined))).toEqual(['unknown_diid', 'bad_message']);
  });

  it('a class A downlink is timed in the session of the radio unit that heard its uplink, not in that of the latest uplink (station: one xtime session per unit)', async () => {
    const station = await connect(open.eui);
    const conn = connections.get(open.eui) as GatewayConnection;
    // Unit 1 (bits 62–56) with a session of its own hears the device; unit 0 hears another frame later.
    const unit1 = (1n << 56n) | (0x77n << 48n);
    station.sendFrame(Buffer.from('E0AABBCCDD', 'hex'), { DR: 5, Freq: 868100000, rctx: 1, xtime: unit1 | 5_000_000n });
    station.sendFrame(Buffer.from('E0AABBCCEE', 'hex'), { DR: 5, Freq: 868100000 });
    await until(() => seen.uplinks[1]);
    expect(seen.uplinks[0].rx_metadata[0]).toMatchObject({ antenna_index: 1, timestamp: 5_000_000 });
    // Its RX1, 1 s after it on unit 1's counter, through unit 1.
    const planned: PlannedDownlink = {
      window: 'rx1',
      device_class: 'A',
      delay: 1,
      frequency: '868100000',
      data_rate: { lora: { spreading_factor: 7, bandwidth: 125000 } },
      eirp: 16.15,
      transmit_at_ms: Date.now() + 1000,
      timestamp: 6_000_000,
      payload: Buffer.from('60AABBCCDD', 'hex'),
      txpk: {},
      emission: { starts_us: 0, duration_us: 41_216, frequency: 868_100_000, antenna_index: 1, delay_us: 0, server_us: 0 },
    };
    server.send(conn, planned, { end_device_ids: { dev_eui: '0004A30B001C0531' } });
    const dn = await station.nextDownlink();
    // Sent as TTS does (the "uplink" 1 s earlier, RxDelay 1): unit 1's uplink xtime exactly.
    expect(dn).toMatchObject({ dC: 0, rctx: 1, RxDelay: 1, xtime: unit1 | 5_000_000n });
  });

  it('an uplink’s RefTime (a MuxTime plus the station’s time since) is a round trip for the scheduler', async () => {
    const station = await connect(open.eui);
    const conn = connections.get(open.eui) as GatewayConnection;
    const fields = JSON.stringify({ ...stationFrameFields(Buffer.from('E0AABBCCDD', 'hex')), DR: 5, Freq: 868100000 }).slice(0, -1);
    // As if the server's MuxTime had taken 40 ms there and back.
    const refTime = Date.now() / 1000 - 0.04;
    station.sendRaw(`${fields},"RefTime":${refTime},"upinfo":{"rctx":0,"xtime":${station.xtime()},"gpstime":0,"rssi":-60,"snr":9}}`);
    await until(() => seen.uplinks[0]);
    const stats = conn.scheduler?.rtts.stats(0.5);
    expect(stats?.count).toBe(1);
    // Seconds since the epoch as a double keep about 0.2 µs: allow for that rounding, not more.
    expect(stats?.median).toBeGreaterThanOrEqual(39.99);
    expect(stats?.median).toBeLessThan(1000);
  });

  it('answers timesync with the server’s GPS time', async () => {
    const station = await connect(open.eui);
    const before = Date.now();
    const sync = await station.timesync();
    const utc = Number(sync.gpstime / 1000n) + Date.UTC(1980, 0, 6) - 18_000;
    expect(utc).toBeGreaterThanOrEqual(before);
    expect(utc).toBeLessThanOrEqual(Date.now());
  });

  it('a station that stops answering pings is cut after missedPongs + 1 intervals (missed_pongs); a second connection replaces the first (replaced)', async () => {
    const first = await connect(open.eui);
    const second = await connect(open.eui);
    expect(await first.closed()).toBe(1000);
    expect(seen.disconnected).toEqual([[open.gateway_id, 'replaced']]);
    await new Promise((r) => setTimeout(r, 350));
    expect(connections.get(open.eui)).toBeDefined();
    second.answerPings(false);
    const silent = Date.now();
    await second.closed();
    expect(Date.now() - silent).toBeLessThan(3 * 100 + 150);
    expect(seen.disconnected).toEqual([
      [open.gateway_id, 'replaced'],
      [open.gateway_id, 'missed_pongs'],
    ]);
    expect(connections.get(open.eui)).toBeUndefined();
  });

  it('stop ends every station (stopped)', async () => {
    const station = await connect(open.eui);
    await server.stop();
    await station.closed();
    expect(seen.disconnected).toEqual([[open.gateway_id, 'stopped']]);
  });

  describe('authentication limits', () => {
    let limited: BasicStationServer;
    let asked = 0;
    let hold: Promise<void> | undefined;
    const counting = async (authorization: string, entity: EntityRef): Promise<CallerIdentity> => {
      asked++;
      await hold;
      return authorize(authorization, entity);
    };
    async function serveLimited(authLimits: AuthLimitOptions): Promise<void> {
      asked = 0;
      limited = new BasicStationServer(
        { port: 0, host: '127.0.0.1', pingIntervalMs: 1000, missedPongs: 2, authLimits },
        connections,
        { gateway: resolve, assertLink: (gateway, authorization) => assertGatewayLink(gateway, authorization, counting) },
        events,
      );
      await limited.start();
    }
    afterEach(async () => {
      hold = undefined;
      await limited.stop();
    });

    /** A data connection with `key`: the status of the answer (101 when upgraded) and its body. */
    function attempt(
      key: string,
      path = `/traffic/eui-${locked.eui}`,
    ): Promise<{ status: number; body?: { code: number; details: Array<Record<string, unknown>> } }> {
      return new Promise((done, fail) => {
        const ws = new WebSocket(`ws://127.0.0.1:${limited.port}${path}`, { headers: { authorization: `Bearer ${key}` } });
        ws.on('unexpected-response', (_req, res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk));
          res.on('end', () => done({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        });
        ws.on('open', () => {
          ws.close();
          done({ status: 101 });
        });
        ws.on('error', fail);
      });
    }
    const refusals = async (reason: string) => (await gsLbsAuthRefused.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;

    it('refuses an address over its failed authentications with 429 before the IS is asked; successes do not count', async () => {
      await serveLimited({ failuresPerMin: 3, maxPending: 0 });
      for (let i = 0; i < 4; i++) expect((await attempt(KEY)).status).toBe(101);
      expect(asked).toBe(4);
      for (let i = 0; i < 3; i++) expect((await attempt('NNSXS.WRONG.KEY')).status).toBe(401);
      const before = await refusals('failures');
      const refused = await attempt('NNSXS.WRONG.KEY');
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({
        code: 8,
        details: [{ namespace: 'pkg/ratelimit', name: 'rate_limit_exceeded', attributes: { key: 'gs:lbs:auth:ip:127.0.0.1', rate: 3 } }],
      });
      // The address is refused whatever key it sends now, and the IS hears nothing of it.
      expect((await attempt(KEY)).status).toBe(429);
      expect(asked).toBe(7);
      expect(await refusals('failures')).toBe(before + 2);
    });

    it('bounds the authentications in progress (429 too_many_pending_authorizations)', async () => {
      await serveLimited({ failuresPerMin: 0, maxPending: 2 });
      let release = () => undefined as void;
      hold = new Promise<void>((r) => (release = r));
      const pending = [attempt(KEY), attempt(KEY)];
      while (asked < 2) await new Promise((r) => setTimeout(r, 5));
      const before = await refusals('pending');
      const refused = await attempt(KEY);
      expect(refused.status).toBe(429);
      expect(refused.body?.details[0]).toMatchObject({ name: 'too_many_pending_authorizations', attributes: { max: 2 } });
      expect(await refusals('pending')).toBe(before + 1);
      release();
      expect((await Promise.all(pending)).map((r) => r.status)).toEqual([101, 101]);
      expect(asked).toBe(2);
      expect((await attempt(KEY)).status).toBe(101);
    });
  });
});
