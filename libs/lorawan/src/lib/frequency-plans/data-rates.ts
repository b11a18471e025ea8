import type { BandId } from './types';

/**
 * Data rates of each band (LoRaWAN RP002-1.0.4 "data rate" and "maximum payload size" tables, not
 * repeater compatible, as TTS's `pkg/band` encodes them; LR-FHSS rates left out): modulation per DR
 * index, the largest MACPayload (M) without and with the 400 ms dwell-time limit, and the RX1 data
 * rate for an uplink DR and RX1DROffset.
 */

export type DataRate = { lora: { spreading_factor: number; bandwidth: number } } | { fsk: { bit_rate: number } };

export interface BandDataRate {
  readonly index: number;
  readonly rate: DataRate;
  /** M: largest MACPayload (FHDR + FPort + FRMPayload) in bytes, no dwell-time limit. */
  readonly max_mac_payload: number;
  /**
   * M under the 400 ms dwell-time limit, in bands whose devices accept TxParamSetupReq (AS923,
   * AU915); 0 where the data rate may not be used then ("N/A" in RP002). Unset elsewhere: the band
   * has no such table and `max_mac_payload` holds.
   */
  readonly max_mac_payload_dwell_time?: number;
}

const lora = (sf: number, khz: number): DataRate => ({ lora: { spreading_factor: sf, bandwidth: khz * 1000 } });
const FSK_50K: DataRate = { fsk: { bit_rate: 50000 } };

/** A table row: DR index, modulation, M, and M with dwell time where the band has it. */
type Row = [index: number, rate: DataRate, m: number, mDwellTime?: number];

/** EU-like 125 kHz table DR0–DR5 (SF12–SF7), with its M values. */
const EU_LIKE: Row[] = [
  [0, lora(12, 125), 59],
  [1, lora(11, 125), 59],
  [2, lora(10, 125), 59],
  [3, lora(9, 125), 123],
  [4, lora(8, 125), 250],
  [5, lora(7, 125), 250],
];
/** EU868, EU433, CN779 and RU864: the EU-like rates, DR6 SF7/250 kHz and DR7 FSK 50 kbps. */
const EU_LIKE_WITH_250K_AND_FSK: Row[] = [...EU_LIKE, [6, lora(7, 250), 250], [7, FSK_50K, 250]];
/** The 500 kHz downlink rates DR8–DR13 of US915 and AU915. */
const WIDE_DOWNLINK: Row[] = [
  [8, lora(12, 500), 61],
  [9, lora(11, 500), 137],
  [10, lora(10, 500), 250],
  [11, lora(9, 500), 250],
  [12, lora(8, 500), 250],
  [13, lora(7, 500), 250],
];
/** Rows whose M the dwell-time limit leaves as it is (AU915's 500 kHz rates: short enough either way). */
const sameWithDwellTime = (rows: readonly Row[]): Row[] => rows.map(([index, rate, m]) => [index, rate, m, m]);
/** AS923, every group: DR2 carries 123 bytes since RP002-1.0.1; with dwell time DR0/DR1 are unusable. */
const AS_923: Row[] = [
  [0, lora(12, 125), 59, 0],
  [1, lora(11, 125), 59, 0],
  [2, lora(10, 125), 123, 19],
  [3, lora(9, 125), 123, 61],
  [4, lora(8, 125), 250, 133],
  [5, lora(7, 125), 250, 250],
  [6, lora(7, 250), 250, 250],
  [7, FSK_50K, 250, 250],
];

/**
 * RP002-1.0.4's CN470-510 plans, as TTS (`cn_470_510_*_rp2_v1_0_4.go`): DR1–DR5 SF11–SF7/125 kHz,
 * DR6 SF7/500 kHz, DR7 FSK. ChirpStack's RP002 tables give DR0 (SF12/125 kHz) no payload (M = 0)
 * and TTS leaves it out, so DR0 is no data rate of these bands here, though TTS's RX2 default names
 * it (`bands.ts`). DR3 carries 172 bytes as in TTS and ChirpStack's RP002-1.0.1 table; its table
 * for RP002-1.0.2 and later says 192.
 */
const CN_470_510_RP2: Row[] = [
  [1, lora(11, 125), 31],
  [2, lora(10, 125), 94],
  [3, lora(9, 125), 172],
  [4, lora(8, 125), 250],
  [5, lora(7, 125), 250],
  [6, lora(7, 500), 250],
  [7, FSK_50K, 250],
];

const TABLES: Record<BandId, Row[]> = {
  EU_863_870: EU_LIKE_WITH_250K_AND_FSK,
  US_902_928: [[0, lora(10, 125), 19], [1, lora(9, 125), 61], [2, lora(8, 125), 133], [3, lora(7, 125), 250], [4, lora(8, 500), 250], ...WIDE_DOWNLINK],
  AU_915_928: [
    [0, lora(12, 125), 59, 0],
    [1, lora(11, 125), 59, 0],
    [2, lora(10, 125), 59, 19],
    [3, lora(9, 125), 123, 61],
    [4, lora(8, 125), 250, 133],
    [5, lora(7, 125), 250, 250],
    [6, lora(8, 500), 250, 250],
    ...sameWithDwellTime(WIDE_DOWNLINK),
  ],
  AS_923: AS_923,
  AS_923_2: AS_923,
  AS_923_3: AS_923,
  AS_923_4: AS_923,
  IN_865_867: [...EU_LIKE, [7, FSK_50K, 250]],
  // KR920: LoRa 125 kHz only.
  KR_920_923: EU_LIKE,
  RU_864_870: EU_LIKE_WITH_250K_AND_FSK,
  EU_433: EU_LIKE_WITH_250K_AND_FSK,
  CN_779_787: EU_LIKE_WITH_250K_AND_FSK,
  // CN470 (RP001 layout): LoRa 125 kHz only, the EU-like M values.
  CN_470_510: EU_LIKE,
  CN_470_510_20_A: CN_470_510_RP2,
  CN_470_510_20_B: CN_470_510_RP2,
  CN_470_510_26_A: CN_470_510_RP2,
  CN_470_510_26_B: CN_470_510_RP2,
};

const DATA_RATES = new Map<BandId, ReadonlyMap<number, BandDataRate>>(
  (Object.keys(TABLES) as BandId[]).map((band) => [
    band,
    new Map(
      TABLES[band].map(([index, rate, m, mDwellTime]) => [
        index,
        Object.freeze({ index, rate, max_mac_payload: m, ...(mDwellTime === undefined ? {} : { max_mac_payload_dwell_time: mDwellTime }) }),
      ]),
    ),
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

/**
 * M at a DR index of a band: under the 400 ms dwell-time limit when `dwellTime` is set and the band
 * has a table for it, else without; 0 for an unknown index.
 */
export function maxMacPayload(band: BandId, index: number, dwellTime = false): number {
  const rate = dataRate(band, index);
  if (!rate) return 0;
  return dwellTime ? (rate.max_mac_payload_dwell_time ?? rate.max_mac_payload) : rate.max_mac_payload;
}

/** The largest FRMPayload a data frame without FOpts carries at a DR index of a band (0 for an unknown index or one dwell time rules out). */
export function maxFrmPayload(band: BandId, index: number, dwellTime = false): number {
  return Math.max(0, maxMacPayload(band, index, dwellTime) - FHDR_AND_FPORT);
}

/** The largest FRMPayload a data frame without FOpts carries at any data rate of a band (under the dwell-time limit when `dwellTime`). */
export function largestFrmPayload(band: BandId, dwellTime = false): number {
  return Math.max(0, ...[...ratesOf(band).keys()].map((index) => maxFrmPayload(band, index, dwellTime)));
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

/** The RX1 data rate of an uplink DR the band has; undefined for an offset the band does not define. */
type Rx1Rule = (uplink: number, offset: number, downlinkDwellTime: boolean) => number | undefined;

/** Dynamic-plan bands with RX1DROffset 0–5: the uplink DR lowered by the offset, not below DR0. */
const lowerByOffset: Rx1Rule = (uplink, offset) => (offset <= 5 ? Math.max(uplink - offset, 0) : undefined);

/**
 * AS923, every group (RP002-1.0.4 "AS923 Receive Windows"): RX1DROffset 0–7, 6 and 7 raising the
 * rate; the result lies within DR0 (DR2 under the downlink dwell-time limit) … DR7.
 */
const as923: Rx1Rule = (uplink, offset, downlinkDwellTime) =>
  offset <= 7 ? Math.min(7, Math.max(downlinkDwellTime ? 2 : 0, uplink - effectiveOffset(offset))) : undefined;

/**
 * RP002 CN470-510 plans (TTS `cn470510DownlinkDRTable`, RX1DROffset 0–5): the uplink DR lowered by
 * the offset, not below DR0, for uplinks up to DR5; DR6 and DR7 have no RX1 data rate. An answer of
 * DR0 names no data rate of these bands, so that RX1 is not offered (as in TTS).
 */
const cn470Rp2: Rx1Rule = (uplink, offset) => (uplink <= 5 ? lowerByOffset(uplink, offset, false) : undefined);

/** Uplink DR → RX1 DR rule per band; the uplink DR is one of the band's (checked by the caller). */
const RX1_RULES: Record<BandId, Rx1Rule> = {
  EU_863_870: lowerByOffset,
  US_902_928: (uplink, offset) => US_RX1[uplink]?.[offset],
  AU_915_928: (uplink, offset) => AU_RX1[uplink]?.[offset],
  AS_923: as923,
  AS_923_2: as923,
  AS_923_3: as923,
  AS_923_4: as923,
  IN_865_867: (uplink, offset) => (offset <= 7 ? Math.min(5, Math.max(0, uplink - effectiveOffset(offset))) : undefined),
  KR_920_923: lowerByOffset,
  RU_864_870: lowerByOffset,
  EU_433: lowerByOffset,
  CN_779_787: lowerByOffset,
  CN_470_510: lowerByOffset,
  CN_470_510_20_A: cn470Rp2,
  CN_470_510_20_B: cn470Rp2,
  CN_470_510_26_A: cn470Rp2,
  CN_470_510_26_B: cn470Rp2,
};

/**
 * The RX1 data rate for an uplink at `uplink` with RX1DROffset `offset`; undefined for an uplink DR
 * or offset the band does not have. `downlinkDwellTime` (AS923) raises the floor to DR2.
 */
export function rx1DataRateIndex(band: BandId, uplink: number, offset: number, downlinkDwellTime = false): number | undefined {
  if (!Number.isInteger(uplink) || !Number.isInteger(offset) || offset < 0 || !dataRate(band, uplink)) return undefined;
  return RX1_RULES[band](uplink, offset, downlinkDwellTime);
}
