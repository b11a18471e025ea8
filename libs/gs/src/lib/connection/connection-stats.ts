import type { GatewayConnectionStats } from '@lorawan/api';
import type { GatewayStatusJson } from '../io/messages';
import type { GatewayConnection } from './gateway-connection';

/**
 * What a gateway's connection counted (TTS `io.Connection` stats): uplinks, downlinks, TX
 * acknowledgments with the time of the latest of each, and the latest status. Fed by the Gateway
 * Server's core for every frontend; on the uplink path a count is an increment and a number
 * (`Date.now()`), nothing allocated. The rest of the stats (round trips, sub-bands, address) is
 * read from the connection when asked (`gatewayConnectionStats`).
 */
export class ConnectionStats {
  uplink_count = 0;
  /** Unix ms of the latest uplink; 0: none yet. */
  last_uplink_ms = 0;
  downlink_count = 0;
  last_downlink_ms = 0;
  tx_acknowledgment_count = 0;
  last_tx_acknowledgment_ms = 0;
  last_status?: GatewayStatusJson;
  last_status_ms = 0;

  uplink(now = Date.now()): void {
    this.uplink_count++;
    this.last_uplink_ms = now;
  }

  /** A downlink handed to the gateway (its frontend took it). */
  downlink(now = Date.now()): void {
    this.downlink_count++;
    this.last_downlink_ms = now;
  }

  txAcknowledgment(now = Date.now()): void {
    this.tx_acknowledgment_count++;
    this.last_tx_acknowledgment_ms = now;
  }

  status(status: GatewayStatusJson, now = Date.now()): void {
    this.last_status = status;
    this.last_status_ms = now;
  }
}

/** ms as a `google.protobuf.Duration` in JSON (`0.123s`). */
function duration(ms: number): string {
  return `${ms / 1000}s`;
}

/**
 * `ttn.lorawan.v3.GatewayConnectionStats` of a connection: protocol, connected at, the counts and
 * latest times (left out while zero, as TTS leaves unset timestamps out), the round-trip times the
 * scheduler keeps (the last 30 minutes'), each sub-band's duty-cycle utilization, the remote address.
 */
export function gatewayConnectionStats(conn: GatewayConnection, now = Date.now()): GatewayConnectionStats {
  const s = conn.stats;
  const at = (ms: number) => (ms > 0 ? new Date(ms).toISOString() : undefined);
  const rtts = conn.scheduler?.rtts.stats(50, now);
  const stats: GatewayConnectionStats = {
    connected_at: conn.connected_at,
    protocol: conn.frontend.protocol,
    last_status_received_at: at(s.last_status_ms),
    last_status: s.last_status as Record<string, unknown> | undefined,
    last_uplink_received_at: at(s.last_uplink_ms),
    uplink_count: String(s.uplink_count),
    last_downlink_received_at: at(s.last_downlink_ms),
    downlink_count: String(s.downlink_count),
    last_tx_acknowledgment_received_at: at(s.last_tx_acknowledgment_ms),
    tx_acknowledgment_count: String(s.tx_acknowledgment_count),
    round_trip_times: rtts && { min: duration(rtts.min), max: duration(rtts.max), median: duration(rtts.median), count: rtts.count },
    sub_bands: conn.scheduler?.subBandStats(),
    gateway_remote_address: { ip: conn.remote.address },
  };
  for (const key of Object.keys(stats) as Array<keyof GatewayConnectionStats>) if (stats[key] === undefined) delete stats[key];
  return stats;
}
