import type { BandId } from './types';

/**
 * Data rates of each band (LoRaWAN RP002-1.0.3 as TTS's `pkg/band` encodes them; LR-FHSS rates
 * left out): modulation per DR index, the largest MACPayload without dwell-time limits (M), and
 * the RX1 data rate for an uplink DR and RX1DROffset.
 */

export type DataRate = { lora: { spreading_factor: number; bandwidth: number } } | { fsk: { bit_rate: number } };

export interface BandDataRate {
  readonly index: number;
  readonly rate: DataRate;
  /** M: largest MACPayload (FHDR + FPort + FRMPayload) in bytes, no dwell-time limit. */
  readonly max_mac_payload: number;
}

const lora = (sf: number, khz: number): DataRate => ({ lora: { spreading_factor: sf, bandwidth: khz * 1000 } });
const FSK_50K: DataRate = { fsk: { bit_rate: 50000 } };

/** EU-like 125 kHz table DR0–DR5 (SF12–SF7), with its M values. */
const EU_LIKE: Array<[number, DataRate, number]> = [
  [0, lora(12, 125), 59],
  [1, lora(11, 125), 59],
  [2, lora(10, 125), 59],
  [3, lora(9, 125), 123],
  [4, lora(8, 125), 250],
  [5, lora(7, 125), 250],
];
/** The 500 kHz downlink rates DR8–DR13 of US915 and AU915. */
const WIDE_DOWNLINK: Array<[number, DataRate, number]> = [
  [8, lora(12, 500), 61],
  [9, lora(11, 500), 137],
  [10, lora(10, 500), 250],
  [11, lora(9, 500), 250],
  [12, lora(8, 500), 250],
  [13, lora(7, 500), 250],
];

const TABLES: Record<BandId, Array<[number, DataRate, number]>> = {
  EU_863_870: [...EU_LIKE, [6, lora(7, 250), 250], [7, FSK_50K, 250]],
  US_902_928: [[0, lora(10, 125), 19], [1, lora(9, 125), 61], [2, lora(8, 125), 133], [3, lora(7, 125), 250], [4, lora(8, 500), 250], ...WIDE_DOWNLINK],
  AU_915_928: [...EU_LIKE, [6, lora(8, 500), 250], ...WIDE_DOWNLINK],
  AS_923: [...EU_LIKE, [6, lora(7, 250), 250], [7, FSK_50K, 250]],
  IN_865_867: [...EU_LIKE, [7, FSK_50K, 250]],
};

const DATA_RATES = new Map<BandId, ReadonlyMap<number, BandDataRate>>(
  (Object.keys(TABLES) as BandId[]).map((band) => [
    band,
    new Map(TABLES[band].map(([index, rate, m]) => [index, Object.freeze({ index, rate, max_mac_payload: m })])),
  ]),
);

function ratesOf(band: BandId): ReadonlyMap<number, BandDataRate> {
  return DATA_RATES.get(band) ?? new Map();
}

export function dataRate(band: BandId, index: number): BandDataRate | undefined {
  return ratesOf(band).get(index);
}

/** What a data frame's MACPayload holds besides the FRMPayload when it has no FOpts: FHDR (7 bytes) and FPort (1). */
const FHDR_AND_FPORT = 8;

/** The largest FRMPayload a data frame without FOpts carries at a DR index of a band (0 for an unknown index). */
export function maxFrmPayload(band: BandId, index: number): number {
  return Math.max(0, (dataRate(band, index)?.max_mac_payload ?? 0) - FHDR_AND_FPORT);
}

/** The largest FRMPayload a data frame without FOpts carries at any data rate of a band. */
export function largestFrmPayload(band: BandId): number {
  return Math.max(0, ...[...ratesOf(band).keys()].map((index) => maxFrmPayload(band, index)));
}

/** The DR index of a modulation in a band (uplink table first: US/AU SF8/500 is DR4 up, DR12 down). */
export function dataRateIndexOf(band: BandId, rate: DataRate, downlink = false): number | undefined {
  const rows = [...ratesOf(band).values()];
  const matches = rows.filter((r) => sameRate(r.rate, rate));
  if (matches.length === 0) return undefined;
  return downlink ? matches[matches.length - 1].index : matches[0].index;
}

function sameRate(a: DataRate, b: DataRate): boolean {
  if ('lora' in a && 'lora' in b) return a.lora.spreading_factor === b.lora.spreading_factor && a.lora.bandwidth === b.lora.bandwidth;
  if ('fsk' in a && 'fsk' in b) return a.fsk.bit_rate === b.fsk.bit_rate;
  return false;
}

/** RX1 DR by uplink DR (rows) and RX1DROffset (columns) for US915 and AU915 (RP002 tables). */
const US_RX1: readonly (readonly number[])[] = [
  [10, 9, 8, 8],
  [11, 10, 9, 8],
  [12, 11, 10, 9],
  [13, 12, 11, 10],
  [13, 13, 12, 11],
];
const AU_RX1: readonly (readonly number[])[] = [
  [8, 8, 8, 8, 8, 8],
  [9, 8, 8, 8, 8, 8],
  [10, 9, 8, 8, 8, 8],
  [11, 10, 9, 8, 8, 8],
  [12, 11, 10, 9, 8, 8],
  [13, 12, 11, 10, 9, 8],
  [13, 13, 12, 11, 10, 9],
];
/** AS923 and IN865: offsets 6 and 7 raise the data rate by 1 and 2. */
const effectiveOffset = (offset: number) => (offset <= 5 ? offset : 5 - offset);

/**
 * The RX1 data rate for an uplink at `uplink` with RX1DROffset `offset`; undefined for an uplink DR
 * or offset the band does not have. `downlinkDwellTime` (AS923) raises the floor to DR2.
 */
export function rx1DataRateIndex(band: BandId, uplink: number, offset: number, downlinkDwellTime = false): number | undefined {
  if (!Number.isInteger(uplink) || !Number.isInteger(offset) || offset < 0) return undefined;
  switch (band) {
    case 'EU_863_870':
      return uplink <= 7 && offset <= 5 ? Math.max(uplink - offset, 0) : undefined;
    case 'US_902_928':
      return US_RX1[uplink]?.[offset];
    case 'AU_915_928':
      return AU_RX1[uplink]?.[offset];
    case 'AS_923':
      return uplink <= 7 && offset <= 7 ? Math.min(5, Math.max(downlinkDwellTime ? 2 : 0, uplink - effectiveOffset(offset))) : undefined;
    case 'IN_865_867':
      return dataRate(band, uplink) && offset <= 7 ? Math.min(5, Math.max(0, uplink - effectiveOffset(offset))) : undefined;
  }
}
