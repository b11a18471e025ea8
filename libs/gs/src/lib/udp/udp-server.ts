import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { randomInt } from 'node:crypto';
import { newUlid, nowTimestamp } from '@lorawan/api';
import type { GatewayLookupResult, GatewayResolution } from '../lookup/gateway-lookup';
import { LruCache } from '../lookup/lru-cache';
import { ackFor, type DropReason, PacketType, parseUpstream, pullResp, type ProtocolVersion, type UpstreamPacket } from './packet';
import { isRxPacket, MAX_RXPK, parsePushData, parseTxAck, type TxAckResult } from './packet-data';
import { type GatewayIds, type GatewayStatusJson, toGatewayStatus, toUplinkMessage, uniqueByRssi, type UplinkMessageJson } from './translation';

/**
 * The Gateway Server's Semtech UDP frontend (TTS `pkg/gatewayserver/io/udp`, dataplane-notes §1.4):
 * acks every PUSH_DATA and PULL_DATA before any lookup, connects a gateway on its first datagram
 * (registered gateways by EUI, through a `GatewayResolver` that bounds the lookups; unknown ones
 * refused, each of their datagrams, or connected as `eui-<eui>` with the fallback frequency plan
 * when registration is not required), keeps the source of the latest PULL_DATA as
 * the downlink path and whether its latest uplink carried GPS time (`gps_time`, for class B), sends
 * PULL_RESPs with fresh tokens and matches TX_ACKs to them, and expires
 * downlink paths and connections. Malformed datagrams are counted and dropped; a flood of datagrams
 * from one EUI is cut as TTS's per-EUI filter does (the datagram times of at most
 * `floodTrackedEuis` EUIs are kept, least recently seen forgotten first: random EUIs cannot grow
 * it). What to do with uplinks, status and acknowledgments is the caller's (`UdpHandlers`).
 */

/** Looks a gateway up by EUI (`GatewayLookup`); rejects when the lookup failed. */
export type GatewayResolver = (eui: string) => Promise<GatewayLookupResult>;

/**
 * Why a datagram's gateway was not connected: the IS does not know its EUI; not registered and no
 * fallback plan; no lookup allowed now (GS_UNKNOWN_EUI_LOOKUPS_PER_SEC); the lookup failed.
 */
export type RefusalReason = 'unknown_gateway' | 'no_fallback_frequency_plan' | 'lookup_throttled' | 'lookup_failed';

export interface GatewayConnection {
  readonly ids: GatewayIds;
  readonly frequency_plan_ids: string[];
  readonly connected_at: string;
  /** The address datagrams last came from. */
  remote: { address: string; port: number };
  version: ProtocolVersion;
  /**
   * The GPS time (`tmms`) of the latest valid rxpk and when it arrived; unset when that rxpk had
   * none. A forwarder writes `tmms` only while its GPS is locked, and TTS re-syncs a gateway's
   * clock on every uplink, forgetting its absolute time on one without (`scheduling` RolloverClock
   * Sync / SyncWithGatewayAbsolute). Sending at an absolute time (class B) needs it.
   */
  gps_time?: { tmms: number; received_ms: number };
}

export interface UdpHandlers {
  connected(conn: GatewayConnection): void;
  disconnected(conn: GatewayConnection, reason: 'expired' | 'stopped'): void;
  /** A datagram whose gateway could not be connected (each one; acks were sent all the same), and what went wrong for `lookup_failed`. */
  refused(eui: string, reason: RefusalReason, detail?: string): void;
  /** One received copy of a frame (CRC failures included: `crc_status: false`). */
  uplink(conn: GatewayConnection, message: UplinkMessageJson): void;
  status(conn: GatewayConnection, status: GatewayStatusJson): void;
  txAck(conn: GatewayConnection, downlink: PendingDownlink, result: TxAckResult): void;
  /** A datagram or rxpk dropped (`count` of them, default 1): the reason (a metric label) and, for an rxpk, what was wrong. */
  dropped(
    reason: DropReason | 'rate_limited' | 'bad_push_data' | 'bad_rxpk' | 'too_many_rxpk' | 'unknown_token' | 'socket_error',
    detail?: string,
    conn?: GatewayConnection,
    count?: number,
  ): void;
}

export interface UdpServerOptions {
  port: number;
  host: string;
  requireRegistered: boolean;
  fallbackFrequencyPlan?: string;
  /** SO_RCVBUF in bytes (capped by the kernel at net.core.rmem_max); unset or 0: the system's default. */
  receiveBuffer?: number;
  /** Without PULL_DATA (or TX_ACK) for this long, a gateway has no downlink path (TTS 90 s). */
  downlinkPathExpiresMs?: number;
  /** Without any datagram for this long, a connection ends (TTS 3 min). */
  connectionExpiresMs?: number;
  /** The flood filter: a datagram is dropped when the `floodCount`-th previous one from the EUI came less than `floodWindowMs` before. */
  floodCount?: number;
  floodWindowMs?: number;
  /** The flood filter keeps the datagram times of at most this many EUIs. */
  floodTrackedEuis?: number;
}

export interface PendingDownlink {
  token: number;
  txpk: Record<string, unknown>;
  /** What the caller passes along to match the acknowledgment (correlation IDs, the NS's request). */
  context?: unknown;
  sent_at: number;
}

interface ConnectionState extends GatewayConnection {
  lastSeen: number;
  downlinkPathAt?: number;
  pending: Map<number, PendingDownlink>;
}

const PENDING_TTL_MS = 60_000;

export class UdpGatewayServer {
  private socket?: Socket;
  private readonly connections = new Map<string, ConnectionState>();
  private readonly connecting = new Map<string, Promise<ConnectionState | undefined>>();
  private readonly recent: LruCache<string, number[]>;
  private sweeper?: NodeJS.Timeout;
  private readonly o: Required<Omit<UdpServerOptions, 'fallbackFrequencyPlan'>> & { fallbackFrequencyPlan?: string };

  constructor(
    options: UdpServerOptions,
    private readonly resolve: GatewayResolver,
    private readonly on: UdpHandlers,
  ) {
    this.o = {
      downlinkPathExpiresMs: 90_000,
      connectionExpiresMs: 180_000,
      // TTS's rate (10 datagrams in 10 ms: 1000/s per EUI) with ten times its burst: TTS stamps a
      // datagram when a dedicated reader takes it off the socket, we when the event loop does, so a
      // pause of the loop (GC, a burst of work) must not make a busy gateway's queued datagrams a flood.
      floodCount: 100,
      floodWindowMs: 100,
      floodTrackedEuis: 65_536,
      receiveBuffer: 0,
      ...options,
    };
    this.recent = new LruCache(this.o.floodTrackedEuis);
  }

  /** The socket's receive buffer as the kernel set it (Linux reports twice what was asked, its bookkeeping included). */
  get receiveBufferSize(): number {
    return this.socket?.getRecvBufferSize() ?? 0;
  }

  /** Binds the socket; resolves with the port (useful with port 0). */
  async start(): Promise<number> {
    const socket = createSocket({ type: 'udp4', reuseAddr: false });
    this.socket = socket;
    socket.on('message', (msg, rinfo) => this.receive(msg, rinfo));
    // A send to an unreachable gateway must not take the socket down.
    socket.on('error', (err) => this.on.dropped('socket_error', err.message));
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(this.o.port, this.o.host, () => {
        socket.off('error', reject);
        if (this.o.receiveBuffer) socket.setRecvBufferSize(this.o.receiveBuffer);
        resolve();
      });
    });
    this.sweeper = setInterval(() => this.sweep(), Math.min(1000, this.o.downlinkPathExpiresMs / 2));
    this.sweeper.unref();
    return socket.address().port;
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    for (const conn of this.connections.values()) this.on.disconnected(conn, 'stopped');
    this.connections.clear();
    const socket = this.socket;
    this.socket = undefined;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  /** The bound UDP port (after `start`). */
  get port(): number | undefined {
    return this.socket?.address().port;
  }

  connection(eui: string): GatewayConnection | undefined {
    return this.connections.get(eui.toUpperCase());
  }

  /**
   * Sends a `txpk` to a connected gateway on its downlink path, with a fresh token that its TX_ACK
   * will carry. Undefined when the gateway is not connected or has no downlink path.
   */
  sendDownlink(eui: string, txpk: Record<string, unknown>, context?: unknown): PendingDownlink | undefined {
    const conn = this.connections.get(eui.toUpperCase());
    if (!conn || conn.downlinkPathAt === undefined || !this.socket) return undefined;
    let token = randomInt(1, 0x10000);
    while (conn.pending.has(token)) token = randomInt(1, 0x10000);
    const downlink: PendingDownlink = { token, txpk, context, sent_at: Date.now() };
    conn.pending.set(token, downlink);
    this.socket.send(pullResp(conn.version, token, txpk), conn.remote.port, conn.remote.address);
    return downlink;
  }

  private receive(msg: Buffer, rinfo: RemoteInfo): void {
    const packet = parseUpstream(msg);
    if (typeof packet === 'string') return this.on.dropped(packet);
    if (this.flooded(packet.gatewayEui)) return this.on.dropped('rate_limited', packet.gatewayEui);
    // Ack first, before any lookup: an unknown gateway is acked too (TTS).
    const ack = ackFor(packet);
    if (ack) this.socket?.send(ack, rinfo.port, rinfo.address);
    this.connect(packet, rinfo)
      .then((conn) => conn && this.handle(conn, packet, rinfo))
      // A handler that throws must not take the process down: the datagram is dropped.
      .catch((err: unknown) => this.on.dropped('bad_push_data', (err as Error).message));
  }

  /** Whether the `floodCount`-th previous datagram of the EUI came less than `floodWindowMs` ago (every datagram counts, dropped ones too). */
  private flooded(eui: string): boolean {
    const now = Date.now();
    let previous = this.recent.get(eui);
    if (!previous) this.recent.set(eui, (previous = []));
    const flooded = previous.length === this.o.floodCount && now - previous[0] < this.o.floodWindowMs;
    previous.push(now);
    if (previous.length > this.o.floodCount) previous.shift();
    return flooded;
  }

  private connect(packet: UpstreamPacket, rinfo: RemoteInfo): Promise<ConnectionState | undefined> {
    const eui = packet.gatewayEui;
    const existing = this.connections.get(eui);
    if (existing) return Promise.resolve(existing);
    let pending = this.connecting.get(eui);
    if (!pending) {
      pending = this.establish(eui, { address: rinfo.address, port: rinfo.port }, packet.version).finally(() => this.connecting.delete(eui));
      this.connecting.set(eui, pending);
    }
    return pending;
  }

  /** Connects on the first datagram, from where it came (the address `gs.gateway.connect` reports). */
  private async establish(eui: string, remote: GatewayConnection['remote'], version: ProtocolVersion): Promise<ConnectionState | undefined> {
    let result: GatewayLookupResult;
    try {
      result = await this.resolve(eui);
    } catch (err) {
      // The registry is away: refuse this datagram, look again on the next one.
      return this.refuse(eui, 'lookup_failed', (err as Error).message);
    }
    if (result.status === 'throttled') return this.refuse(eui, 'lookup_throttled');
    let resolution: GatewayResolution;
    if (result.status === 'found') resolution = result.gateway;
    else if (this.o.requireRegistered) return this.refuse(eui, 'unknown_gateway');
    else if (!this.o.fallbackFrequencyPlan) return this.refuse(eui, 'no_fallback_frequency_plan');
    else resolution = { ids: { gateway_id: `eui-${eui.toLowerCase()}`, eui }, frequency_plan_ids: [this.o.fallbackFrequencyPlan] };
    const conn: ConnectionState = {
      ids: resolution.ids,
      frequency_plan_ids: resolution.frequency_plan_ids,
      connected_at: nowTimestamp(),
      remote,
      version,
      lastSeen: Date.now(),
      pending: new Map(),
    };
    this.connections.set(eui, conn);
    this.on.connected(conn);
    return conn;
  }

  private refuse(eui: string, reason: RefusalReason, detail?: string): undefined {
    this.on.refused(eui, reason, detail);
    return undefined;
  }

  private handle(conn: ConnectionState, packet: UpstreamPacket, rinfo: RemoteInfo): void {
    const now = Date.now();
    conn.lastSeen = now;
    conn.version = packet.version;
    conn.remote = { address: rinfo.address, port: rinfo.port };
    switch (packet.type) {
      case PacketType.PullData:
        conn.downlinkPathAt = now;
        return;
      case PacketType.TxAck: {
        conn.downlinkPathAt = now;
        const downlink = conn.pending.get(packet.token);
        if (!downlink) return this.on.dropped('unknown_token', `TX_ACK with token ${packet.token}`, conn);
        conn.pending.delete(packet.token);
        return this.on.txAck(conn, downlink, parseTxAck(packet.body));
      }
      case PacketType.PushData: {
        const data = parsePushData(packet.body);
        if ('error' in data) return this.on.dropped('bad_push_data', data.error, conn);
        if (data.truncated > 0) this.on.dropped('too_many_rxpk', `${data.truncated} rxpk past the first ${MAX_RXPK} left out`, conn, data.truncated);
        const receivedAt = nowTimestamp();
        const valid = data.rxpk.filter((p) => {
          if (isRxPacket(p)) return true;
          this.on.dropped('bad_rxpk', p.error, conn);
          return false;
        });
        const packets = valid.filter(isRxPacket);
        const latest = packets[packets.length - 1];
        if (latest) conn.gps_time = latest.tmms === undefined ? undefined : { tmms: latest.tmms, received_ms: now };
        for (const rx of uniqueByRssi(packets)) this.on.uplink(conn, toUplinkMessage(rx, conn.ids, receivedAt, `gs:uplink:${newUlid()}`));
        if (data.stat) this.on.status(conn, toGatewayStatus(data.stat));
        return;
      }
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [eui, conn] of this.connections) {
      if (now - conn.lastSeen > this.o.connectionExpiresMs) {
        this.connections.delete(eui);
        this.on.disconnected(conn, 'expired');
        continue;
      }
      if (conn.downlinkPathAt !== undefined && now - conn.downlinkPathAt > this.o.downlinkPathExpiresMs) conn.downlinkPathAt = undefined;
      for (const [token, d] of conn.pending) if (now - d.sent_at > PENDING_TTL_MS) conn.pending.delete(token);
    }
    for (const [eui, times] of this.recent) if (now - times[times.length - 1] > 60_000) this.recent.delete(eui);
  }
}
