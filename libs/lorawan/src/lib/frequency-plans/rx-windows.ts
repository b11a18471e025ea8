import { getBand } from './bands';
import { type DataRate, dataRate, rx1DataRateIndex } from './data-rates';
import type { FrequencyPlan, Hz, Rx2Channel } from './types';

/**
 * Class A receive windows of an uplink under a frequency plan (LoRaWAN 1.0.x §3.3, RP002; TTS
 * `pkg/networkserver/downlink.go` and `pkg/band`): RX1 on the uplink's frequency (EU-like bands)
 * or on its downlink channel (US915/AU915: uplink channel mod 8; CN470: mod 48, RP002's 20 MHz plans the
 * same index, 26 MHz plans mod 24), at the RX1 data rate of the
 * uplink's DR and RX1DROffset; RX2 on the plan's (or the device's) RX2 channel. Delays are
 * JOIN_ACCEPT_DELAY1/2 for a join-accept, else RX1Delay and one second more.
 */

export interface RxWindow {
  frequency: Hz;
  data_rate_index: number;
  data_rate: DataRate;
  /** Seconds after the end of the uplink. */
  delay: number;
  /** dBm EIRP the gateway may transmit with on this frequency (its sub-band's limit). */
  eirp: number;
}

export interface UplinkTx {
  frequency: Hz | number;
  data_rate_index: number;
}

export interface RxWindowSettings {
  /** A join-accept: JOIN_ACCEPT_DELAY1/2 and the defaults of a device that has just joined. */
  join?: boolean;
  /** RX1DROffset (MAC settings/state); 0 for a join-accept. */
  rx1DataRateOffset?: number;
  /** RX1Delay in seconds (MAC state); the plan's for a join-accept. */
  rx1Delay?: number;
  /** The device's RX2 channel when it differs from the plan's. */
  rx2?: Rx2Channel;
  /**
   * Whether the device applies the 400 ms downlink dwell-time limit (AS923: RX1 no lower than DR2);
   * the plan's setting, else off, when unset.
   */
  downlinkDwellTime?: boolean;
}

export function classARxWindows(plan: FrequencyPlan, uplink: UplinkTx, settings: RxWindowSettings = {}): { rx1?: RxWindow; rx2?: RxWindow } {
  const band = getBand(plan.band_id);
  const delay1 = settings.join ? band.join_accept_delay_1 : (settings.rx1Delay ?? plan.rx1_delay);
  const delay2 = settings.join ? band.join_accept_delay_2 : delay1 + 1;
  const window = (frequency: Hz, dataRateIndex: number | undefined, delay: number): RxWindow | undefined => {
    const rate = dataRateIndex === undefined ? undefined : dataRate(plan.band_id, dataRateIndex);
    const eirp = downlinkEirp(plan, frequency);
    if (!rate || eirp === undefined) return undefined;
    return { frequency, data_rate_index: rate.index, data_rate: rate.rate, delay, eirp };
  };
  const rx1Frequency = rx1FrequencyOf(plan, String(uplink.frequency));
  const offset = settings.join ? 0 : (settings.rx1DataRateOffset ?? 0);
  const rx1 =
    rx1Frequency === undefined
      ? undefined
      : window(
          rx1Frequency,
          rx1DataRateIndex(plan.band_id, uplink.data_rate_index, offset, settings.downlinkDwellTime ?? plan.dwell_time?.downlinks ?? false),
          delay1,
        );
  const rx2Channel = settings.join ? plan.rx2 : (settings.rx2 ?? plan.rx2);
  return { rx1, rx2: window(rx2Channel.frequency, rx2Channel.data_rate_index, delay2) };
}

/**
 * RX1's frequency for an uplink frequency: the same (EU-like), or, in bands with a downlink channel
 * set of their own (US/AU, CN470 in every layout), its channel's downlink frequency; undefined off the band's channels.
 */
export function rx1FrequencyOf(plan: FrequencyPlan, uplinkFrequency: Hz): Hz | undefined {
  const band = getBand(plan.band_id);
  if (!band.downlink_channels) return uplinkFrequency;
  return band.default_channels.find((c) => c.uplink_frequency === uplinkFrequency)?.downlink_frequency;
}

/**
 * The EIRP a gateway's downlink on `frequency` may use: its regulatory sub-band's limit (EU868:
 * 14 dBm ERP on 868.x MHz, 27 dBm ERP on 869.4–869.65 MHz; the plan's `max_eirp` is what devices
 * assume for themselves); undefined outside every sub-band.
 */
export function downlinkEirp(plan: FrequencyPlan, frequency: Hz): number | undefined {
  const f = Number(frequency);
  return plan.sub_bands.find((s) => f >= Number(s.min_frequency) && f <= Number(s.max_frequency))?.max_eirp;
}
