import type { GatewayLookupResult } from '../lookup/gateway-lookup';
import type { GatewayFrontend } from '../io/frontend';
import type { GatewayIds } from '../io/messages';
import type { SchedulerOptions } from '../scheduling/scheduler';
import { GatewayConnection, type RemoteAddress } from './gateway-connection';

/** How often the connections are swept: a silent gateway is disconnected at most this long after its timeout. */
export const SWEEP_INTERVAL_MS = 1000;

/** Looks a gateway up by EUI (`GatewayLookup`); rejects when the lookup failed. */
export type GatewayResolver = (eui: string) => Promise<GatewayLookupResult>;

/**
 * Why a gateway was not connected: the IS does not know its EUI; not registered and no fallback
 * plan; no lookup allowed now (GS_UNKNOWN_EUI_LOOKUPS_PER_SEC); the lookup failed.
 */
export type RefusalReason = 'unknown_gateway' | 'no_fallback_frequency_plan' | 'lookup_throttled' | 'lookup_failed';

export interface ConnectionOptions {
  /** Unknown EUIs are refused; else connected as `eui-<eui>` with `fallbackFrequencyPlan`. */
  requireRegistered: boolean;
  fallbackFrequencyPlan?: string;
  /** Without a downlink path claim (Semtech UDP: PULL_DATA or TX_ACK) for this long, a gateway has no downlink path (TTS 90 s). */
  downlinkPathExpiresMs?: number;
  /** Without any traffic for this long, a connection ends (TTS 3 min), unless its frontend names its own timeout (`GatewayFrontend.connectionTimeoutMs`). */
  connectionExpiresMs?: number;
  /** Each gateway's downlink scheduler's settings (duty-cycle window and enforcement, clock: tests). */
  scheduling?: SchedulerOptions;
}

/**
 * Why a connection ended: nothing came from the gateway within its frontend's timeout; the Gateway
 * Server (or the frontend) stopped; the gateway closed it (Basics Station: its WebSocket); a new
 * connection of the same gateway replaced it; it left its keepalive pings unanswered.
 */
export type DisconnectReason = 'timeout' | 'stopped' | 'closed' | 'replaced' | 'missed_pongs';

/** What the connections tell the Gateway Server's core (TTS `io.Server` Connect, and a connection's end). */
export interface ConnectionEvents {
  connected(conn: GatewayConnection): void;
  disconnected(conn: GatewayConnection, reason: DisconnectReason): void;
  /** A gateway that could not be connected (each attempt), and what went wrong for `lookup_failed`. */
  refused(eui: string, reason: RefusalReason, detail?: string): void;
}

/**
 * The gateways connected to this Gateway Server replica, by EUI, through any frontend: a frontend
 * asks to connect an EUI on its first traffic (`connect`: concurrent attempts share one lookup;
 * registered gateways by EUI through the resolver, unknown ones refused or connected as
 * `eui-<eui>` with the fallback frequency plan); connections without traffic, downlink paths and
 * pending downlinks expire (`sweep`, run every second while started).
 */
export class GatewayConnections {
  private readonly connections = new Map<string, GatewayConnection>();
  private readonly connecting = new Map<string, Promise<GatewayConnection | undefined>>();
  private sweeper?: NodeJS.Timeout;
  private readonly o: Required<Omit<ConnectionOptions, 'fallbackFrequencyPlan' | 'scheduling'>> &
    Pick<ConnectionOptions, 'fallbackFrequencyPlan' | 'scheduling'>;

  constructor(
    options: ConnectionOptions,
    private readonly resolve: GatewayResolver,
    private readonly on: ConnectionEvents,
  ) {
    this.o = { downlinkPathExpiresMs: 90_000, connectionExpiresMs: 180_000, ...options };
  }

  /** Starts expiring connections. */
  start(): void {
    this.sweeper ??= setInterval(() => this.sweep(), Math.min(SWEEP_INTERVAL_MS, this.o.downlinkPathExpiresMs / 2));
    this.sweeper.unref();
  }

  /** Stops expiring and ends the connections of `frontend` (all when none is named): `disconnected(conn, 'stopped')`. */
  stop(frontend?: GatewayFrontend): void {
    if (!frontend) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
    for (const [eui, conn] of this.connections) {
      if (frontend && conn.frontend !== frontend) continue;
      this.connections.delete(eui);
      this.on.disconnected(conn, 'stopped');
    }
  }

  /**
   * Ends a connection (`reason`) if it is still its EUI's: a frontend whose gateway went away or
   * connected anew (`replaced`: a new connection of the gateway follows, through `connect`);
   * nothing if it ended already.
   */
  disconnect(conn: GatewayConnection, reason: DisconnectReason): void {
    const eui = conn.ids.eui.toUpperCase();
    if (this.connections.get(eui) !== conn) return;
    this.connections.delete(eui);
    this.on.disconnected(conn, reason);
  }

  /** The connections (metrics). */
  all(): IterableIterator<GatewayConnection> {
    return this.connections.values();
  }

  /** The connection of a gateway EUI (upper-case hex, any case accepted). */
  get(eui: string): GatewayConnection | undefined {
    return this.connections.get(eui.toUpperCase());
  }

  /** The gateway's connection: the existing one, else one made now through `frontend` (from `remote`); undefined when refused. */
  connect(eui: string, frontend: GatewayFrontend, remote: RemoteAddress): Promise<GatewayConnection | undefined> {
    const existing = this.connections.get(eui);
    if (existing) return Promise.resolve(existing);
    let pending = this.connecting.get(eui);
    if (!pending) {
      pending = this.establish(eui, frontend, remote).finally(() => this.connecting.delete(eui));
      this.connecting.set(eui, pending);
    }
    return pending;
  }

  private async establish(eui: string, frontend: GatewayFrontend, remote: RemoteAddress): Promise<GatewayConnection | undefined> {
    let result: GatewayLookupResult;
    try {
      result = await this.resolve(eui);
    } catch (err) {
      // The registry is away: refuse this attempt, look again on the next one.
      return this.refuse(eui, 'lookup_failed', (err as Error).message);
    }
    if (result.status === 'throttled') return this.refuse(eui, 'lookup_throttled');
    let ids: GatewayIds;
    let plans: string[];
    let updateLocation = false;
    if (result.status === 'found') {
      const { ids: registered, frequency_plan_ids } = result.gateway;
      // The IS answers with the gateway's identifiers, its EUI included (the one asked for).
      ids = { ...registered, eui: registered.eui ?? eui };
      plans = frequency_plan_ids;
      updateLocation = result.gateway.update_location_from_status === true;
    } else if (this.o.requireRegistered) return this.refuse(eui, 'unknown_gateway');
    else if (!this.o.fallbackFrequencyPlan) return this.refuse(eui, 'no_fallback_frequency_plan');
    else {
      ids = { gateway_id: `eui-${eui.toLowerCase()}`, eui };
      plans = [this.o.fallbackFrequencyPlan];
    }
    const conn = new GatewayConnection(ids, plans, frontend, remote, this.o.scheduling);
    conn.update_location_from_status = updateLocation;
    this.connections.set(eui, conn);
    this.on.connected(conn);
    return conn;
  }

  private refuse(eui: string, reason: RefusalReason, detail?: string): undefined {
    this.on.refused(eui, reason, detail);
    return undefined;
  }

  /**
   * Ends the connections without traffic for their frontend's timeout (`connectionExpiresMs`
   * when it names none), and expires downlink paths and pending downlinks. Run every second, so a
   * silent gateway is disconnected at most a second after its timeout.
   */
  sweep(now = Date.now()): void {
    for (const [eui, conn] of this.connections) {
      if (now - conn.last_seen_ms > (conn.frontend.connectionTimeoutMs ?? this.o.connectionExpiresMs)) {
        this.connections.delete(eui);
        this.on.disconnected(conn, 'timeout');
        continue;
      }
      conn.expire(now, this.o.downlinkPathExpiresMs);
    }
  }
}
