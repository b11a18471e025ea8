import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { newUlid, nowTimestamp } from '@lorawan/api';
import type { GatewayConnection, PendingDownlink } from '../../connection/gateway-connection';
import { type ConnectionOptions, GatewayConnections, type GatewayResolver } from '../../connection/gateway-connections';
import { LruCache } from '../../lookup/lru-cache';
import type { PlannedDownlink } from '../../scheduling/class-a-downlink';
import type { ScheduledEmission } from '../../scheduling/scheduler';
import type { FrontendEvents, GatewayFrontend } from '../frontend';
import { ackFor, type DropReason, PacketType, parseUpstream, pullResp, type ProtocolVersion, type UpstreamPacket } from './packet';
import { isRxPacket, MAX_RXPK, parsePushData, parseTxAck, type RxPacket } from './packet-data';
import { toGatewayStatus, toUplinkMessage, uniqueByRssi } from './translation';

/**
 * The Gateway Server's Semtech UDP frontend (TTS `pkg/gatewayserver/io/udp`, dataplane-notes §1.4):
 * acks every PUSH_DATA and PULL_DATA before any lookup, connects a gateway on its first datagram
 * through the core's `GatewayConnections` (registered gateways by EUI, through a resolver that
 * bounds the lookups; unknown ones refused, each of their datagrams, or connected as `eui-<eui>`
 * with the fallback frequency plan when registration is not required), claims the source of the
 * latest PULL_DATA as the downlink path and records whether the latest uplink carried GPS time
 * (`gps_time`, for class B), sends PULL_RESPs with fresh tokens and matches TX_ACKs to them.
 * Malformed datagrams are counted and dropped; a flood of datagrams from one EUI is cut as TTS's
 * per-EUI filter does (the datagram times of at most `floodTrackedEuis` EUIs are kept, least
 * recently seen forgotten first: random EUIs cannot grow it). What to do with uplinks, status and
 * acknowledgments is the core's (`UdpHandlers`).
 */

/** Why the UDP frontend dropped a datagram or an rxpk (the drop metric's label). */
export type UdpDropReason = DropReason | 'rate_limited' | 'bad_push_data' | 'bad_rxpk' | 'too_many_rxpk' | 'unknown_token' | 'socket_error';

/** What the UDP frontend reports to the core. */
export type UdpHandlers = FrontendEvents<UdpDropReason>;

export interface UdpServerOptions extends Partial<ConnectionOptions> {
  port: number;
  host: string;
  /** A gateway silent this long (ms) is disconnected (`timeout`; default 60 s, GS_UDP_CONNECTION_TIMEOUT_MS). */
  connectionTimeoutMs?: number;
  /** SO_RCVBUF in bytes (capped by the kernel at net.core.rmem_max); unset or 0: the system's default. */
  receiveBuffer?: number;
  /** The flood filter: a datagram is dropped when the `floodCount`-th previous one from the EUI came less than `floodWindowMs` before. */
  floodCount?: number;
  floodWindowMs?: number;
  /** The flood filter keeps the datagram times of at most this many EUIs. */
  floodTrackedEuis?: number;
}

export class UdpGatewayServer implements GatewayFrontend {
  readonly protocol = 'udp';
  readonly connectionTimeoutMs: number;
  private socket?: Socket;
  /** The GWMP version each connected gateway speaks (that of its latest datagram). */
  private readonly versions = new WeakMap<GatewayConnection, ProtocolVersion>();
  private readonly recent: LruCache<string, number[]>;
  private sweeper?: NodeJS.Timeout;
  private readonly connections: GatewayConnections;
  /** Whether the connections are this frontend's own (a frontend alone), rather than the Gateway Server's, shared by its frontends. */
  private readonly ownConnections: boolean;
  private readonly o: Required<Pick<UdpServerOptions, 'receiveBuffer' | 'floodCount' | 'floodWindowMs' | 'floodTrackedEuis'>> & UdpServerOptions;

  /**
   * `connections`: the Gateway Server's connections, or a resolver to keep connections of its own
   * (with the connection options of `options`).
   */
  constructor(
    options: UdpServerOptions,
    connections: GatewayConnections | GatewayResolver,
    private readonly on: UdpHandlers,
  ) {
    this.o = {
      // TTS's rate (10 datagrams in 10 ms: 1000/s per EUI) with ten times its burst: TTS stamps a
      // datagram when a dedicated reader takes it off the socket, we when the event loop does, so a
      // pause of the loop (GC, a burst of work) must not make a busy gateway's queued datagrams a flood.
      floodCount: 100,
      floodWindowMs: 100,
      floodTrackedEuis: 65_536,
      receiveBuffer: 0,
      ...options,
    };
    this.connectionTimeoutMs = options.connectionTimeoutMs ?? 60_000;
    this.recent = new LruCache(this.o.floodTrackedEuis);
    this.ownConnections = !(connections instanceof GatewayConnections);
    this.connections =
      connections instanceof GatewayConnections ? connections : new GatewayConnections({ requireRegistered: false, ...options }, connections, on);
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
    if (this.ownConnections) this.connections.start();
    this.sweeper = setInterval(() => this.sweep(), 1000);
    this.sweeper.unref();
    return socket.address().port;
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    this.connections.stop(this.ownConnections ? undefined : this);
    const socket = this.socket;
    this.socket = undefined;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  describe(): { fields: Record<string, unknown>; message: string } {
    return {
      fields: { udp_port: this.port, receive_buffer: this.receiveBufferSize },
      message: `Semtech UDP packet forwarders served on ${this.o.host}:${this.port}`,
    };
  }

  /** The bound UDP port (after `start`). */
  get port(): number | undefined {
    return this.socket?.address().port;
  }

  connection(eui: string): GatewayConnection | undefined {
    return this.connections.get(eui);
  }

  send(conn: GatewayConnection, downlink: PlannedDownlink, context?: unknown): PendingDownlink | undefined {
    return this.sendDownlink(conn.ids.eui, downlink.txpk, context, downlink.emission);
  }

  /**
   * Sends a `txpk` to a connected gateway on its downlink path, with a fresh token that its TX_ACK
   * will carry. Undefined when the gateway is not connected or has no downlink path.
   */
  sendDownlink(eui: string, txpk: Record<string, unknown>, context?: unknown, emission?: ScheduledEmission): PendingDownlink | undefined {
    const conn = this.connections.get(eui);
    const version = conn && this.versions.get(conn);
    if (!conn || !conn.hasDownlinkPath || version === undefined || !this.socket) return undefined;
    const downlink = conn.pend(context, emission);
    this.socket.send(pullResp(version, downlink.token, txpk), conn.remote.port, conn.remote.address);
    return downlink;
  }

  private receive(msg: Buffer, rinfo: RemoteInfo): void {
    const packet = parseUpstream(msg);
    if (typeof packet === 'string') return this.on.dropped(packet);
    if (this.flooded(packet.gatewayEui)) return this.on.dropped('rate_limited', packet.gatewayEui);
    // Ack first, before any lookup: an unknown gateway is acked too (TTS).
    const ack = ackFor(packet);
    if (ack) this.socket?.send(ack, rinfo.port, rinfo.address);
    // A connected gateway's datagram is handled at once; the first one connects the gateway, from
    // where it came (the address `gs.gateway.connect` reports).
    const connected = this.connections.get(packet.gatewayEui);
    if (connected) return this.handleSafely(connected, packet, rinfo);
    this.connections.connect(packet.gatewayEui, this, { address: rinfo.address, port: rinfo.port }).then(
      (conn) => conn && this.handleSafely(conn, packet, rinfo),
      (err: unknown) => this.on.dropped('bad_push_data', (err as Error).message),
    );
  }

  /** A handler that throws must not take the process down: the datagram is dropped. */
  private handleSafely(conn: GatewayConnection, packet: UpstreamPacket, rinfo: RemoteInfo): void {
    try {
      this.handle(conn, packet, rinfo);
    } catch (err) {
      this.on.dropped('bad_push_data', (err as Error).message);
    }
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

  private handle(conn: GatewayConnection, packet: UpstreamPacket, rinfo: RemoteInfo): void {
    const now = Date.now();
    conn.seen({ address: rinfo.address, port: rinfo.port }, now);
    this.versions.set(conn, packet.version);
    switch (packet.type) {
      case PacketType.PullData:
        conn.claimDownlinkPath(now);
        return;
      case PacketType.TxAck: {
        conn.claimDownlinkPath(now);
        const downlink = conn.acknowledged(packet.token);
        if (!downlink) return this.on.dropped('unknown_token', `TX_ACK with token ${packet.token}`, conn);
        // PULL_RESP → TX_ACK is the round trip the server can measure (TTS records it for the scheduler's lead).
        conn.scheduler?.rtts.record(now - downlink.sent_at, now);
        return this.on.txAck(conn, downlink, parseTxAck(packet.body));
      }
      case PacketType.PushData: {
        const data = parsePushData(packet.body);
        if ('error' in data) return this.on.dropped('bad_push_data', data.error, conn);
        if (data.truncated > 0) this.on.dropped('too_many_rxpk', `${data.truncated} rxpk past the first ${MAX_RXPK} left out`, conn, data.truncated);
        const receivedAt = nowTimestamp();
        const packets: RxPacket[] = [];
        for (const p of data.rxpk) {
          if (isRxPacket(p)) packets.push(p);
          else this.on.dropped('bad_rxpk', p.error, conn);
        }
        const latest = packets[packets.length - 1];
        if (latest) conn.gps_time = latest.tmms === undefined ? undefined : { tmms: latest.tmms, received_ms: now };
        for (const rx of uniqueByRssi(packets)) this.on.uplink(conn, toUplinkMessage(rx, conn.ids, receivedAt, `gs:uplink:${newUlid()}`));
        if (data.stat) this.on.status(conn, toGatewayStatus(data.stat));
        return;
      }
    }
  }

  /** Forgets the flood filter's EUIs silent for a minute. */
  private sweep(): void {
    const now = Date.now();
    for (const [eui, times] of this.recent) if (now - times[times.length - 1] > 60_000) this.recent.delete(eui);
  }
}
