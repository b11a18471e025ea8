import { randomInt } from 'node:crypto';
import { nowTimestamp } from '@lorawan/api';
import { type FrequencyPlan, combineFrequencyPlans } from '@lorawan/lorawan';
import type { GatewayFrontend } from '../io/frontend';
import type { GatewayIds } from '../io/messages';
import { ConnectionStats } from './connection-stats';
import { GatewayScheduler, type ScheduledEmission, type SchedulerOptions } from '../scheduling/scheduler';

/** Where a gateway's traffic last came from (`gs.gateway.connect` reports the first). */
export interface RemoteAddress {
  address: string;
  port: number;
}

/** A downlink handed to a gateway, until its TX acknowledgment comes (or it is forgotten). */
export interface PendingDownlink {
  /** The token the gateway's acknowledgment carries (Semtech UDP: the PULL_RESP token, 1 to 65535). */
  token: number;
  /** What the caller passes along to match the acknowledgment (correlation IDs, the NS's request). */
  context?: unknown;
  /** Its booking in the gateway's scheduler, taken back when the gateway refuses it. */
  emission?: ScheduledEmission;
  sent_at: number;
  /** When the gateway refuses it: sends it once more where it can still go (the next receive window, a later moment), the new pending downlink. */
  retry?: () => PendingDownlink | undefined;
}

/** A pending downlink is forgotten this long after it was sent. */
const PENDING_TTL_MS = 60_000;

/**
 * One connected gateway, whatever frontend it came through (TTS `io.Connection`): its
 * identifiers and frequency plans from the Identity Server, the frontend, where its traffic last
 * came from and when, whether (and since when) it has a downlink path, the GPS time of its latest
 * uplink, the downlinks handed to it awaiting acknowledgment by token, and its downlink scheduler
 * (`GatewayScheduler`: its clock, round-trip times, emissions and duty cycle; none when none of its
 * frequency plans is known). The frontend reports what it hears (`seen`, `claimDownlinkPath`,
 * `gps_time`, round trips); `GatewayConnections` expires it.
 */
export class GatewayConnection {
  readonly connected_at = nowTimestamp();
  /** Unix ms of the latest datagram or message. */
  last_seen_ms = Date.now();
  /** Unix ms since when the gateway can be sent downlinks (Semtech UDP: its latest PULL_DATA or TX_ACK); unset: no downlink path. */
  downlink_path_ms?: number;
  /**
   * The GPS time (`tmms`) of the latest valid uplink and when it arrived; unset when that uplink had
   * none. A forwarder writes `tmms` only while its GPS is locked, and TTS re-syncs a gateway's
   * clock on every uplink, forgetting its absolute time on one without (`scheduling` RolloverClock
   * Sync / SyncWithGatewayAbsolute). Sending at an absolute time (class B) needs it.
   */
  gps_time?: { tmms: number; received_ms: number };
  private readonly pending = new Map<number, PendingDownlink>();
  /**
   * Those plans as one (`combineFrequencyPlans`: the first's RX2 and radios, every plan's channels
   * and sub-bands), which downlinks are planned in; undefined when a plan is unknown or the plans
   * are of several bands (the IS refuses both).
   */
  readonly frequency_plan?: FrequencyPlan;
  readonly scheduler?: GatewayScheduler;
  /** The gateway's status may set its antenna's location in the IS (its `update_location_from_status` when it connected). */
  update_location_from_status = false;
  /** What the connection counted (uplinks, downlinks, TX acknowledgments, the latest status): `Gs.GetGatewayConnectionStats`. */
  readonly stats = new ConnectionStats();

  constructor(
    readonly ids: GatewayIds,
    readonly frequency_plan_ids: string[],
    /** The frontend the gateway is connected through (its protocol, and where its downlinks go). */
    readonly frontend: GatewayFrontend,
    /** The address traffic last came from. */
    public remote: RemoteAddress,
    scheduling: SchedulerOptions = {},
  ) {
    this.frequency_plan = combineFrequencyPlans(frequency_plan_ids);
    if (this.frequency_plan) this.scheduler = new GatewayScheduler([this.frequency_plan], scheduling);
  }

  /** Traffic from the gateway (from `remote`): it stays connected. */
  seen(remote: RemoteAddress, now = Date.now()): void {
    this.last_seen_ms = now;
    this.remote = remote;
  }

  /** The gateway can be sent downlinks from now (Semtech UDP: a PULL_DATA or TX_ACK came from `remote`). */
  claimDownlinkPath(now = Date.now()): void {
    this.downlink_path_ms = now;
  }

  get hasDownlinkPath(): boolean {
    return this.downlink_path_ms !== undefined;
  }

  /** A downlink handed to the gateway now, with a fresh token (1 to 65535) its acknowledgment will carry. */
  pend(context?: unknown, emission?: ScheduledEmission): PendingDownlink {
    let token = randomInt(1, 0x10000);
    while (this.pending.has(token)) token = randomInt(1, 0x10000);
    const downlink: PendingDownlink = { token, context, ...(emission ? { emission } : {}), sent_at: Date.now() };
    this.pending.set(token, downlink);
    return downlink;
  }

  /** The downlink an acknowledgment's token names, taken off the pending ones; undefined for a token of none. */
  acknowledged(token: number): PendingDownlink | undefined {
    const downlink = this.pending.get(token);
    this.pending.delete(token);
    return downlink;
  }

  /** Forgets the downlink path older than `downlinkPathExpiresMs` and the pending downlinks older than a minute. */
  expire(now: number, downlinkPathExpiresMs: number): void {
    if (this.downlink_path_ms !== undefined && now - this.downlink_path_ms > downlinkPathExpiresMs) this.downlink_path_ms = undefined;
    for (const [token, d] of this.pending) if (now - d.sent_at > PENDING_TTL_MS) this.pending.delete(token);
  }
}
