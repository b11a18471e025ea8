import { Duration, Float, Str, Struct, Timestamp, Uint32, Uint64 } from '../json/fields';
import { Message, MessageMap, Messages, Required } from '../json/nested';
import { FieldMask, FieldMaskField } from './field-mask';
import { GatewayIdentifiers } from './identifiers';

/** `ttn.lorawan.v3.GatewayConnectionStats.RoundTripTimes`: the round trips the GS measured to the gateway. */
export class GatewayRoundTripTimes {
  @Required() @Duration() min!: string;
  @Required() @Duration() max!: string;
  @Required() @Duration() median!: string;
  @Uint32() count?: number;
}

/** `ttn.lorawan.v3.GatewayConnectionStats.SubBand`: a sub-band of the gateway's plans and its share of the duty-cycle window on the air. */
export class GatewaySubBandStats {
  @Uint64() min_frequency?: string;
  @Uint64() max_frequency?: string;
  /** The duty-cycle limit of the sub-band, as a fraction of time. */
  @Float() downlink_utilization_limit?: number;
  /** The fraction of the window the sub-band was on the air (at most the limit). */
  @Float() downlink_utilization?: number;
}

/** `ttn.lorawan.v3.GatewayRemoteAddress`. */
export class GatewayRemoteAddress {
  @Str({ maxLength: 64 }) ip?: string;
}

/** `ttn.lorawan.v3.GatewayConnectionStats`: a gateway's current connection to the Gateway Server (not kept across reconnections). */
export class GatewayConnectionStats {
  @Timestamp() connected_at?: string;
  @Timestamp() disconnected_at?: string;
  /** `udp`, later `ws` (Basics Station). */
  @Str({ maxLength: 32 }) protocol?: string;
  @Timestamp() last_status_received_at?: string;
  /** `ttn.lorawan.v3.GatewayStatus` as the gateway reported it (`gs.status.receive`'s data). */
  @Struct() last_status?: Record<string, unknown>;
  @Timestamp() last_uplink_received_at?: string;
  @Uint64() uplink_count?: string;
  @Timestamp() last_downlink_received_at?: string;
  @Uint64() downlink_count?: string;
  @Timestamp() last_tx_acknowledgment_received_at?: string;
  @Uint64() tx_acknowledgment_count?: string;
  @Message(() => GatewayRoundTripTimes) round_trip_times?: GatewayRoundTripTimes;
  @Messages(() => GatewaySubBandStats) sub_bands?: GatewaySubBandStats[];
  @Message(() => GatewayRemoteAddress) gateway_remote_address?: GatewayRemoteAddress;
}

/** The fields of GatewayConnectionStats a batch request's `field_mask` may name (TTS's `GatewayConnectionStats` paths). */
export const GATEWAY_CONNECTION_STATS_PATHS: ReadonlySet<string> = new Set([
  'connected_at',
  'disconnected_at',
  'protocol',
  'last_status_received_at',
  'last_status',
  'last_uplink_received_at',
  'uplink_count',
  'last_downlink_received_at',
  'downlink_count',
  'last_tx_acknowledgment_received_at',
  'tx_acknowledgment_count',
  'round_trip_times',
  'round_trip_times.min',
  'round_trip_times.max',
  'round_trip_times.median',
  'round_trip_times.count',
  'sub_bands',
  'gateway_remote_address',
  'gateway_remote_address.ip',
]);

/** `ttn.lorawan.v3.BatchGetGatewayConnectionStatsRequest`: 1 to 100 gateways, and the stats fields wanted of each. */
export class BatchGetGatewayConnectionStatsRequest {
  @Required() @Messages(() => GatewayIdentifiers, { minItems: 1, maxItems: 100 }) gateway_ids!: GatewayIdentifiers[];
  @FieldMaskField() field_mask?: FieldMask;
}

/** `ttn.lorawan.v3.BatchGetGatewayConnectionStatsResponse`: the stats of the connected gateways, by gateway ID (the others left out). */
export class BatchGetGatewayConnectionStatsResponse {
  @MessageMap(() => GatewayConnectionStats) entries?: Record<string, GatewayConnectionStats>;
}
