import type { GatewayConnection, PendingDownlink } from '../connection/gateway-connection';
import type { ConnectionEvents } from '../connection/gateway-connections';
import type { PlannedDownlink } from '../scheduling/class-a-downlink';
import type { GatewayStatusJson, TxAckResult, UplinkMessageJson } from './messages';

/**
 * A gateway protocol the Gateway Server speaks (TTS `pkg/gatewayserver/io` Frontend): Semtech UDP
 * (`io/udp`) today, LoRa Basics Station next. A frontend owns its transport and its protocol's
 * frames only: it connects gateways through the core's `GatewayConnections` (which holds their
 * state), reports what they send through `FrontendEvents`, and sends the downlinks the core's
 * scheduling planned. Everything else (lookups, the NS, events, scheduling) is the core's.
 */
export interface GatewayFrontend {
  /** The protocol's name (`gs.gateway.connect`'s `protocol`, the metrics' label), TTS's: `udp`, `semtechws/lbslns`. */
  readonly protocol: string;
  /**
   * A gateway of this frontend from which nothing came for this long (ms) is disconnected
   * (`timeout`; Semtech UDP: GS_UDP_CONNECTION_TIMEOUT_MS). Undefined: the connections' default
   * (3 min, TTS), for a frontend that notices a dead gateway itself (a WebSocket's ping/pong).
   */
  readonly connectionTimeoutMs?: number;
  /** Starts serving (binds its socket). */
  start(): Promise<unknown>;
  /** Where it serves, for the log line once started: the line's fields and message. */
  describe(): { fields: Record<string, unknown>; message: string };
  /** Stops serving: its gateways are disconnected (`stopped`). */
  stop(): Promise<void>;
  /**
   * Downlink: hands a planned downlink to a gateway connected through this frontend, on its
   * downlink path, with `context` returned with the acknowledgment. Undefined when the gateway has
   * no downlink path.
   */
  send(conn: GatewayConnection, downlink: PlannedDownlink, context?: unknown): PendingDownlink | undefined;
}

/**
 * What a frontend reports to the core (TTS `io.Connection`): connect and disconnect (through
 * `GatewayConnections`), each received copy of an uplink, a status, a TX acknowledgment, and
 * traffic it dropped (`reason`: a metric label of the protocol's).
 */
export interface FrontendEvents<DropReason extends string = string> extends ConnectionEvents {
  /** One received copy of a frame (CRC failures included: `crc_status: false`). */
  uplink(conn: GatewayConnection, message: UplinkMessageJson): void;
  status(conn: GatewayConnection, status: GatewayStatusJson): void;
  txAck(conn: GatewayConnection, downlink: PendingDownlink, result: TxAckResult): void;
  /** Traffic dropped (`count` of them, default 1): the reason (a metric label) and what was wrong. */
  dropped(reason: DropReason, detail?: string, conn?: GatewayConnection, count?: number): void;
}
