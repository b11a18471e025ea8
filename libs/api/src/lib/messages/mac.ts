import { Bool, Duration, EnumName, EnumNames, Float, IntegerList, Timestamp, Uint32, Uint64, Uint64List } from '../json/fields';
import { Message, Messages, Required } from '../json/nested';
import { MACVersion } from '../enums/lorawan';
import {
  ADRAckDelayExponent,
  ADRAckLimitExponent,
  AggregatedDutyCycle,
  Class,
  DataRateIndex,
  PingSlotPeriod,
  RejoinCountExponent,
  RejoinTimeExponent,
  RxDelay,
} from '../enums/mac';
import { ApplicationDownlink, DownlinkMessage, JoinRequest, MACCommand, MACStateJoinAccept, UplinkMessage } from './traffic';

/** The seed's lower bound of every frequency (Hz). */
export const MIN_FREQUENCY_HZ = 100000;
const Frequency = () => Uint64({ min: MIN_FREQUENCY_HZ });
/** UInt64Value of a frequency: bare value (or `{"value": X}`), at least 100000 Hz. */
const FrequencyValue = () => Uint64({ min: MIN_FREQUENCY_HZ, wrapper: true });
const W = { wrapper: true } as const;

/**
 * `ttn.lorawan.v3.MACSettings` (Network Server): every field of the seed's table. Wrapper types
 * (UInt64Value, BoolValue, RxDelayValue, …) are nullable bare scalars as TTS writes them: null or
 * absent means "use the default"; `{"value": X}` is accepted on input.
 * TTS's `adr` sub-message and relay settings are not part of the seed and are not kept.
 */
export class MACSettings {
  @Duration() class_b_timeout?: string;
  @EnumName(PingSlotPeriod, W) ping_slot_periodicity?: string;
  @EnumName(DataRateIndex, W) ping_slot_data_rate_index?: number;
  @FrequencyValue() ping_slot_frequency?: string;
  @FrequencyValue() beacon_frequency?: string;
  @Duration() class_c_timeout?: string;
  @EnumName(RxDelay, W) rx1_delay?: number;
  @Uint32({ max: 7, wrapper: true }) rx1_data_rate_offset?: number;
  @EnumName(DataRateIndex, W) rx2_data_rate_index?: number;
  @FrequencyValue() rx2_frequency?: string;
  /** At most 96 (TTS `end_device.proto`: `repeated.max_items = 96`). */
  @Uint64List({ maxItems: 96 }) factory_preset_frequencies?: string[];
  @EnumName(AggregatedDutyCycle, W) max_duty_cycle?: string;
  @Bool(W) supports_32_bit_f_cnt?: boolean;
  @Bool(W) use_adr?: boolean;
  @Float(W) adr_margin?: number;
  @Bool(W) resets_f_cnt?: boolean;
  @Duration() status_time_periodicity?: string;
  @Uint32(W) status_count_periodicity?: number;
  @EnumName(RxDelay, W) desired_rx1_delay?: number;
  @Uint32({ max: 7, wrapper: true }) desired_rx1_data_rate_offset?: number;
  @EnumName(DataRateIndex, W) desired_rx2_data_rate_index?: number;
  @FrequencyValue() desired_rx2_frequency?: string;
  @EnumName(AggregatedDutyCycle, W) desired_max_duty_cycle?: string;
  @EnumName(ADRAckLimitExponent, W) desired_adr_ack_limit_exponent?: string;
  @EnumName(ADRAckDelayExponent, W) desired_adr_ack_delay_exponent?: string;
  @EnumName(DataRateIndex, W) desired_ping_slot_data_rate_index?: number;
  @FrequencyValue() desired_ping_slot_frequency?: string;
  @FrequencyValue() desired_beacon_frequency?: string;
}

/** `ttn.lorawan.v3.MACParameters.Channel`. */
export class MACParametersChannel {
  @Frequency() uplink_frequency?: string;
  @Frequency() downlink_frequency?: string;
  @EnumName(DataRateIndex) min_data_rate_index?: number;
  @EnumName(DataRateIndex) max_data_rate_index?: number;
  @Bool() enable_uplink?: boolean;
}

/** `ttn.lorawan.v3.MACParameters`. */
export class MACParameters {
  @Float() max_eirp?: number;
  @EnumName(DataRateIndex) adr_data_rate_index?: number;
  @Uint32({ max: 15 }) adr_tx_power_index?: number;
  @Uint32({ max: 15 }) adr_nb_trans?: number;
  /** Deprecated: use adr_ack_limit_exponent. */
  @Uint32() adr_ack_limit?: number;
  /** Deprecated: use adr_ack_delay_exponent. */
  @Uint32() adr_ack_delay?: number;
  @EnumName(RxDelay) rx1_delay?: number;
  @Uint32({ max: 7 }) rx1_data_rate_offset?: number;
  @EnumName(DataRateIndex) rx2_data_rate_index?: number;
  @Frequency() rx2_frequency?: string;
  @EnumName(AggregatedDutyCycle) max_duty_cycle?: string;
  @EnumName(RejoinTimeExponent) rejoin_time_periodicity?: string;
  @EnumName(RejoinCountExponent) rejoin_count_periodicity?: string;
  @Frequency() ping_slot_frequency?: string;
  /** Deprecated: use ping_slot_data_rate_index_value. */
  @EnumName(DataRateIndex) ping_slot_data_rate_index?: number;
  @Frequency() beacon_frequency?: string;
  @Messages(() => MACParametersChannel, { minItems: 1 }) channels?: MACParametersChannel[];
  @Bool(W) uplink_dwell_time?: boolean;
  @Bool(W) downlink_dwell_time?: boolean;
  @EnumName(ADRAckLimitExponent, W) adr_ack_limit_exponent?: string;
  @EnumName(ADRAckDelayExponent, W) adr_ack_delay_exponent?: string;
  @EnumName(DataRateIndex, W) ping_slot_data_rate_index_value?: number;
}

/** `ttn.lorawan.v3.MACState` (Network Server; read only, used internally). */
export class MACState {
  @Required() @Message(() => MACParameters) current_parameters!: MACParameters;
  @Required() @Message(() => MACParameters) desired_parameters!: MACParameters;
  @EnumName(Class) device_class?: string;
  @EnumName(MACVersion) lorawan_version?: string;
  @Timestamp() last_confirmed_downlink_at?: string;
  @Uint32() last_dev_status_f_cnt_up?: number;
  @EnumName(PingSlotPeriod, W) ping_slot_periodicity?: string;
  @Message(() => ApplicationDownlink) pending_application_downlink?: ApplicationDownlink;
  @Messages(() => MACCommand) queued_responses?: MACCommand[];
  @Messages(() => MACCommand) pending_requests?: MACCommand[];
  @Message(() => MACStateJoinAccept) queued_join_accept?: MACStateJoinAccept;
  @Message(() => JoinRequest) pending_join_request?: JoinRequest;
  @Bool() rx_windows_available?: boolean;
  @Messages(() => UplinkMessage) recent_uplinks?: UplinkMessage[];
  @Messages(() => DownlinkMessage) recent_downlinks?: DownlinkMessage[];
  @Timestamp() last_network_initiated_downlink_at?: string;
  /** At most 15 each (TTS `end_device.proto`: `repeated.max_items = 15`). */
  @EnumNames(DataRateIndex, { maxItems: 15 }) rejected_adr_data_rate_indexes?: number[];
  @IntegerList({ max: 15, maxItems: 15 }) rejected_adr_tx_power_indexes?: number[];
  @Uint64List({ min: MIN_FREQUENCY_HZ }) rejected_frequencies?: string[];
  @Timestamp() last_downlink_at?: string;
}
