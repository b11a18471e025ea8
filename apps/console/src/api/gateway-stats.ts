import { api } from './client';

/** `ttn.lorawan.v3.GatewayConnectionStats`, the fields the console shows. */
export interface GatewayConnectionStats {
  connected_at?: string;
  protocol?: string;
  last_uplink_received_at?: string;
  uplink_count?: string;
  downlink_count?: string;
  last_status_received_at?: string;
  round_trip_times?: { median: string; count: number };
  sub_bands?: Array<{ min_frequency: string; max_frequency: string; downlink_utilization?: number; downlink_utilization_limit?: number }>;
}

/** The batch route's bound (TTS: 1 to 100 gateways a request). */
export const STATS_BATCH = 100;
export const STATS_FIELDS = [
  'connected_at',
  'protocol',
  'last_uplink_received_at',
  'uplink_count',
  'downlink_count',
  'last_status_received_at',
  'round_trip_times',
  'sub_bands',
];

/** The connection stats of the connected ones of `gatewayIds`, by ID (`POST /gs/gateways/connection/stats`, 100 at a time); absent: not connected. */
export async function connectionStats(gatewayIds: readonly string[]): Promise<Record<string, GatewayConnectionStats>> {
  const entries: Record<string, GatewayConnectionStats> = {};
  for (let i = 0; i < gatewayIds.length; i += STATS_BATCH) {
    const ids = gatewayIds.slice(i, i + STATS_BATCH);
    const { body } = await api<{ entries?: Record<string, GatewayConnectionStats> }>('POST', '/gs/gateways/connection/stats', {
      body: { gateway_ids: ids.map((gateway_id) => ({ gateway_id })), field_mask: { paths: STATS_FIELDS } },
    });
    Object.assign(entries, body.entries ?? {});
  }
  return entries;
}

/** The busiest sub-band's share of its duty cycle (0–1), or undefined without sub-bands. */
export function dutyCycleUse(stats: GatewayConnectionStats): number | undefined {
  const shares = (stats.sub_bands ?? [])
    .filter((s) => (s.downlink_utilization_limit ?? 0) > 0)
    .map((s) => (s.downlink_utilization ?? 0) / (s.downlink_utilization_limit as number));
  return shares.length > 0 ? Math.max(...shares) : undefined;
}

/** A `google.protobuf.Duration` (`0.025s`) in milliseconds, rounded. */
export function durationMs(duration: string): number {
  return Math.round(parseFloat(duration) * 1000);
}
