import type { DwellTime, FrequencyPlan, FrequencyPlanChannel, FrequencyPlanFixedChannel, GatewayRadio, Hz, ListenBeforeTalk, Rx2Channel } from '../types';

/**
 * A frequency plan as The Things Stack's `lorawan-frequency-plans` states it: an entry of its index
 * (`frequency-plans.yml`: id, base id, name, description, base frequency, band) and of its plan file.
 * What the file leaves out comes from the band (`catalogue.ts` resolves it).
 */
export type PlanSpec = Omit<
  FrequencyPlan,
  'downlink_channels' | 'rx2' | 'max_eirp' | 'rx1_delay' | 'sub_bands' | 'ping_slot_frequency' | 'beacon_frequency'
> & {
  /** The plan's sub-bands: duty cycle 1 and the plan's max EIRP where the file gives none. */
  readonly sub_bands?: readonly PlanSubBand[];
  /** dBm EIRP; the band's default when unset. */
  readonly max_eirp?: number;
  /** RX2 channel and data rate where they differ from the band's. */
  readonly rx2?: Partial<Rx2Channel>;
};

export interface PlanSubBand {
  readonly min_frequency: Hz;
  readonly max_frequency: Hz;
  readonly duty_cycle?: number;
  readonly max_eirp?: number;
}

/** A channel on `radio`, DR0 up to `maxDataRateIndex` (DR5 in the EU-like bands, DR3 for US915's 125 kHz channels). */
export function ch(frequency: number, radio: number, maxDataRateIndex = 5): FrequencyPlanChannel {
  return { frequency: String(frequency), min_data_rate_index: 0, max_data_rate_index: maxDataRateIndex, radio };
}

/** A single-data-rate channel (LoRa standard or FSK). */
export function fixed(frequency: number, dataRateIndex: number, radio: number): FrequencyPlanFixedChannel {
  return { frequency: String(frequency), data_rate_index: dataRateIndex, radio };
}

export function subBand(min: number, max: number, limits: { duty_cycle?: number; max_eirp?: number } = {}): PlanSubBand {
  return { min_frequency: String(min), max_frequency: String(max), ...limits };
}

/** The transmitting radio's range (Hz), and the notch filter (Hz) where the plan sets one. */
interface Tx {
  min: number;
  max: number;
  notch?: number;
}

/**
 * A concentrator's two radios (one for the single-radio AS923 compatibility plans), the first
 * transmitting, clocked by radio 1 as every TTS plan is. TTS's files give SX1257 radios (860–1020
 * MHz) an RSSI offset of -166 dB and SX1255 radios (400–510 MHz) -176 dB.
 */
export function concentrator(chip: GatewayRadio['chip_type'], radio0: number, tx: Tx, radio1?: number): Pick<PlanSpec, 'radios' | 'clock_source'> {
  const rssi_offset = chip === 'SX1257' ? -166 : -176;
  const txRange = { min_frequency: String(tx.min), max_frequency: String(tx.max), ...(tx.notch ? { notch_frequency: tx.notch } : {}) };
  const radios: GatewayRadio[] = [{ enable: true, chip_type: chip, frequency: String(radio0), rssi_offset, tx: txRange }];
  if (radio1 !== undefined) radios.push({ enable: true, chip_type: chip, frequency: String(radio1), rssi_offset });
  return { radios, clock_source: 1 };
}

/** TTS's `lbt_80_over_128.yml`, also Korea's: the channel is free at or below -80 dBm sensed for 128 µs. */
export const LBT_128_US: ListenBeforeTalk = { rssi_offset: -4, rssi_target: -80, scan_time_us: 128 };

/** Japan (ARIB STD-T108) in TTS's JP plans: -80 dBm sensed for 5 ms. */
export const LBT_JAPAN: ListenBeforeTalk = { rssi_offset: -4, rssi_target: -80, scan_time_us: 5000 };

/** Dwell time off both ways (TTS `disable_dwell_time.yml`). */
export const NO_DWELL_TIME: DwellTime = { uplinks: false, downlinks: false };

/** 400 ms dwell time both ways (TTS `enable_dwell_time_400ms.yml`). */
export const DWELL_TIME_400MS: DwellTime = { uplinks: true, downlinks: true };

/**
 * A plan that extends another (TTS `base-id`): the base's band, base frequency, channels and
 * radios, with the given fields replaced.
 */
export function derive(base: PlanSpec, changes: Pick<PlanSpec, 'id' | 'name' | 'description'> & Partial<Omit<PlanSpec, 'base_id' | 'band_id'>>): PlanSpec {
  return { ...base, base_id: base.id, ...changes };
}
