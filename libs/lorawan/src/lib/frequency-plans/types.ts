/** A frequency in Hz as a decimal string: the contract's JSON form of uint64. */
export type Hz = string;

/**
 * A band by The Things Stack's ID (`pkg/band`): one per RP002 region, AS923 per frequency group
 * (`AS_923` is group 1), CN470-510 in RP001's 96-channel layout (`CN_470_510`) and in RP002's four
 * channel plans (20 MHz or 26 MHz antenna, type A or B).
 */
export type BandId =
  | 'EU_863_870'
  | 'US_902_928'
  | 'AU_915_928'
  | 'AS_923'
  | 'AS_923_2'
  | 'AS_923_3'
  | 'AS_923_4'
  | 'IN_865_867'
  | 'KR_920_923'
  | 'RU_864_870'
  | 'EU_433'
  | 'CN_779_787'
  | 'CN_470_510'
  | 'CN_470_510_20_A'
  | 'CN_470_510_20_B'
  | 'CN_470_510_26_A'
  | 'CN_470_510_26_B';

/** Name of `ttn.lorawan.v3.CFListType`: how a join-accept's CFList changes the device's channels. */
export type CFListType = 'FREQUENCIES' | 'CHANNEL_MASKS';

/** A regulatory sub-band: duty cycle and power limits apply to every transmission inside it. */
export interface SubBand {
  readonly min_frequency: Hz;
  readonly max_frequency: Hz;
  /** Largest fraction of time a transmitter may occupy the sub-band (1 = unlimited). */
  readonly duty_cycle: number;
  /** dBm EIRP. */
  readonly max_eirp: number;
}

export interface Rx2Channel {
  readonly frequency: Hz;
  readonly data_rate_index: number;
}

/** A channel of a band's default set, with the frequency its RX1 window answers on. */
export interface BandChannel {
  readonly uplink_frequency: Hz;
  readonly downlink_frequency: Hz;
  readonly min_data_rate_index: number;
  readonly max_data_rate_index: number;
}

export interface FrequencyPlanChannel {
  readonly frequency: Hz;
  readonly min_data_rate_index: number;
  readonly max_data_rate_index: number;
  /** Index of the gateway radio (`radios`) that receives the channel; set on uplink channels of plans with a radio configuration. */
  readonly radio?: number;
}

/** A single-data-rate channel of a concentrator: the LoRa "standard" (250/500 kHz) channel or the FSK channel. */
export interface FrequencyPlanFixedChannel {
  readonly frequency: Hz;
  readonly data_rate_index: number;
  readonly radio: number;
}

/**
 * A radio of the gateway's concentrator (SX1301/SX1302 RF chain): the centre frequency its IF
 * channels are placed around, and for the radio that transmits, the range it may transmit in.
 */
export interface GatewayRadio {
  readonly enable: boolean;
  readonly chip_type: 'SX1255' | 'SX1257';
  readonly frequency: Hz;
  /** dB added to the RSSI the radio measures. */
  readonly rssi_offset: number;
  readonly tx?: { readonly min_frequency: Hz; readonly max_frequency: Hz; readonly notch_frequency?: number };
}

/** Listen-before-talk (Japan ARIB STD-T108, Korea): the gateway senses the channel before each transmission. */
export interface ListenBeforeTalk {
  /** dB added to the measured RSSI. */
  readonly rssi_offset: number;
  /** dBm at or below which the channel counts as free. */
  readonly rssi_target: number;
  /** Microseconds the channel is sensed. */
  readonly scan_time_us: number;
}

/** The base frequency (MHz) a gateway's hardware is built for; TTS `FrequencyPlanDescription.base_frequency`. */
export type BaseFrequency = 433 | 470 | 868 | 915;

/** Whether the 400 ms dwell-time limit applies; unset means the band's default. */
export interface DwellTime {
  readonly uplinks?: boolean;
  readonly downlinks?: boolean;
}

/**
 * Regional parameters of a band (LoRaWAN RP002-1.0.4; LoRa and FSK data rates, no LR-FHSS): what
 * every device of the band knows from boot. Data rates, their payload limits and the RX1 data rate
 * rule live in `data-rates.ts`. A frequency plan selects channels inside it.
 */
export interface Band {
  readonly id: BandId;
  /** The channels a device uses after boot or reset, in channel-index order (ChMask bit order). */
  readonly default_channels: readonly BandChannel[];
  /**
   * Fixed-plan bands with a downlink channel set of their own (US915, AU915: 8 × 500 kHz; CN470:
   * 48 × 125 kHz, RP002's plans 64 or 24), in channel-index order; each default channel's `downlink_frequency` is one of them.
   */
  readonly downlink_channels?: readonly FrequencyPlanChannel[];
  readonly cf_list_type: CFListType;
  /** Highest data rate ADR may assign. */
  readonly max_adr_data_rate_index: number;
  /**
   * dB below the max EIRP per LinkADRReq TXPower index (RP002 "TX power table"; TTS `Band.TxOffset`):
   * index 0 is the max EIRP, each index 2 dB less; the last index is the band's highest TXPower.
   * ADR trades these steps against link margin (TTS `mac/adr.go` txPowerStep).
   */
  readonly tx_power_offsets: readonly number[];
  readonly default_rx2: Rx2Channel;
  /** dBm EIRP a device assumes until told otherwise. */
  readonly default_max_eirp: number;
  /** Seconds (RECEIVE_DELAY1); RX2 opens one second later. */
  readonly rx1_delay: number;
  /** Seconds (JOIN_ACCEPT_DELAY1/2). */
  readonly join_accept_delay_1: number;
  readonly join_accept_delay_2: number;
  /** `ADRAckLimitExponent` / `ADRAckDelayExponent` names (ADR_ACK_LIMIT, ADR_ACK_DELAY). */
  readonly adr_ack_limit_exponent: string;
  readonly adr_ack_delay_exponent: string;
  /** Beacon data rate, also the default ping-slot data rate. */
  readonly beacon_data_rate_index: number;
  /**
   * Set only where the band has one fixed frequency; US, AU and CN470 (RP001) hop over
   * `beacon_frequencies`; neither is set where TTS defines no class B channel (RP002 CN470 20 MHz plans).
   */
  readonly beacon_frequency?: Hz;
  readonly ping_slot_frequency?: Hz;
  /**
   * Bands whose beacons and default ping slots hop (US915, AU915, CN470): the channels, in order;
   * the channel of a beacon period is (DevAddr + floor(beacon time / 128 s)) mod their number.
   */
  readonly beacon_frequencies?: readonly Hz[];
  readonly sub_bands: readonly SubBand[];
  /** Whether devices accept TxParamSetupReq (dwell time and max EIRP changes). */
  readonly tx_param_setup_req_support: boolean;
}

/**
 * A frequency plan: the channels a network operates in a band, with the band's facts resolved
 * (RX2, power, delays, duty cycle), so a reader needs no second lookup.
 */
export interface FrequencyPlan {
  readonly id: string;
  /** The plan this one derives from (TTS `base-id`): its channels and radios, changed where this plan says so. */
  readonly base_id?: string;
  readonly name: string;
  readonly description: string;
  readonly band_id: BandId;
  readonly base_frequency: BaseFrequency;
  readonly uplink_channels: readonly FrequencyPlanChannel[];
  /**
   * Only in bands with a separate downlink channel set (US, AU: 8 × 500 kHz; CN470: 48 × 125 kHz):
   * the downlink channels the plan's uplink channels answer on in RX1; elsewhere RX1 answers on the
   * uplink frequency (RP002), and TTS's plan files list the uplink channels again.
   */
  readonly downlink_channels?: readonly FrequencyPlanChannel[];
  readonly rx2: Rx2Channel;
  /** dBm EIRP. */
  readonly max_eirp: number;
  /** Seconds. */
  readonly rx1_delay: number;
  /**
   * The plan's own sub-bands (TTS: duty cycle 1 and the plan's max EIRP unless set), then the band's
   * sub-bands that overlap none of them.
   */
  readonly sub_bands: readonly SubBand[];
  readonly dwell_time?: DwellTime;
  readonly ping_slot_frequency?: Hz;
  readonly beacon_frequency?: Hz;
  readonly listen_before_talk?: ListenBeforeTalk;
  readonly lora_standard_channel?: FrequencyPlanFixedChannel;
  readonly fsk_channel?: FrequencyPlanFixedChannel;
  /** The concentrator configuration a gateway on this plan needs (radio 0, radio 1). */
  readonly radios?: readonly GatewayRadio[];
  /** The radio whose clock drives the concentrator. */
  readonly clock_source?: number;
}
