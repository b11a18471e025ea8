import { type Band, type BandId, dataRateIndexOf, getBand } from '@lorawan/lorawan';

/**
 * The Network Server's ADR algorithm (LoRaWAN 1.0.4 §4.3.1.1 leaves it to the network), after TTS
 * `pkg/networkserver/mac/adr.go` `AdaptDataRate`:
 * 1. the link margin is the best SNR of the ADR uplinks, minus the demodulation floor of their data
 *    rate, minus the configured margin (and a safety margin while fewer than 20 uplinks are known);
 * 2. the margin buys data rate first (2.5 dB per step; the TX power goes back to maximum), then
 *    lower TX power (2 dB per index); a negative margin buys back TX power;
 * 3. NbTrans follows the frame loss of the ADR uplinks (FCnt gaps), once there are 10 of them.
 * One departure: TTS only ever raises the data rate ("Network Server may only increase the data
 * rate index") and leaves a failing link to the device's ADR backoff (LoRaWAN 1.0.4 §4.3.1.1), which
 * does not start as long as the network answers the device's ADRACKReqs. Here a device that
 * transmits at maximum power and whose best uplink is still below the demodulation floor is moved
 * to a lower data rate, by as many 2.5 dB steps as the margin is short. A link above the floor is
 * never slowed down, as in TTS.
 */

/** An uplink as the NS keeps it in `recent_adr_uplinks` (and the MAC state's `recent_uplinks`); only what ADR reads. */
export interface AdrUplink {
  settings?: { data_rate?: { lora?: { spreading_factor?: number; bandwidth?: number }; fsk?: { bit_rate?: number } } };
  rx_metadata?: ReadonlyArray<{ gateway_ids?: { gateway_id?: string }; snr?: number; channel_rssi?: number }>;
  payload?: { mac_payload?: { full_f_cnt?: number; f_hdr?: { f_cnt?: number } } };
}

/** The MACParameters fields a LinkADRReq sets. */
export interface AdrParameters {
  adr_data_rate_index: number;
  adr_tx_power_index: number;
  adr_nb_trans: number;
}

export interface AdrInput {
  bandId: BandId;
  /** The device's recent ADR uplinks, oldest first (`recent_adr_uplinks`). */
  uplinks: readonly AdrUplink[];
  /** The device's `current_parameters`: what its recent uplinks were sent with. */
  current: AdrParameters;
  /** dB kept in reserve: `mac_settings.adr_margin` ?? the NS default ?? 15 (TTS `DefaultADRMargin`). */
  margin: number;
  /** `mac_state.rejected_adr_data_rate_indexes`: never proposed again. */
  rejectedDataRateIndexes?: readonly number[];
  /** `mac_state.rejected_adr_tx_power_indexes`. */
  rejectedTxPowerIndexes?: readonly number[];
  /** The data rate range the device's enabled channels allow; the top is capped at the band's `max_adr_data_rate_index`. */
  minDataRateIndex: number;
  maxDataRateIndex: number;
  /** FCnt of the uplink that acknowledged the last ADR change (TTS `last_adr_change_f_cnt_up`; 0 = none): earlier uplinks do not count. */
  lastAdrChangeFCnt?: number;
}

/**
 * Lowest SNR (dB) at which a LoRa frame is still demodulated, by spreading factor and bandwidth
 * (TTS `demodulationFloor`, from the Semtech SX130x sensitivity tables): 2.5 dB per SF, 3 dB per
 * bandwidth doubling.
 */
const DEMODULATION_FLOOR: Readonly<Record<number, Readonly<Record<number, number>>>> = {
  6: { 125_000: -5, 250_000: -2, 500_000: 1 },
  7: { 125_000: -7.5, 250_000: -4.5, 500_000: -1.5 },
  8: { 125_000: -10, 250_000: -7, 500_000: -4 },
  9: { 125_000: -12.5, 250_000: -9.5, 500_000: -6.5 },
  10: { 125_000: -15, 250_000: -12, 500_000: -9 },
  11: { 125_000: -17.5, 250_000: -14.5, 500_000: -11.5 },
  12: { 125_000: -20, 250_000: -17, 500_000: -14 },
};

/** dB of margin one data rate step costs (TTS `drStep`). */
/** The required SNR (dB) to demodulate LoRa at a spreading factor and bandwidth (also LinkCheckAns's reference). */
export function demodulationFloor(spreadingFactor: number, bandwidth: number): number | undefined {
  return DEMODULATION_FLOOR[spreadingFactor]?.[bandwidth];
}

const DATA_RATE_STEP = 2.5;
/** dB held back while the uplinks are too few to trust (TTS `safetyMargin`); also the smallest TX power increase made then. */
const SAFETY_MARGIN = 2.5;
/** Uplinks for a decision without the safety margin (TTS `OptimalADRUplinkCount`); half as many to adapt NbTrans. */
export const OPTIMAL_ADR_UPLINK_COUNT = 20;
/** NbTrans ADR assigns under heavy loss (TTS `maxNbTrans`). */
const MAX_NB_TRANS = 3;

/**
 * The ADR parameters the network should want for the device; undefined when ADR cannot decide:
 * no ADR uplink at the device's current data rate (since its last ADR change), no SNR reported, or
 * every data rate or TX power index ruled out. Like TTS, one uplink is enough to act on (with the
 * safety margin); NbTrans waits for ten.
 */
export function adaptDataRate(input: AdrInput): AdrParameters | undefined {
  const band = getBand(input.bandId);
  const uplinks = adrUplinks(band, input);
  const dataRates = dataRateRange(band, input);
  const txPowers = txPowerRange(band, input.rejectedTxPowerIndexes ?? []);
  const link = linkMargin(uplinks, input.margin);
  if (!dataRates || !txPowers || !link) return undefined;
  const start: AdrStep = { dataRateIndex: input.current.adr_data_rate_index, txPowerIndex: input.current.adr_tx_power_index, margin: link.margin };
  const raised = raiseDataRate(band, start, dataRates, txPowers.min);
  const powered = adaptTxPower(band, raised, txPowers, link.optimal);
  const adapted = link.belowFloor ? lowerDataRate(powered, dataRates, txPowers.min) : powered;
  return {
    adr_data_rate_index: adapted.dataRateIndex,
    adr_tx_power_index: adapted.txPowerIndex,
    adr_nb_trans: adaptNbTrans(input.current.adr_nb_trans, uplinks),
  };
}

/**
 * Fraction of frames lost among uplinks (oldest first), from the gaps in their FCnts (TTS
 * `adrLossRate`): after a counter reset only the uplinks since the reset count; a repeated FCnt
 * (a retransmission) is no loss. 0 with fewer than two uplinks.
 */
export function adrLossRate(uplinks: readonly AdrUplink[]): number {
  const fCnts = uplinks.map(fCntOf);
  const lastReset = fCnts.reduce((at, fCnt, i) => (i > 0 && fCnt < fCnts[i - 1] ? i : at), 0);
  const run = fCnts.slice(lastReset);
  if (run.length < 2) return 0;
  const lost = run.slice(1).reduce((sum, fCnt, i) => sum + Math.max(0, fCnt - run[i] - 1), 0);
  return lost / (1 + run[run.length - 1] - run[0]);
}

/** What ADR has decided so far: the parameters and the margin (dB) left to spend. */
interface AdrStep {
  dataRateIndex: number;
  txPowerIndex: number;
  margin: number;
}

interface DataRateRange {
  min: number;
  max: number;
  allowed: ReadonlySet<number>;
}

interface TxPowerRange {
  min: number;
  max: number;
  rejected: ReadonlySet<number>;
}

/**
 * The uplinks ADR judges (TTS `adrUplinks`): the latest run sent at the device's current data rate
 * and after its last ADR change. Uplinks whose data rate the band does not know neither count nor
 * break the run.
 */
function adrUplinks(band: Band, input: AdrInput): AdrUplink[] {
  const { uplinks, current, lastAdrChangeFCnt } = input;
  let first = uplinks.length;
  while (first > 0) {
    const uplink = uplinks[first - 1];
    const index = uplinkDataRateIndex(band, uplink);
    const beforeChange = lastAdrChangeFCnt !== undefined && lastAdrChangeFCnt !== 0 && fCntOf(uplink) < lastAdrChangeFCnt;
    if (index !== undefined && (index !== current.adr_data_rate_index || beforeChange)) break;
    first--;
  }
  return uplinks.slice(first);
}

/**
 * The margin to spend (TTS `adrMargin`): best SNR over every gateway of every ADR uplink, above the
 * demodulation floor of the latest uplink's data rate, less the configured margin, less the safety
 * margin while fewer than `OPTIMAL_ADR_UPLINK_COUNT` uplinks are known. `belowFloor`: even the best
 * uplink was under the floor, so the link is failing at this data rate.
 */
function linkMargin(uplinks: readonly AdrUplink[], configured: number): { margin: number; optimal: boolean; belowFloor: boolean } | undefined {
  const snrs = uplinks.flatMap((u) => (u.rx_metadata ?? []).map((md) => md.snr).filter((snr): snr is number => typeof snr === 'number'));
  const lora = uplinks[uplinks.length - 1]?.settings?.data_rate?.lora;
  const floor = lora?.spreading_factor && lora.bandwidth ? DEMODULATION_FLOOR[lora.spreading_factor]?.[lora.bandwidth] : undefined;
  if (snrs.length === 0 || floor === undefined) return undefined;
  const aboveFloor = Math.max(...snrs) - floor;
  const optimal = uplinks.length >= OPTIMAL_ADR_UPLINK_COUNT;
  return { margin: aboveFloor - configured - (optimal ? 0 : SAFETY_MARGIN), optimal, belowFloor: aboveFloor < 0 };
}

/**
 * The data rates ADR may choose (TTS `adrDataRateRange`): the channels' range, capped at the band's
 * ADR maximum, without rejected indexes; its ends are allowed indexes. Undefined when none is left.
 */
function dataRateRange(band: Band, input: AdrInput): DataRateRange | undefined {
  const rejected = new Set(input.rejectedDataRateIndexes ?? []);
  const max = Math.min(input.maxDataRateIndex, band.max_adr_data_rate_index);
  const allowed = new Set<number>();
  for (let i = Math.max(0, input.minDataRateIndex); i <= max; i++) if (!rejected.has(i)) allowed.add(i);
  if (allowed.size === 0) return undefined;
  return { min: Math.min(...allowed), max: Math.max(...allowed), allowed };
}

/** The TX power indexes ADR may choose (TTS `adrTxPowerRange`): the band's, with rejected ones trimmed off both ends. */
function txPowerRange(band: Band, rejectedIndexes: readonly number[]): TxPowerRange | undefined {
  const rejected = new Set(rejectedIndexes);
  const usable = band.tx_power_offsets.map((_, i) => i).filter((i) => !rejected.has(i));
  if (usable.length === 0) return undefined;
  return { min: usable[0], max: usable[usable.length - 1], rejected };
}

/**
 * Spends margin on data rate (TTS `adrAdaptDataRate`): as many 2.5 dB steps up as the margin pays
 * for, after what the lowest usable TX power index costs, to the highest allowed index. Never
 * lowers the data rate. A raise puts the TX power back to maximum without crediting the margin for
 * it, so that margin goes to data rate rather than to lower power.
 */
function raiseDataRate(band: Band, step: AdrStep, range: DataRateRange, minTxPowerIndex: number): AdrStep {
  const steps = (step.margin - txPowerStep(band, 0, minTxPowerIndex)) / DATA_RATE_STEP;
  if (steps <= 0) return step;
  const ceiling = Math.min(range.max, step.dataRateIndex + Math.floor(steps));
  for (let index = ceiling; index > Math.max(range.min, step.dataRateIndex); index--) {
    if (range.allowed.has(index)) return { dataRateIndex: index, txPowerIndex: 0, margin: step.margin - (index - step.dataRateIndex) * DATA_RATE_STEP };
  }
  return step;
}

/**
 * Spends what is left on lower TX power, or buys a shortfall back with more power (TTS
 * `adrAdaptTxPowerIndex`): the lowest power (highest index) the margin covers; the highest power
 * when nothing covers the shortfall. With too few uplinks, a power increase of at most the safety
 * margin is not made, to avoid flip-flopping on thin evidence.
 */
function adaptTxPower(band: Band, step: AdrStep, range: TxPowerRange, optimal: boolean): AdrStep {
  let { txPowerIndex, margin } = step;
  if (txPowerIndex < range.min) {
    margin -= txPowerStep(band, txPowerIndex, range.min);
    txPowerIndex = range.min;
  }
  if (txPowerIndex > range.max) {
    margin += txPowerStep(band, range.max, txPowerIndex);
    txPowerIndex = range.max;
  }
  for (let index = range.max; index >= range.min; index--) {
    const cost = txPowerStep(band, txPowerIndex, index);
    if ((range.rejected.has(index) || cost > margin) && index !== range.min) continue;
    if (!optimal && cost < 0 && -cost <= SAFETY_MARGIN) break;
    return { ...step, txPowerIndex: index, margin: margin - cost };
  }
  return { ...step, txPowerIndex, margin };
}

/**
 * This stack's addition for a failing link (see the file comment): at maximum usable power and
 * still short of margin, step the data rate down until the shortfall is paid (2.5 dB per step), to
 * the nearest allowed index at or below that; the lowest allowed index when none is.
 */
function lowerDataRate(step: AdrStep, range: DataRateRange, minTxPowerIndex: number): AdrStep {
  if (step.margin >= 0 || step.txPowerIndex !== minTxPowerIndex) return step;
  const target = step.dataRateIndex - Math.ceil(-step.margin / DATA_RATE_STEP);
  const lower = [...range.allowed].filter((i) => i < step.dataRateIndex).sort((a, b) => b - a);
  const index = lower.find((i) => i <= target) ?? lower[lower.length - 1];
  if (index === undefined) return step;
  return { ...step, dataRateIndex: index, margin: step.margin + (step.dataRateIndex - index) * DATA_RATE_STEP };
}

/**
 * NbTrans from the loss rate once there are `OPTIMAL_ADR_UPLINK_COUNT / 2` uplinks (TTS
 * `adrAdaptNbTrans`): under 5 % loss it falls towards 1, 5–10 % keeps it, 10–30 % raises it to 2 or
 * 3, more sets `MAX_NB_TRANS`.
 */
function adaptNbTrans(nbTrans: number, uplinks: readonly AdrUplink[]): number {
  if (uplinks.length < OPTIMAL_ADR_UPLINK_COUNT / 2) return nbTrans;
  const loss = adrLossRate(uplinks);
  if (loss < 0.05) return 1 + Math.floor(nbTrans / 3);
  if (loss < 0.1) return nbTrans;
  if (loss < 0.3) return 2 + Math.floor(nbTrans / 2);
  return MAX_NB_TRANS;
}

/** dB of margin that going from TX power index `from` to `to` costs (negative: it gains); indexes past the band's last count as the last (TTS `txPowerStep`). */
function txPowerStep(band: Band, from: number, to: number): number {
  const offsets = band.tx_power_offsets;
  const offset = (index: number) => offsets[Math.min(index, offsets.length - 1)];
  return offset(from) - offset(to);
}

/** An uplink's data rate index in the band (uplink table first), if the band has its modulation. */
function uplinkDataRateIndex(band: Band, uplink: AdrUplink): number | undefined {
  const rate = uplink.settings?.data_rate;
  if (rate?.lora?.spreading_factor && rate.lora.bandwidth) {
    return dataRateIndexOf(band.id, { lora: { spreading_factor: rate.lora.spreading_factor, bandwidth: rate.lora.bandwidth } });
  }
  if (rate?.fsk?.bit_rate) return dataRateIndexOf(band.id, { fsk: { bit_rate: rate.fsk.bit_rate } });
  return undefined;
}

/** The uplink's full FCnt (the NS's 32-bit count where it kept one, else the frame's). */
function fCntOf(uplink: AdrUplink): number {
  const mac = uplink.payload?.mac_payload;
  return mac?.full_f_cnt ?? mac?.f_hdr?.f_cnt ?? 0;
}
