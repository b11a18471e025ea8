import type { GatewayIdentifiers, TX_ACK_RESULTS, UplinkMessage } from '@lorawan/api';

/**
 * What every frontend hands the Gateway Server's core, whatever its protocol (TTS `io.Connection`
 * HandleUp, HandleStatus, HandleTxAck): the contract's messages, narrowed to what the GS always
 * fills in. A frontend translates its protocol's frames into these (Semtech UDP: `io/udp/translation.ts`).
 */

/** A connected gateway's identifiers: the contract's, with the EUI it connected with. */
export type GatewayIds = GatewayIdentifiers & { eui: string };

/** `ttn.lorawan.v3.RxMetadata` of one antenna that heard a copy (a type literal, so that it is one of the contract's `rx_metadata` objects). */
export type RxMetadata = {
  gateway_ids: GatewayIds;
  antenna_index?: number;
  time?: string;
  timestamp: number;
  gps_time?: string;
  fine_timestamp?: string;
  rssi?: number;
  channel_rssi?: number;
  signal_rssi?: number;
  snr?: number;
  channel_index?: number;
  frequency_offset?: string;
  /** When the GS received the copy (TTS sets it too: the webhooks' `rx_metadata[].received_at`). */
  received_at?: string;
  /** Opaque to all but the GS: where and when this copy was heard (the NS hands it back to send a class A downlink). */
  uplink_token: string;
};

/** The `settings` of a received copy: the contract's TxSettings fields a gateway always reports. */
export type UplinkSettings = {
  data_rate: { lora: { spreading_factor: number; bandwidth: number; coding_rate?: string } } | { fsk: { bit_rate: number } };
  frequency: string;
  timestamp: number;
  time?: string;
};

/**
 * One received copy as the GS hands it to the NS (`GsNs.HandleUplink`'s request, the contract's
 * UplinkMessage) with the fields the GS always sets made required; `crc_status` as TTS's
 * UplinkMessage carries it.
 */
export type UplinkMessageJson = Omit<UplinkMessage, 'raw_payload' | 'settings' | 'rx_metadata' | 'received_at' | 'correlation_ids'> & {
  raw_payload: string;
  settings: UplinkSettings;
  rx_metadata: RxMetadata[];
  received_at: string;
  crc_status?: boolean;
  correlation_ids: string[];
};

/** `ttn.lorawan.v3.GatewayStatus` as a gateway reports it (`gs.status.receive`'s data). */
export interface GatewayStatusJson {
  time?: string;
  /** Software and hardware versions (Basics Station's `version` message: station, firmware, package, platform). */
  versions?: Record<string, string>;
  /** What else the gateway said about itself (Basics Station: model, features). */
  advanced?: Record<string, unknown>;
  antenna_locations?: Array<{ latitude: number; longitude: number; altitude: number; source: 'SOURCE_GPS' }>;
  metrics: Record<string, number>;
}

/** A gateway's answer to a downlink (TTS `TxAcknowledgment.Result`, the contract's names). */
export type TxAckResult = (typeof TX_ACK_RESULTS)[number];
