import type { DataRate } from '../frequency-plans/data-rates';

/**
 * Time on air of a LoRa or FSK frame, in microseconds: how long a radio transmits it, which is what
 * a gateway's duty cycle, dwell time and emission conflicts are counted in (TTS `pkg/toa` Compute).
 * TTS answers in nanoseconds; every LoRaWAN data rate gives a whole number of microseconds (a
 * quarter symbol at 125, 250 or 500 kHz is 2^SF × 2, 2^SF or 2^(SF−1) µs; an FSK byte at 50 kbps
 * is 160 µs), so the figures are the same, and they are computed here in integers, exactly.
 *
 * LoRa (SX1276/77/78/79 datasheet §4.1.1.7 "Time on air", Semtech AN1200.13 "LoRa Modem Designer's
 * Guide", SX1261/2 datasheet §6.1.4): a symbol lasts 2^SF / BW. A frame is its preamble (the
 * programmed symbols plus 4.25 symbols of sync word and start-of-frame), then 8 symbols sent at
 * coding rate 4/8 that carry the explicit header and the first payload bits, then blocks of
 * (4 + CR) symbols, each carrying 4 × SF bits (4 × (SF − 2) with low data rate optimization):
 *
 *   payload symbols = 8 + max(⌈(8·PL − 4·SF + 28 + 16·CRC − 20·IH) / (4·(SF − 2·DE))⌉, 0) · (CR + 4)
 *
 * where PL is the PHYPayload's length, CRC is 1 with the payload CRC, IH is 1 in implicit header
 * mode and DE is 1 with low data rate optimization. SF5 and SF6 (SX126x only) have a preamble of
 * the programmed symbols plus 6.25 and no 8 bits of header overhead: ⌈(8·PL + 16·CRC − 4·SF +
 * 20·(1 − IH)) / (4·SF)⌉. LR-FHSS and the 2.4 GHz band are not covered.
 */

/** LoRa coding rates as the API writes them (`ttn.lorawan.v3.LoRaDataRate.coding_rate`, TTS `band.Cr4_5`…). */
export const LORA_CODING_RATES = ['4/5', '4/6', '4/7', '4/8'] as const;
export type LoRaCodingRate = (typeof LORA_CODING_RATES)[number];

/** The preamble of a LoRaWAN frame (RP002 "<band> Preamble Format" of every band: 8 symbols, sync word 0x34). */
export const LORAWAN_PREAMBLE_SYMBOLS = 8;

/**
 * FSK framing of LoRaWAN (RP002 "<band> Preamble Format": a 5-byte preamble and the 3-byte sync
 * word C194C1h; TTS `computeFSK`): then a length byte, the PHYPayload and a 2-byte CRC, all at the
 * bit rate.
 */
export const FSK_PREAMBLE_BYTES = 5;
export const FSK_SYNC_WORD_BYTES = 3;
export const FSK_LENGTH_BYTES = 1;
export const FSK_CRC_BYTES = 2;

export interface LoRaFrameSettings {
  readonly spreading_factor: number;
  /** Hz. */
  readonly bandwidth: number;
  /** Default 4/5, what LoRaWAN uses in every region. */
  readonly coding_rate?: string;
  /** Whether the radio appends the 16-bit payload CRC (LoRaWAN: uplinks only). */
  readonly crc: boolean;
  /** Programmed preamble length; default 8 (LoRaWAN), 10 for a class B beacon. */
  readonly preamble_symbols?: number;
  /** Implicit header mode (no PHDR): class B beacons only, in LoRaWAN. Default false. */
  readonly implicit_header?: boolean;
  /**
   * Low data rate optimization; by default on when a symbol lasts more than 16 ms, where the
   * SX127x datasheet mandates it: SF11 and SF12 at 125 kHz (TTS sets it for these two only), and
   * SF12 at 250 kHz (LoRaMac-node's SX126x driver sets it there too; no LoRaWAN data rate is SF12
   * at 250 kHz). The SF5/SF6 formula has none.
   */
  readonly low_data_rate_optimization?: boolean;
}

function codingRateOffset(codingRate: string): number {
  const index = LORA_CODING_RATES.indexOf(codingRate as LoRaCodingRate);
  if (index < 0) throw new RangeError(`LoRa coding rate must be one of ${LORA_CODING_RATES.join(', ')}, got ${JSON.stringify(codingRate)}`);
  return index + 1;
}

function checkPayloadSize(payloadSize: number): void {
  if (!Number.isInteger(payloadSize) || payloadSize < 0 || payloadSize > 255) throw new RangeError(`a PHYPayload is 0 to 255 bytes, got ${payloadSize}`);
}

/** Whether a LoRa symbol at `spreadingFactor` and `bandwidth` (Hz) lasts more than 16 ms (2^SF / BW > 0.016 s). */
export function lowDataRateOptimizationMandated(spreadingFactor: number, bandwidth: number): boolean {
  return 2 ** spreadingFactor * 1000 > 16 * bandwidth;
}

/** Symbols of a LoRa frame, times 4 (the preamble adds a quarter symbol, so the count is a whole number of quarters). */
export function loraQuarterSymbols(payloadSize: number, settings: LoRaFrameSettings): number {
  checkPayloadSize(payloadSize);
  const { spreading_factor: sf, bandwidth } = settings;
  if (!Number.isInteger(sf) || sf < 5 || sf > 12) throw new RangeError(`LoRa spreading factor must be 5 to 12, got ${sf}`);
  if (!Number.isInteger(bandwidth) || bandwidth <= 0) throw new RangeError(`LoRa bandwidth must be a positive number of Hz, got ${bandwidth}`);
  const cr = codingRateOffset(settings.coding_rate ?? '4/5');
  const preamble = settings.preamble_symbols ?? LORAWAN_PREAMBLE_SYMBOLS;
  if (!Number.isInteger(preamble) || preamble < 0 || preamble > 0xffff) throw new RangeError(`LoRa preamble must be 0 to 65535 symbols, got ${preamble}`);
  const crcBits = settings.crc ? 16 : 0;
  const headerBits = settings.implicit_header ? 0 : 20;
  let bits: number;
  let bitsPerBlock: number;
  let preambleQuarters: number;
  if (sf <= 6) {
    bits = 8 * payloadSize + crcBits - 4 * sf + headerBits;
    bitsPerBlock = 4 * sf;
    preambleQuarters = 4 * preamble + 25;
  } else {
    const de = (settings.low_data_rate_optimization ?? lowDataRateOptimizationMandated(sf, bandwidth)) ? 1 : 0;
    bits = 8 * payloadSize + crcBits - 4 * sf + 8 + headerBits;
    bitsPerBlock = 4 * (sf - 2 * de);
    preambleQuarters = 4 * preamble + 17;
  }
  const payloadSymbols = 8 + Math.max(Math.ceil(bits / bitsPerBlock), 0) * (cr + 4);
  return preambleQuarters + 4 * payloadSymbols;
}

/**
 * Time on air (µs) of a LoRa frame of `payloadSize` PHYPayload bytes: quarter symbols × 2^SF / (4 ×
 * BW), rounded up to the microsecond where a bandwidth makes it fractional (never for LoRaWAN's).
 */
export function loraTimeOnAirUs(payloadSize: number, settings: LoRaFrameSettings): number {
  const quarters = loraQuarterSymbols(payloadSize, settings);
  return Math.ceil((quarters * 2 ** settings.spreading_factor * 250_000) / settings.bandwidth);
}

/** Time on air (µs) of an FSK frame of `payloadSize` PHYPayload bytes at `bitRate` bit/s, rounded up to the microsecond. */
export function fskTimeOnAirUs(payloadSize: number, bitRate: number, crc = true): number {
  checkPayloadSize(payloadSize);
  if (!Number.isInteger(bitRate) || bitRate <= 0) throw new RangeError(`FSK bit rate must be a positive number of bit/s, got ${bitRate}`);
  const bytes = FSK_PREAMBLE_BYTES + FSK_SYNC_WORD_BYTES + FSK_LENGTH_BYTES + payloadSize + (crc ? FSK_CRC_BYTES : 0);
  return Math.ceil((bytes * 8 * 1_000_000) / bitRate);
}

/**
 * Time on air (µs) of a LoRaWAN frame of `payloadSize` PHYPayload bytes at a data rate.
 *
 * LoRa uplinks carry the payload CRC and downlinks do not (LoRaWAN 1.0.4 §3.1 "Uplink messages"
 * and §3.2 "Downlink messages"); the Semtech UDP frontend asks the forwarder for exactly that
 * (`txpk.ncrc`). TTS counts the CRC for every sub-GHz LoRa frame, downlinks included, which makes
 * some of its downlink figures one block of (4 + CR) symbols longer: pass `crc: true` for its
 * figures. An FSK frame always ends with its CRC (as in TTS).
 */
export function timeOnAirUs(payloadSize: number, rate: DataRate, options: { direction: 'uplink' | 'downlink'; coding_rate?: string; crc?: boolean }): number {
  if ('fsk' in rate) return fskTimeOnAirUs(payloadSize, rate.fsk.bit_rate);
  return loraTimeOnAirUs(payloadSize, {
    spreading_factor: rate.lora.spreading_factor,
    bandwidth: rate.lora.bandwidth,
    coding_rate: options.coding_rate,
    crc: options.crc ?? options.direction === 'uplink',
  });
}
