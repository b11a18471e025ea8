import { plainJson } from '@lorawan/api';
import { gpsMsToUtc } from '@lorawan/lorawan';
import type { GatewayIds, GatewayStatusJson, RxMetadata, UplinkMessageJson } from '../messages';
import { encodeUplinkToken } from '../../scheduling/uplink-token';
import type { GatewayStat, RxPacket } from './packet-data';

/**
 * rxpk → UplinkMessage and stat → GatewayStatus as TTS writes them in JSON
 * (`pkg/ttnpb/udp/translation.go`, dataplane-notes §1.5): frequencies in Hz as 64-bit strings,
 * one RxMetadata per antenna (`rsig`, else the packet itself), signal figures as the gateway gave
 * them, CRC status.
 */

/**
 * The UTC time of a `tmms` (GPS ms since 1980-01-06), as TTS `gpstime.Parse`: GPS time runs ahead
 * of UTC by the leap seconds (18 since 2017), which come off.
 */
function gpsTime(tmms: number): string {
  return gpsMsToUtc(tmms)
    .toISOString()
    .replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** The UplinkMessage of one received copy (fields the gateway left out are absent, as in JSON). */
export function toUplinkMessage(rx: RxPacket, gateway: GatewayIds, receivedAt: string, correlationId: string): UplinkMessageJson {
  const receivedMs = Date.parse(receivedAt);
  const antenna = (index: number, fineTimestamp: number | undefined, frequencyOffset: number | undefined): RxMetadata => {
    const md: RxMetadata = { gateway_ids: gateway, timestamp: rx.tmst, antenna_index: index, uplink_token: '' };
    if (rx.time !== undefined) md.time = rx.time;
    if (rx.tmms !== undefined) md.gps_time = gpsTime(rx.tmms);
    md.uplink_token = encodeUplinkToken({
      gateway_id: gateway.gateway_id,
      eui: gateway.eui,
      antenna_index: index,
      timestamp: rx.tmst,
      received_ms: receivedMs,
    });
    if (fineTimestamp !== undefined) md.fine_timestamp = String(fineTimestamp);
    if (frequencyOffset !== undefined) md.frequency_offset = String(frequencyOffset);
    md.received_at = receivedAt;
    return md;
  };
  const metadata: RxMetadata[] = rx.rsig?.length
    ? rx.rsig.map((s) =>
        defined(
          Object.assign(antenna(s.ant ?? 0, s.ftime, s.foff), {
            rssi: s.rssic ?? rx.rssi,
            channel_rssi: s.rssic ?? rx.rssi,
            signal_rssi: s.rssis,
            snr: s.lsnr,
            channel_index: s.chan ?? rx.chan,
          }),
        ),
      )
    : [defined(Object.assign(antenna(0, rx.ftime, rx.foff), { rssi: rx.rssi, channel_rssi: rx.rssi, snr: rx.lsnr, channel_index: rx.chan }))];
  const dataRate: UplinkMessageJson['settings']['data_rate'] =
    'spreadingFactor' in rx.dataRate
      ? { lora: defined({ spreading_factor: rx.dataRate.spreadingFactor, bandwidth: rx.dataRate.bandwidth, coding_rate: rx.codingRate }) }
      : { fsk: { bit_rate: rx.dataRate.bitRate } };
  const message: UplinkMessageJson = {
    raw_payload: rx.payload.toString('base64'),
    settings: defined({ data_rate: dataRate, frequency: String(rx.frequency), timestamp: rx.tmst, time: rx.time }),
    rx_metadata: metadata,
    received_at: receivedAt,
    correlation_ids: [correlationId],
  };
  if (rx.stat !== 0) message.crc_status = rx.stat === 1;
  return message;
}

/** `o` without its undefined fields (what JSON leaves out; the objects here are built with few). */
function defined<T extends object>(o: T): T {
  for (const key of Object.keys(o) as Array<keyof T>) if (o[key] === undefined) delete o[key];
  return o;
}

/** Of the copies of one frame in a datagram (several channels or boards), the one with the best RSSI (TTS `UniqueUplinkMessagesByRSSI`). */
export function uniqueByRssi(packets: RxPacket[]): RxPacket[] {
  const best = new Map<string, RxPacket>();
  for (const p of packets) {
    const key = p.payload.toString('base64');
    const kept = best.get(key);
    if (!kept || p.rssi > kept.rssi) best.set(key, p);
  }
  return [...best.values()];
}

/** TTS's placeholder locations that packet forwarders report without a GPS fix. */
const INVALID_LOCATIONS = [
  [0, 0],
  [10, 20],
];

export function toGatewayStatus(stat: GatewayStat): GatewayStatusJson {
  const metrics: Record<string, number> = {};
  const names: Array<[keyof GatewayStat, string]> = [
    ['rxnb', 'rxin'],
    ['rxok', 'rxok'],
    ['rxfw', 'rxfw'],
    ['ackr', 'ackr'],
    ['dwnb', 'txin'],
    ['txnb', 'txok'],
    ['temp', 'temp'],
  ];
  for (const [from, to] of names) if (stat[from] !== undefined) metrics[to] = stat[from] as number;
  const located = stat.lati !== undefined && stat.long !== undefined && !INVALID_LOCATIONS.some(([la, lo]) => la === stat.lati && lo === stat.long);
  return plainJson({
    time: stat.time,
    antenna_locations: located
      ? [{ latitude: stat.lati as number, longitude: stat.long as number, altitude: Math.round(stat.alti ?? 0), source: 'SOURCE_GPS' as const }]
      : undefined,
    metrics,
  });
}
