import type { MACParameters, MACSettings } from '@lorawan/api';
import type { NsMacState } from '../model';
import { type FrequencyPlan, getBand } from '@lorawan/lorawan';
import { bootChannels, planChannels } from './channels';

export interface NewMacStateInput {
  /** The device's `lorawan_version` (MACVersion name). */
  lorawan_version: string;
  frequencyPlan: FrequencyPlan;
  /** The device's MAC settings, canonical JSON (wrapper fields as bare values). */
  mac_settings?: MACSettings;
}

/** Drops unset fields, so the state carries no `undefined` keys into JSON or the database. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * A fresh MACState (on creation, on every join, on ResetInd). As in The Things Stack:
 * - `current_parameters` are what the device uses after boot: the band's defaults, unless the
 *   device's MAC settings say otherwise (`rx1_delay`, `rx2_*`, `factory_preset_frequencies`, …);
 * - `desired_parameters` are what the network will configure through the join-accept and MAC
 *   commands: the `desired_*` MAC settings, else the frequency plan's choices (its channels, its
 *   RX2 data rate where it departs from the band's, a lower max EIRP, dwell time), else current.
 * The device starts in class A with no RX window open.
 */
export function newMacState({ lorawan_version, frequencyPlan: plan, mac_settings: settings = {} }: NewMacStateInput): NsMacState {
  const band = getBand(plan.band_id);
  const current: MACParameters = defined({
    max_eirp: band.default_max_eirp,
    adr_data_rate_index: 0,
    adr_tx_power_index: 0,
    adr_nb_trans: 1,
    rx1_delay: settings.rx1_delay ?? plan.rx1_delay,
    rx1_data_rate_offset: settings.rx1_data_rate_offset ?? 0,
    rx2_data_rate_index: settings.rx2_data_rate_index ?? band.default_rx2.data_rate_index,
    rx2_frequency: settings.rx2_frequency ?? band.default_rx2.frequency,
    max_duty_cycle: settings.max_duty_cycle ?? 'DUTY_CYCLE_1',
    rejoin_time_periodicity: 'REJOIN_TIME_0',
    rejoin_count_periodicity: 'REJOIN_COUNT_16',
    ping_slot_frequency: settings.ping_slot_frequency ?? band.ping_slot_frequency,
    beacon_frequency: settings.beacon_frequency ?? band.beacon_frequency,
    channels: bootChannels(band, settings.factory_preset_frequencies),
    adr_ack_limit_exponent: band.adr_ack_limit_exponent,
    adr_ack_delay_exponent: band.adr_ack_delay_exponent,
    ping_slot_data_rate_index_value: settings.ping_slot_data_rate_index ?? band.beacon_data_rate_index,
  });
  // The plan's RX2 data rate only counts where the plan departs from the band (EU_863_870_TTN: SF9);
  // otherwise the device's own setting stays what the network wants.
  const planRx2DataRate = plan.rx2.data_rate_index !== band.default_rx2.data_rate_index ? plan.rx2.data_rate_index : undefined;
  const planRx2Frequency = plan.rx2.frequency !== band.default_rx2.frequency ? plan.rx2.frequency : undefined;
  const desired: MACParameters = defined({
    ...current,
    max_eirp: Math.min(plan.max_eirp, band.default_max_eirp),
    rx1_delay: settings.desired_rx1_delay ?? current.rx1_delay,
    rx1_data_rate_offset: settings.desired_rx1_data_rate_offset ?? current.rx1_data_rate_offset,
    rx2_data_rate_index: settings.desired_rx2_data_rate_index ?? planRx2DataRate ?? current.rx2_data_rate_index,
    rx2_frequency: settings.desired_rx2_frequency ?? planRx2Frequency ?? current.rx2_frequency,
    max_duty_cycle: settings.desired_max_duty_cycle ?? current.max_duty_cycle,
    ping_slot_frequency: settings.desired_ping_slot_frequency ?? plan.ping_slot_frequency ?? current.ping_slot_frequency,
    beacon_frequency: settings.desired_beacon_frequency ?? current.beacon_frequency,
    channels: planChannels(band, plan, current.channels ?? []),
    // Only bands with TxParamSetupReq can be told about dwell time; the limit applies unless the plan lifts it.
    uplink_dwell_time: band.tx_param_setup_req_support ? (plan.dwell_time?.uplinks ?? true) : undefined,
    downlink_dwell_time: band.tx_param_setup_req_support ? (plan.dwell_time?.downlinks ?? true) : undefined,
    adr_ack_limit_exponent: settings.desired_adr_ack_limit_exponent ?? current.adr_ack_limit_exponent,
    adr_ack_delay_exponent: settings.desired_adr_ack_delay_exponent ?? current.adr_ack_delay_exponent,
    ping_slot_data_rate_index_value: settings.desired_ping_slot_data_rate_index ?? current.ping_slot_data_rate_index_value,
  });
  return defined({
    current_parameters: current,
    desired_parameters: desired,
    device_class: 'CLASS_A',
    lorawan_version,
    ping_slot_periodicity: settings.ping_slot_periodicity,
    rx_windows_available: false,
  });
}
