import { deepFreeze } from '../deep-freeze';
import type { Band, BandChannel, BandId, FrequencyPlanChannel, Hz } from './types';

/**
 * Band facts from LoRaWAN Regional Parameters RP002-1.0.4 (CN779-787 from RP002-1.0.3, the last to
 * define it; CN470-510 in the 96-channel layout of RP001-1.1revB and in RP002's four channel plans,
 * see below), checked against The
 * Things Stack (`pkg/band`) and ChirpStack (`lrwn/src/region`): LoRa and FSK data rates (no
 * LR-FHSS), AS923 in its four frequency groups. EIRP limits given by regulators as ERP are
 * converted with +2.15 dB.
 */
export const hz = (n: number): Hz => String(n);

/** dB between EIRP and ERP (a half-wave dipole's gain): regulators give ERP, the stack carries EIRP. */
export const ERP_TO_EIRP = 2.15;

/** Delays and ADR defaults shared by every band (RP002 "default settings"). */
const COMMON = {
  rx1_delay: 1,
  join_accept_delay_1: 5,
  join_accept_delay_2: 6,
  adr_ack_limit_exponent: 'ADR_ACK_LIMIT_64',
  adr_ack_delay_exponent: 'ADR_ACK_DELAY_32',
} as const;

/**
 * The first `count` TXPower offsets of a band: 0, -2, -4, … dB (every RP002 band steps by 2 dB; they
 * differ only in how many indexes they define). `0 - 2 * i` keeps index 0 at +0 rather than -0.
 */
function twoDbSteps(count: number): number[] {
  return Array.from({ length: count }, (_, i) => 0 - 2 * i);
}

/** Channels where RX1 answers on the uplink frequency (EU-like bands). */
function sameFrequencyChannels(frequencies: readonly number[], maxDataRateIndex: number): BandChannel[] {
  return frequencies.map((f) => ({ uplink_frequency: hz(f), downlink_frequency: hz(f), min_data_rate_index: 0, max_data_rate_index: maxDataRateIndex }));
}

/** The eight 500 kHz downlink channels of US915 and AU915 (DR8–DR13). */
export const US_AU_DOWNLINK_CHANNELS: readonly FrequencyPlanChannel[] = deepFreeze(
  Array.from({ length: 8 }, (_, i) => ({ frequency: hz(923_300_000 + 600_000 * i), min_data_rate_index: 8, max_data_rate_index: 13 })),
);

/** The eight channels US915 and AU915 beacons and default ping slots hop over: their 500 kHz downlink channels. */
const US_AU_BEACON_FREQUENCIES: readonly Hz[] = US_AU_DOWNLINK_CHANNELS.map((c) => c.frequency);

/**
 * US/AU-like bands: 64 narrow channels and 8 wide 500 kHz channels; RX1 of uplink channel i answers
 * on downlink channel i mod 8.
 */
function fixedPlanChannels(narrow: { first: number; maxDataRateIndex: number }, wide: { first: number; dataRateIndex: number }): BandChannel[] {
  const downlink = (i: number) => US_AU_DOWNLINK_CHANNELS[i % 8].frequency;
  const narrowChannels = Array.from({ length: 64 }, (_, i) => ({
    uplink_frequency: hz(narrow.first + 200_000 * i),
    downlink_frequency: downlink(i),
    min_data_rate_index: 0,
    max_data_rate_index: narrow.maxDataRateIndex,
  }));
  const wideChannels = Array.from({ length: 8 }, (_, i) => ({
    uplink_frequency: hz(wide.first + 1_600_000 * i),
    downlink_frequency: downlink(64 + i),
    min_data_rate_index: wide.dataRateIndex,
    max_data_rate_index: wide.dataRateIndex,
  }));
  return [...narrowChannels, ...wideChannels];
}

/**
 * CN470-510 (RP001-1.0.3revA and RP001-1.1revB §2.6, the layout TTS's `CN_470_510` band and its
 * CN_470_510_FSB_* plans use): 96 uplink channels 470.3 + 0.2 × n MHz, 48 downlink channels
 * 500.3 + 0.2 × n MHz, RX1 of uplink channel n on downlink channel n mod 48.
 */
const CN_470_510_DOWNLINK_CHANNELS: readonly FrequencyPlanChannel[] = deepFreeze(
  Array.from({ length: 48 }, (_, i) => ({ frequency: hz(500_300_000 + 200_000 * i), min_data_rate_index: 0, max_data_rate_index: 5 })),
);
const CN_470_510_CHANNELS: BandChannel[] = Array.from({ length: 96 }, (_, i) => ({
  uplink_frequency: hz(470_300_000 + 200_000 * i),
  downlink_frequency: CN_470_510_DOWNLINK_CHANNELS[i % 48].frequency,
  min_data_rate_index: 0,
  max_data_rate_index: 5,
}));

/** A run of channels 200 kHz apart: the first frequency (Hz) and how many. */
type ChannelRun = readonly [first: number, count: number];

/**
 * RP002-1.0.4's CN470-510 channel plans, as TTS's `CN_470_510_{20,26}_{A,B}` bands
 * (`pkg/band/cn_470_510_*_rp2_v1_0_4.go`, which TTS took from the RP 1.2rA draft; ChirpStack has
 * only the RP001 layout). Uplink channels are listed per group of 32 (20 MHz) or as one run of 48
 * (26 MHz), 200 kHz apart; RX1 answers on downlink channel `rx1(n)` of uplink channel n (20 MHz: the
 * same index; 26 MHz: n mod 24). Channels allow DR1–DR5: TTS defines no DR0 in these bands
 * (`data-rates.ts`). RX2 is TTS's fixed default, LoRaMac-node's ABP one (an OTAA device's RX2 depends
 * on its join channel there, which the band model does not carry); its DR0 is TTS's too
 * (LoRaMac-node's RP002 implementation uses DR1), so no default RX2 window exists until the device's
 * RX2 data rate is set, as in TTS, which cannot look DR0 up either.
 */
function cn470Rp2<K extends 'CN_470_510_20_A' | 'CN_470_510_20_B' | 'CN_470_510_26_A' | 'CN_470_510_26_B'>(
  id: K,
  channels: { uplink: readonly ChannelRun[]; downlink: readonly ChannelRun[]; rx1: (n: number) => number },
  rx2: number,
  classB?: number,
): Band & { readonly id: K } {
  const run = (runs: readonly ChannelRun[]) => runs.flatMap(([first, count]) => Array.from({ length: count }, (_, i) => first + 200_000 * i));
  const downlinkChannels = run(channels.downlink).map((f) => ({ frequency: hz(f), min_data_rate_index: 1, max_data_rate_index: 5 }));
  return {
    id,
    ...COMMON,
    default_channels: run(channels.uplink).map((f, n) => ({
      uplink_frequency: hz(f),
      downlink_frequency: downlinkChannels[channels.rx1(n)].frequency,
      min_data_rate_index: 1,
      max_data_rate_index: 5,
    })),
    downlink_channels: downlinkChannels,
    cf_list_type: 'CHANNEL_MASKS',
    max_adr_data_rate_index: 5,
    // TXPower 0–7 (TTS `pkg/band/cn_470_510_*_rp2_v1_0_4.go` TxOffset).
    tx_power_offsets: twoDbSteps(8),
    default_rx2: { frequency: hz(rx2), data_rate_index: 0 },
    default_max_eirp: 17 + ERP_TO_EIRP,
    beacon_data_rate_index: 2,
    // 26 MHz plans: one beacon and ping-slot channel. TTS gives the 20 MHz plans a beacon data rate
    // but no beacon or ping-slot channel, so they have no class B default frequency here either.
    ...(classB === undefined ? {} : { beacon_frequency: hz(classB), ping_slot_frequency: hz(classB) }),
    sub_bands: [{ min_frequency: hz(470_000_000), max_frequency: hz(510_000_000), duty_cycle: 1, max_eirp: 17 + ERP_TO_EIRP }],
    tx_param_setup_req_support: false,
  };
}

/** RP002 20 MHz plans: RX1 on the uplink channel's index. */
const sameIndex = (n: number) => n;
/** RP002 26 MHz plans: RX1 on downlink channel n mod 24. */
const mod24 = (n: number) => n % 24;
/** RP002 20 MHz type B: two groups of 32, the same for uplink and downlink. */
const CN_470_510_20_B_CHANNELS: readonly ChannelRun[] = [
  [476_900_000, 32],
  [496_900_000, 32],
];

/**
 * AS923 groups (RP002-1.0.4 "AS923 Channel Frequencies"): group 1 plus AS923_FREQ_OFFSET, the same
 * for the two default channels, RX2 and the class B channel; the sub-band is the group's slice of
 * its countries' 915–928 MHz allocation, where devices keep a 1 % duty cycle (TTS `pkg/band/as_923.go`).
 */
function as923<K extends 'AS_923' | 'AS_923_2' | 'AS_923_3' | 'AS_923_4'>(
  id: K,
  offset: number,
  subBand: { min: number; max: number },
): Band & { readonly id: K } {
  const classB = hz(923_400_000 + offset);
  return {
    id,
    ...COMMON,
    default_channels: sameFrequencyChannels([923_200_000 + offset, 923_400_000 + offset], 5),
    cf_list_type: 'FREQUENCIES',
    max_adr_data_rate_index: 5,
    // TXPower 0–7 (TTS `pkg/band/as_923_rp2_v1_0_4.go` TxOffset).
    tx_power_offsets: twoDbSteps(8),
    default_rx2: { frequency: hz(923_200_000 + offset), data_rate_index: 2 },
    default_max_eirp: 16,
    beacon_data_rate_index: 3,
    beacon_frequency: classB,
    ping_slot_frequency: classB,
    sub_bands: [{ min_frequency: hz(subBand.min), max_frequency: hz(subBand.max), duty_cycle: 0.01, max_eirp: 16 }],
    tx_param_setup_req_support: true,
  };
}

/** Keyed by band ID; the type makes each entry's `id` equal its key. */
const BANDS: { readonly [K in BandId]: Band & { readonly id: K } } = deepFreeze({
  EU_863_870: {
    id: 'EU_863_870',
    ...COMMON,
    default_channels: sameFrequencyChannels([868_100_000, 868_300_000, 868_500_000], 5),
    cf_list_type: 'FREQUENCIES',
    max_adr_data_rate_index: 5,
    // TXPower 0–7 (TTS `pkg/band/eu_863_870_rp2_v1_0_4.go` TxOffset).
    tx_power_offsets: twoDbSteps(8),
    default_rx2: { frequency: hz(869_525_000), data_rate_index: 0 },
    default_max_eirp: 16,
    beacon_data_rate_index: 3,
    beacon_frequency: hz(869_525_000),
    ping_slot_frequency: hz(869_525_000),
    // ETSI EN 300 220 sub-bands K, L, M, N, P, R (O is not used).
    sub_bands: [
      { min_frequency: hz(863_000_000), max_frequency: hz(865_000_000), duty_cycle: 0.001, max_eirp: 14 + ERP_TO_EIRP },
      { min_frequency: hz(865_000_000), max_frequency: hz(868_000_000), duty_cycle: 0.01, max_eirp: 14 + ERP_TO_EIRP },
      { min_frequency: hz(868_000_000), max_frequency: hz(868_600_000), duty_cycle: 0.01, max_eirp: 14 + ERP_TO_EIRP },
      { min_frequency: hz(868_700_000), max_frequency: hz(869_200_000), duty_cycle: 0.001, max_eirp: 14 + ERP_TO_EIRP },
      { min_frequency: hz(869_400_000), max_frequency: hz(869_650_000), duty_cycle: 0.1, max_eirp: 27 + ERP_TO_EIRP },
      { min_frequency: hz(869_700_000), max_frequency: hz(870_000_000), duty_cycle: 0.01, max_eirp: 14 + ERP_TO_EIRP },
    ],
    tx_param_setup_req_support: false,
  },
  US_902_928: {
    id: 'US_902_928',
    ...COMMON,
    default_channels: fixedPlanChannels({ first: 902_300_000, maxDataRateIndex: 3 }, { first: 903_000_000, dataRateIndex: 4 }),
    cf_list_type: 'CHANNEL_MASKS',
    max_adr_data_rate_index: 3,
    // TXPower 0–14 (TTS `pkg/band/us_902_928_rp2_v1_0_4.go` TxOffset).
    tx_power_offsets: twoDbSteps(15),
    downlink_channels: US_AU_DOWNLINK_CHANNELS,
    default_rx2: { frequency: hz(923_300_000), data_rate_index: 8 },
    default_max_eirp: 30,
    beacon_data_rate_index: 8,
    beacon_frequencies: US_AU_BEACON_FREQUENCIES,
    // FCC part 15: no duty cycle; 400 ms dwell time on uplinks instead.
    sub_bands: [
      { min_frequency: hz(902_300_000), max_frequency: hz(914_900_000), duty_cycle: 1, max_eirp: 21 + ERP_TO_EIRP },
      { min_frequency: hz(923_300_000), max_frequency: hz(927_500_000), duty_cycle: 1, max_eirp: 26 + ERP_TO_EIRP },
    ],
    tx_param_setup_req_support: false,
  },
  AU_915_928: {
    id: 'AU_915_928',
    ...COMMON,
    default_channels: fixedPlanChannels({ first: 915_200_000, maxDataRateIndex: 5 }, { first: 915_900_000, dataRateIndex: 6 }),
    cf_list_type: 'CHANNEL_MASKS',
    max_adr_data_rate_index: 5,
    // TXPower 0–14 (TTS `pkg/band/au_915_928_rp2_v1_0_4.go` TxOffset).
    tx_power_offsets: twoDbSteps(15),
    downlink_channels: US_AU_DOWNLINK_CHANNELS,
    default_rx2: { frequency: hz(923_300_000), data_rate_index: 8 },
    default_max_eirp: 30,
    beacon_data_rate_index: 8,
    beacon_frequencies: US_AU_BEACON_FREQUENCIES,
    sub_bands: [{ min_frequency: hz(915_000_000), max_frequency: hz(928_000_000), duty_cycle: 1, max_eirp: 30 }],
    tx_param_setup_req_support: true,
  },
  AS_923: as923('AS_923', 0, { min: 923_000_000, max: 923_500_000 }),
  AS_923_2: as923('AS_923_2', -1_800_000, { min: 921_400_000, max: 922_000_000 }),
  AS_923_3: as923('AS_923_3', -6_600_000, { min: 916_500_000, max: 917_000_000 }),
  AS_923_4: as923('AS_923_4', -5_900_000, { min: 917_300_000, max: 917_500_000 }),
  IN_865_867: {
    id: 'IN_865_867',
    ...COMMON,
    default_channels: sameFrequencyChannels([865_062_500, 865_402_500, 865_985_000], 5),
    cf_list_type: 'FREQUENCIES',
    max_adr_data_rate_index: 5,
    // TXPower 0–10 (TTS `pkg/band/in_865_867_rp2_v1_0_4.go` TxOffset).
    tx_power_offsets: twoDbSteps(11),
    default_rx2: { frequency: hz(866_550_000), data_rate_index: 2 },
    default_max_eirp: 30,
    beacon_data_rate_index: 4,
    beacon_frequency: hz(866_500_000),
    ping_slot_frequency: hz(866_500_000),
    sub_bands: [{ min_frequency: hz(865_000_000), max_frequency: hz(867_000_000), duty_cycle: 1, max_eirp: 14 + ERP_TO_EIRP }],
    tx_param_setup_req_support: false,
  },
  KR_920_923: {
    id: 'KR_920_923',
    ...COMMON,
    default_channels: sameFrequencyChannels([922_100_000, 922_300_000, 922_500_000], 5),
    cf_list_type: 'FREQUENCIES',
    max_adr_data_rate_index: 5,
    // TXPower 0–7 (TTS `pkg/band/kr_920_923_rp2_v1_0_4.go` TxOffset).
    tx_power_offsets: twoDbSteps(8),
    default_rx2: { frequency: hz(921_900_000), data_rate_index: 0 },
    default_max_eirp: 14,
    beacon_data_rate_index: 3,
    beacon_frequency: hz(923_100_000),
    ping_slot_frequency: hz(923_100_000),
    // Korea: listen-before-talk instead of a duty cycle. The RP002 channel range (920.9–923.3 MHz),
    // which holds the class B channel; TTS's band stops at 923 MHz. 14 dBm ERP as TTS.
    sub_bands: [{ min_frequency: hz(920_900_000), max_frequency: hz(923_300_000), duty_cycle: 1, max_eirp: 14 + ERP_TO_EIRP }],
    tx_param_setup_req_support: false,
  },
  RU_864_870: {
    id: 'RU_864_870',
    ...COMMON,
    default_channels: sameFrequencyChannels([868_900_000, 869_100_000], 5),
    cf_list_type: 'FREQUENCIES',
    max_adr_data_rate_index: 5,
    // TXPower 0–7 (TTS `pkg/band/ru_864_870_rp2_v1_0_4.go` TxOffset).
    tx_power_offsets: twoDbSteps(8),
    default_rx2: { frequency: hz(869_100_000), data_rate_index: 0 },
    default_max_eirp: 16,
    beacon_data_rate_index: 3,
    // The one band whose beacon and ping slots use different default channels.
    beacon_frequency: hz(869_100_000),
    ping_slot_frequency: hz(868_900_000),
    // GKRCh decision of 07.05.2007, appendix 10 (TTS): 1 %, 20 dBm ERP.
    sub_bands: [{ min_frequency: hz(864_000_000), max_frequency: hz(870_000_000), duty_cycle: 0.01, max_eirp: 20 + ERP_TO_EIRP }],
    tx_param_setup_req_support: false,
  },
  EU_433: {
    id: 'EU_433',
    ...COMMON,
    default_channels: sameFrequencyChannels([433_175_000, 433_375_000, 433_575_000], 5),
    cf_list_type: 'FREQUENCIES',
    max_adr_data_rate_index: 5,
    // TXPower 0–5 (TTS `pkg/band/eu_433_rp2_v1_0_4.go` TxOffset).
    tx_power_offsets: twoDbSteps(6),
    default_rx2: { frequency: hz(434_665_000), data_rate_index: 0 },
    default_max_eirp: 10 + ERP_TO_EIRP,
    beacon_data_rate_index: 3,
    // RP002 and ChirpStack: 434.665 MHz for both (TTS's band has 434.655 MHz for the beacon).
    beacon_frequency: hz(434_665_000),
    ping_slot_frequency: hz(434_665_000),
    // ETSI EN 300 220 433.05–434.79 MHz: 10 % duty cycle, 10 dBm ERP (TTS's EU_433 plan).
    sub_bands: [{ min_frequency: hz(433_050_000), max_frequency: hz(434_790_000), duty_cycle: 0.1, max_eirp: 10 + ERP_TO_EIRP }],
    tx_param_setup_req_support: false,
  },
  CN_779_787: {
    id: 'CN_779_787',
    ...COMMON,
    // The three channels every device implements (RP002, ChirpStack; TTS adds 780.5–780.9 MHz).
    default_channels: sameFrequencyChannels([779_500_000, 779_700_000, 779_900_000], 5),
    cf_list_type: 'FREQUENCIES',
    max_adr_data_rate_index: 5,
    // TXPower 0–5 (TTS `pkg/band/cn_779_787_rp2_v1_0_3.go` TxOffset).
    tx_power_offsets: twoDbSteps(6),
    default_rx2: { frequency: hz(786_000_000), data_rate_index: 0 },
    default_max_eirp: 10 + ERP_TO_EIRP,
    beacon_data_rate_index: 3,
    beacon_frequency: hz(785_000_000),
    ping_slot_frequency: hz(785_000_000),
    sub_bands: [{ min_frequency: hz(779_000_000), max_frequency: hz(787_000_000), duty_cycle: 0.01, max_eirp: 10 + ERP_TO_EIRP }],
    tx_param_setup_req_support: false,
  },
  CN_470_510: {
    id: 'CN_470_510',
    ...COMMON,
    default_channels: CN_470_510_CHANNELS,
    downlink_channels: CN_470_510_DOWNLINK_CHANNELS,
    cf_list_type: 'CHANNEL_MASKS',
    max_adr_data_rate_index: 5,
    // TXPower 0–7 (TTS `pkg/band/cn_470_510_rp1_v1_1_rev_b.go` TxOffset).
    tx_power_offsets: twoDbSteps(8),
    default_rx2: { frequency: hz(505_300_000), data_rate_index: 0 },
    // 17 dBm ERP (IEEE 11-11/0972r0, as TTS).
    default_max_eirp: 17 + ERP_TO_EIRP,
    beacon_data_rate_index: 2,
    // Beacons and default ping slots hop over 508.3 + 0.2 × i MHz, i = 0…7.
    beacon_frequencies: Array.from({ length: 8 }, (_, i) => hz(508_300_000 + 200_000 * i)),
    // No duty cycle in China's 470–510 MHz allocation.
    sub_bands: [{ min_frequency: hz(470_000_000), max_frequency: hz(510_000_000), duty_cycle: 1, max_eirp: 17 + ERP_TO_EIRP }],
    tx_param_setup_req_support: false,
  },
  CN_470_510_20_A: cn470Rp2(
    'CN_470_510_20_A',
    {
      uplink: [
        [470_300_000, 32],
        [503_500_000, 32],
      ],
      downlink: [
        [483_900_000, 32],
        [490_300_000, 32],
      ],
      rx1: sameIndex,
    },
    486_900_000,
  ),
  CN_470_510_20_B: cn470Rp2('CN_470_510_20_B', { uplink: CN_470_510_20_B_CHANNELS, downlink: CN_470_510_20_B_CHANNELS, rx1: sameIndex }, 498_300_000),
  CN_470_510_26_A: cn470Rp2('CN_470_510_26_A', { uplink: [[470_300_000, 48]], downlink: [[490_100_000, 24]], rx1: mod24 }, 492_500_000, 494_900_000),
  CN_470_510_26_B: cn470Rp2('CN_470_510_26_B', { uplink: [[480_300_000, 48]], downlink: [[500_100_000, 24]], rx1: mod24 }, 502_500_000, 504_900_000),
});

/**
 * The downlink channels a fixed-plan band's RX1 uses for a set of uplink frequencies (US915: the
 * 500 kHz channels; CN470: uplink channel n mod 48, RP002's plans as `cn470Rp2`), in downlink
 * channel order; undefined in bands where RX1 answers on the uplink frequency.
 */
export function rx1DownlinkChannels(band: Band, uplinkFrequencies: readonly Hz[]): readonly FrequencyPlanChannel[] | undefined {
  if (!band.downlink_channels) return undefined;
  const used = new Set(band.default_channels.filter((c) => uplinkFrequencies.includes(c.uplink_frequency)).map((c) => c.downlink_frequency));
  return band.downlink_channels.filter((c) => used.has(c.frequency));
}

export function getBand(id: BandId): Band {
  return BANDS[id];
}
