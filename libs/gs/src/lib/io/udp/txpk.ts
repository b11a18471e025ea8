import { type DataRate, ERP_TO_EIRP } from '@lorawan/lorawan';
/**
 * DownlinkMessage settings → PULL_RESP `txpk` (PROTOCOL.TXT §6; TTS `pkg/ttnpb/udp/translation.go`
 * FromDownlinkMessage, dataplane-notes §1.3): frequency in MHz, power as ERP (the stack carries
 * EIRP; ERP = EIRP − 2.15 dB, less the antenna gain), the data rate as the forwarder writes it,
 * inverted polarity and no CRC for LoRa downlinks to devices, and the time to send: a concentrator
 * timestamp (class A: the uplink's `tmst` plus the receive delay, wrapping at 2^32), a GPS time, or
 * "immediately" when neither is given.
 */

/** What a `txpk` is made of (the stack's units: Hz, EIRP). */
export interface TxpkSettings {
  payload: Buffer;
  /** Hz. */
  frequency: number | string;
  data_rate: DataRate;
  /** LoRa coding rate (default 4/5). */
  coding_rate?: string;
  /** dBm EIRP. */
  eirp: number;
  /** dBi of the gateway's antenna (subtracted from the power the radio is given). */
  antenna_gain?: number;
  /** Concentrator timestamp (µs) to send at. */
  timestamp?: number;
  /** GPS time (ms since 1980-01-06) to send at, when the gateway is GPS-synchronised. */
  gps_time_ms?: number;
}

export function toTxpk(tx: TxpkSettings): Record<string, unknown> {
  if (tx.payload.length === 0 || tx.payload.length > 255) throw new Error('a downlink PHYPayload is 1 to 255 bytes');
  const frequency = Number(tx.frequency);
  if (!Number.isFinite(frequency) || frequency <= 0) throw new Error('a downlink needs a frequency');
  const timed = tx.timestamp !== undefined ? { tmst: tx.timestamp >>> 0 } : tx.gps_time_ms !== undefined ? { tmms: tx.gps_time_ms } : { imme: true };
  const rate =
    'lora' in tx.data_rate
      ? {
          modu: 'LORA',
          datr: `SF${tx.data_rate.lora.spreading_factor}BW${tx.data_rate.lora.bandwidth / 1000}`,
          codr: tx.coding_rate ?? '4/5',
          ipol: true,
        }
      : { modu: 'FSK', datr: tx.data_rate.fsk.bit_rate, fdev: tx.data_rate.fsk.bit_rate / 2 };
  return {
    ...timed,
    freq: Math.round(frequency / 100) / 10_000,
    rfch: 0,
    // Whole dBm, never above the limit (rounded first: 16.15 − 2.15 is 13.999… in binary floating point).
    powe: Math.floor(Math.round((tx.eirp - ERP_TO_EIRP - (tx.antenna_gain ?? 0)) * 100) / 100),
    ...rate,
    ncrc: true,
    size: tx.payload.length,
    data: tx.payload.toString('base64'),
  };
}
