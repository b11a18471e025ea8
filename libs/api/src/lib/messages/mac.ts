import { Bool, Duration, EnumName, EnumNames, Float, IntegerList, Timestamp, Uint32, Uint64 } from '../json/fields';
import { Message, Messages, Required } from '../json/nested';
import { MACVersion } from '../enums/lorawan';
import { AggregatedDutyCycle, Class, DataRateIndex, RejoinCountExponent, RejoinTimeExponent, RxDelay } from '../enums/mac';
import {
  ADRAckDelayExponentValue,
  ADRAckLimitExponentValue,
  AggregatedDutyCycleValue,
  DataRateIndexValue,
  PingSlotPeriodValue,
  RxDelayValue,
  WrappedValue,
} from './mac-values';
import { ApplicationDownlink, DownlinkMessage, JoinRequest, MACCommand, MACStateJoinAccept, UplinkMessage } from './traffic';

/** The seed's lower bound of every frequency (Hz). */
export const MIN_FREQUENCY_HZ = 100000;
const Frequency = () => Uint64({ min: MIN_FREQUENCY_HZ });

/**
 * `ttn.lorawan.v3.MACSettings` (Network Server): every field of the seed's table. Wrapper types
 * (UInt64Value, BoolValue, …) are nullable scalars: null or absent means "use the default".
 * TTS's `adr` sub-message and relay settings are not part of the seed and are not kept.
 */
export class MACSettings {
  @Duration() class_b_timeout?: string;
  @WrappedValue(() => PingSlotPeriodValue) ping_slot_periodicity?: PingSlotPeriodValue;
  @WrappedValue(() => DataRateIndexValue) ping_slot_data_rate_index?: DataRateIndexValue;
  @Frequency() ping_slot_frequency?: number;
  @Frequency() beacon_frequency?: number;
  @Duration() class_c_timeout?: string;
  @WrappedValue(() => RxDelayValue) rx1_delay?: RxDelayValue;
  @Uint32({ max: 7 }) rx1_data_rate_offset?: number;
  @WrappedValue(() => DataRateIndexValue) rx2_data_rate_index?: DataRateIndexValue;
  @Frequency() rx2_frequency?: number;
  @IntegerList() factory_preset_frequencies?: number[];
  @WrappedValue(() => AggregatedDutyCycleValue) max_duty_cycle?: AggregatedDutyCycleValue;
  @Bool() supports_32_bit_f_cnt?: boolean;
  @Bool() use_adr?: boolean;
  @Float() adr_margin?: number;
  @Bool() resets_f_cnt?: boolean;
  @Duration() status_time_periodicity?: string;
  @Uint32() status_count_periodicity?: number;
  @WrappedValue(() => RxDelayValue) desired_rx1_delay?: RxDelayValue;
  @Uint32({ max: 7 }) desired_rx1_data_rate_offset?: number;
  @WrappedValue(() => DataRateIndexValue) desired_rx2_data_rate_index?: DataRateIndexValue;
  @Frequency() desired_rx2_frequency?: number;
  @WrappedValue(() => AggregatedDutyCycleValue) desired_max_duty_cycle?: AggregatedDutyCycleValue;
  @WrappedValue(() => ADRAckLimitExponentValue) desired_adr_ack_limit_exponent?: ADRAckLimitExponentValue;
  @WrappedValue(() => ADRAckDelayExponentValue) desired_adr_ack_delay_exponent?: ADRAckDelayExponentValue;
  @WrappedValue(() => DataRateIndexValue) desired_ping_slot_data_rate_index?: DataRateIndexValue;
  @Frequency() desired_ping_slot_frequency?: number;
  @Frequency() desired_beacon_frequency?: number;
}

/** `ttn.lorawan.v3.MACParameters.Channel`. */
export class MACParametersChannel {
  @Frequency() uplink_frequency?: number;
  @Frequency() downlink_frequency?: number;
  @EnumName(DataRateIndex) min_data_rate_index?: string;
  @EnumName(DataRateIndex) max_data_rate_index?: string;
  @Bool() enable_uplink?: boolean;
}

/** `ttn.lorawan.v3.MACParameters`. */
export class MACParameters {
  @Float() max_eirp?: number;
  @EnumName(DataRateIndex) adr_data_rate_index?: string;
  @Uint32({ max: 15 }) adr_tx_power_index?: number;
  @Uint32({ max: 15 }) adr_nb_trans?: number;
  /** Deprecated: use adr_ack_limit_exponent. */
  @Uint32() adr_ack_limit?: number;
  /** Deprecated: use adr_ack_delay_exponent. */
  @Uint32() adr_ack_delay?: number;
  @EnumName(RxDelay) rx1_delay?: string;
  @Uint32({ max: 7 }) rx1_data_rate_offset?: number;
  @EnumName(DataRateIndex) rx2_data_rate_index?: string;
  @Frequency() rx2_frequency?: number;
  @EnumName(AggregatedDutyCycle) max_duty_cycle?: string;
  @EnumName(RejoinTimeExponent) rejoin_time_periodicity?: string;
  @EnumName(RejoinCountExponent) rejoin_count_periodicity?: string;
  @Frequency() ping_slot_frequency?: number;
  /** Deprecated: use ping_slot_data_rate_index_value. */
  @EnumName(DataRateIndex) ping_slot_data_rate_index?: string;
  @Frequency() beacon_frequency?: number;
  @Messages(() => MACParametersChannel, { minItems: 1 }) channels?: MACParametersChannel[];
  @Bool() uplink_dwell_time?: boolean;
  @Bool() downlink_dwell_time?: boolean;
  @WrappedValue(() => ADRAckLimitExponentValue) adr_ack_limit_exponent?: ADRAckLimitExponentValue;
  @WrappedValue(() => ADRAckDelayExponentValue) adr_ack_delay_exponent?: ADRAckDelayExponentValue;
  @WrappedValue(() => DataRateIndexValue) ping_slot_data_rate_index_value?: DataRateIndexValue;
}

/** `ttn.lorawan.v3.MACState` (Network Server; read only, used internally). */
export class MACState {
  @Required() @Message(() => MACParameters) current_parameters!: MACParameters;
  @Required() @Message(() => MACParameters) desired_parameters!: MACParameters;
  @EnumName(Class) device_class?: string;
  @EnumName(MACVersion) lorawan_version?: string;
  @Timestamp() last_confirmed_downlink_at?: string;
  @Uint32() last_dev_status_f_cnt_up?: number;
  @WrappedValue(() => PingSlotPeriodValue) ping_slot_periodicity?: PingSlotPeriodValue;
  @Message(() => ApplicationDownlink) pending_application_downlink?: ApplicationDownlink;
  @Messages(() => MACCommand) queued_responses?: MACCommand[];
  @Messages(() => MACCommand) pending_requests?: MACCommand[];
  @Message(() => MACStateJoinAccept) queued_join_accept?: MACStateJoinAccept;
  @Message(() => JoinRequest) pending_join_request?: JoinRequest;
  @Bool() rx_windows_available?: boolean;
  @Messages(() => UplinkMessage) recent_uplinks?: UplinkMessage[];
  @Messages(() => DownlinkMessage) recent_downlinks?: DownlinkMessage[];
  @Timestamp() last_network_initiated_downlink_at?: string;
  @EnumNames(DataRateIndex) rejected_adr_data_rate_indexes?: string[];
  @IntegerList({ max: 15 }) rejected_adr_tx_power_indexes?: number[];
  @IntegerList({ min: MIN_FREQUENCY_HZ }) rejected_frequencies?: number[];
  @Timestamp() last_downlink_at?: string;
}
