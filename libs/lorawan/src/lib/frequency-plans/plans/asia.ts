import type { BandId } from '../types';
import { ch, concentrator, derive, DWELL_TIME_400MS, fixed, LBT_128_US, LBT_JAPAN, NO_DWELL_TIME, type PlanSpec, subBand } from './plan-spec';

/**
 * Asia and the Middle East: the AS923 plans of TTS (`AS_920_923.yml`, `AS_923_925.yml`, the JP, SG,
 * IL and UZ plans, the four AS923 groups' compatibility plans and their dwell-time variants),
 * `KR_920_923_TTN.yml` and `IN_865_867.yml`.
 */

/** AS923 between 920 and 923 MHz (TTN's plan for Malaysia and Singapore). */
const AS_920_923: PlanSpec = {
  id: 'AS_920_923',
  name: 'Asia 920-923 MHz',
  description: 'TTN Community Network frequency plan for Asian countries, using frequencies ≤ 923 MHz',
  band_id: 'AS_923',
  base_frequency: 915,
  sub_bands: [subBand(922_000_000, 923_400_000)],
  uplink_channels: [
    ch(923_200_000, 0),
    ch(923_400_000, 0),
    ch(922_200_000, 1),
    ch(922_400_000, 1),
    ch(922_600_000, 0),
    ch(922_800_000, 0),
    ch(923_000_000, 0),
    ch(922_000_000, 1),
  ],
  lora_standard_channel: fixed(922_100_000, 6, 1),
  fsk_channel: fixed(921_800_000, 7, 1),
  ...concentrator('SX1257', 923_000_000, { min: 920_000_000, max: 923_400_000 }, 922_100_000),
};

/** AS923 from 923 MHz up (TTN's plan for Brunei, Cambodia, Hong Kong, Indonesia, Laos, Taiwan, Thailand, Vietnam). */
const AS_923_925: PlanSpec = {
  id: 'AS_923_925',
  name: 'Asia 923-925 MHz',
  description: 'TTN Community Network frequency plan for Asian countries, using frequencies ≥ 923 MHz',
  band_id: 'AS_923',
  base_frequency: 915,
  sub_bands: [subBand(923_200_000, 924_600_000)],
  uplink_channels: [
    ch(923_200_000, 0),
    ch(923_400_000, 0),
    ch(923_600_000, 0),
    ch(923_800_000, 0),
    ch(924_000_000, 0),
    ch(924_200_000, 1),
    ch(924_400_000, 1),
    ch(924_600_000, 1),
  ],
  lora_standard_channel: fixed(924_500_000, 6, 1),
  fsk_channel: fixed(924_800_000, 7, 1),
  ...concentrator('SX1257', 923_600_000, { min: 923_200_000, max: 925_000_000 }, 924_500_000),
};

/** TTN Australia runs AS923 without dwell time and at 30 dBm over all of 915–928 MHz. */
const TTN_AUSTRALIA = { sub_bands: [subBand(915_000_000, 928_000_000, { duty_cycle: 1 })], dwell_time: NO_DWELL_TIME, max_eirp: 30 };

const JP_1: PlanSpec = {
  id: 'AS_920_923_TTN_JP_1',
  name: 'Japan 920-923 MHz with LBT (channels 31-38)',
  description: 'Frequency plan for Japan, using continuous frequencies up to 923.4MHz with LBT.',
  band_id: 'AS_923',
  base_frequency: 915,
  sub_bands: [subBand(922_000_000, 923_400_000, { max_eirp: 16 })],
  uplink_channels: [
    ch(923_200_000, 0),
    ch(923_400_000, 0),
    ch(922_800_000, 0),
    ch(923_000_000, 0),
    ch(922_600_000, 0),
    ch(922_000_000, 1),
    ch(922_200_000, 1),
    ch(922_400_000, 1),
  ],
  lora_standard_channel: fixed(922_100_000, 6, 1),
  fsk_channel: fixed(921_800_000, 7, 1),
  listen_before_talk: LBT_JAPAN,
  ...concentrator('SX1257', 923_000_000, { min: 922_000_000, max: 923_400_000 }, 922_100_000),
};

const JP_2: PlanSpec = {
  id: 'AS_920_923_TTN_JP_2',
  name: 'Japan 920-923 MHz with LBT (channels 24-27 and 35-38)',
  description: 'Frequency plan for Japan, using top and bottom frequencies ≤ 923.4 MHz with LBT.',
  band_id: 'AS_923',
  base_frequency: 915,
  sub_bands: [subBand(920_600_000, 923_400_000, { max_eirp: 16 })],
  uplink_channels: [
    ch(923_200_000, 1),
    ch(923_400_000, 1),
    ch(922_800_000, 1),
    ch(923_000_000, 1),
    ch(920_600_000, 0),
    ch(920_800_000, 0),
    ch(921_000_000, 0),
    ch(921_200_000, 0),
  ],
  lora_standard_channel: fixed(923_100_000, 6, 1),
  listen_before_talk: LBT_JAPAN,
  ...concentrator('SX1257', 920_900_000, { min: 920_600_000, max: 923_400_000 }, 923_100_000),
};

const JP_3: PlanSpec = {
  id: 'AS_920_923_TTN_JP_3',
  name: 'Japan 920-923 MHz with LBT (channels 24-31)',
  description: 'Frequency plan for Japan (16 channels), using continuous frequencies from 920.6 MHz, expected to be used with AS_920_923_TTN_JP_1.',
  band_id: 'AS_923',
  base_frequency: 915,
  sub_bands: [subBand(920_600_000, 922_000_000, { max_eirp: 16 })],
  uplink_channels: [
    ch(920_600_000, 0),
    ch(920_800_000, 0),
    ch(921_000_000, 0),
    ch(921_200_000, 0),
    ch(921_400_000, 1),
    ch(921_600_000, 1),
    ch(921_800_000, 1),
    ch(922_000_000, 1),
  ],
  lora_standard_channel: fixed(922_100_000, 6, 1),
  listen_before_talk: LBT_JAPAN,
  ...concentrator('SX1257', 920_900_000, { min: 920_600_000, max: 922_000_000 }, 921_800_000),
};

const LAND_MOBILE_NOTE = '(note) A user who installs land mobile station in Japan must apply to Japanese Ministry of Internal Affairs and Communications.';

/**
 * The four AS923 groups' compatibility plans: the group's two default channels on one radio, which
 * may transmit over 915–928 MHz; with dwell time as the band has it, disabled (`_NDT`) or 400 ms (`_DT`).
 */
function asGroup(band_id: BandId, group: { name: string; subBand: string; channels: [number, number] }): [PlanSpec, PlanSpec, PlanSpec] {
  const [first, second] = group.channels;
  const base: PlanSpec = {
    id: band_id,
    name: `${group.name} with only default channels`,
    description: `Compatibility frequency plan for Asian countries with common channels in the ${group.subBand} MHz sub-band`,
    band_id,
    base_frequency: 915,
    uplink_channels: [ch(first, 0), ch(second, 0)],
    ...concentrator('SX1257', (first + second) / 2, { min: 915_000_000, max: 928_000_000 }),
  };
  return [
    base,
    derive(base, {
      id: `${band_id}_NDT`,
      name: `${group.name} with only default channels and dwell time disabled`,
      description: `${base.description} and dwell time disabled`,
      dwell_time: NO_DWELL_TIME,
    }),
    derive(base, {
      id: `${band_id}_DT`,
      name: `${group.name} with only default channels and dwell time enabled`,
      description: `${base.description} and dwell time enabled`,
      dwell_time: DWELL_TIME_400MS,
    }),
  ];
}

/**
 * TTS names the dwell-time variants of groups 3 and 4 "Asia 920-923 MHz" and describes them with
 * group 2's sub-band (copied from group 2's); here they carry their own group's.
 */
const AS_GROUPS = [
  asGroup('AS_923', { name: 'Asia 915-928 MHz (AS923 Group 1)', subBand: '923.0-923.5', channels: [923_200_000, 923_400_000] }),
  asGroup('AS_923_2', { name: 'Asia 920-923 MHz (AS923 Group 2)', subBand: '921.4-922.0', channels: [921_400_000, 921_600_000] }),
  asGroup('AS_923_3', { name: 'Asia 915-921 MHz (AS923 Group 3)', subBand: '916.5-917.0', channels: [916_600_000, 916_800_000] }),
  asGroup('AS_923_4', { name: 'Asia 917-920 MHz (AS923 Group 4)', subBand: '917.3-917.5', channels: [917_300_000, 917_500_000] }),
];

/** Israel (AS923-4, TTN): channels 1–4 on radio 0 and four more on radio 1, 1 % over the plan's span, no dwell time. */
function israel(id: string, name: string, description: string, upper: readonly number[], radio1: number): PlanSpec {
  return {
    id,
    name,
    description,
    band_id: 'AS_923_4',
    base_frequency: 915,
    sub_bands: [subBand(917_300_000, upper[upper.length - 1], { duty_cycle: 0.01 })],
    dwell_time: NO_DWELL_TIME,
    uplink_channels: [...[917_300_000, 917_500_000, 917_700_000, 917_900_000].map((f) => ch(f, 0)), ...upper.map((f) => ch(f, 1))],
    ...concentrator('SX1257', 917_600_000, { min: 915_000_000, max: 928_000_000 }, radio1),
  };
}

const IL_917_920_TTN = israel(
  'IL_917_920_TTN',
  'Israel 917-920 MHz (channels 1-4 and 11-14)',
  'TTN Community Network frequency plan for Israel using channels 1 to 4 and 11 to 14.',
  [919_300_000, 919_500_000, 919_700_000, 919_900_000],
  919_600_000,
);

const IL_917_920_TTN_2 = israel(
  'IL_917_920_TTN_2',
  'Israel 917-920 MHz (channels 1-7 and 9)',
  'TTN Community Network frequency plan for Israel using channels 1 to 7 and channel 9.',
  [918_100_000, 918_300_000, 918_500_000, 918_900_000],
  918_500_000,
);

const UZ_923_1: PlanSpec = {
  id: 'UZ_923_1',
  name: 'Uzbekistan 915-928 MHz with only default channels',
  description: 'Compatibility frequency plan for Uzbekistan with common channels in the 926.2-926.8 MHz sub-band',
  band_id: 'AS_923',
  base_frequency: 915,
  sub_bands: [subBand(926_200_000, 926_800_000, { max_eirp: 16 })],
  uplink_channels: [ch(926_400_000, 0), ch(926_600_000, 0), ch(926_800_000, 0)],
  rx2: { frequency: '926200000', data_rate_index: 2 },
  ...concentrator('SX1257', 926_600_000, { min: 926_200_000, max: 927_800_000 }, 926_600_000),
};

const KR_920_923_TTN: PlanSpec = {
  id: 'KR_920_923_TTN',
  name: 'South Korea 920-923 MHz',
  description: 'TTN Community Network frequency plan for South Korea',
  band_id: 'KR_920_923',
  base_frequency: 915,
  uplink_channels: [ch(922_100_000, 0), ch(922_300_000, 0), ch(922_500_000, 0), ch(922_700_000, 0), ch(922_900_000, 1), ch(923_100_000, 1), ch(923_300_000, 1)],
  listen_before_talk: LBT_128_US,
  ...concentrator('SX1257', 922_400_000, { min: 920_900_000, max: 923_300_000 }, 923_000_000),
};

const IN_865_867: PlanSpec = {
  id: 'IN_865_867',
  name: 'India 865-867 MHz',
  description: 'Default frequency plan for India',
  band_id: 'IN_865_867',
  base_frequency: 868,
  uplink_channels: [
    ch(865_062_500, 0),
    ch(865_402_500, 0),
    ch(865_985_000, 1),
    ch(865_232_500, 0),
    ch(866_185_000, 1),
    ch(866_385_000, 1),
    ch(866_585_000, 1),
    ch(866_785_000, 1),
  ],
  ...concentrator('SX1257', 865_200_000, { min: 865_000_000, max: 867_000_000, notch: 129_000 }, 866_385_000),
};

/** In the order of TTS's index. */
export const ASIA_PLANS: readonly PlanSpec[] = [
  AS_920_923,
  derive(AS_920_923, {
    id: 'AS_920_923_LBT',
    name: 'Asia 920-923 MHz with LBT',
    description: 'TTN Community Network frequency plan for Asian countries, using frequencies ≤ 923 MHz with listen-before-talk',
    listen_before_talk: LBT_128_US,
  }),
  JP_1,
  derive(JP_1, {
    id: 'AS_920_923_TTN_JP_1_LAND_MOBILE',
    name: 'Japan 920-923 MHz with LBT (channels 31-38), Max EIRP 27 dBm',
    description: `Frequency plan for Japanese land mobile station, using continuous frequencies up to 923.4MHz with MAX EIRP 27 dBm and LBT.\n${LAND_MOBILE_NOTE}`,
    sub_bands: [subBand(922_000_000, 923_400_000, { max_eirp: 27 })],
  }),
  JP_2,
  JP_3,
  derive(JP_3, {
    id: 'AS_920_923_TTN_JP_3_LAND_MOBILE',
    name: 'Japan 920-923 MHz with LBT (channels 24-31), Max EIRP 27 dBm',
    description: `Frequency plan for Japanese land mobile station (16 channels), using continuous frequencies from 920.6 MHz with MAX EIRP 27 dBm and LBT, expected to be used with AS_920_923_TTN_JP_1.\n${LAND_MOBILE_NOTE}`,
    sub_bands: [subBand(920_600_000, 922_000_000, { max_eirp: 27 })],
  }),
  ...AS_GROUPS.map(([base]) => base),
  ...AS_GROUPS.flatMap(([, noDwellTime, dwellTime]) => [noDwellTime, dwellTime]),
  AS_923_925,
  derive(AS_923_925, {
    id: 'AS_923_925_LBT',
    name: 'Asia 923-925 MHz with LBT',
    description: 'TTN Community Network frequency plan for Asian countries, using frequencies ≥ 923 MHz with listen-before-talk',
    listen_before_talk: LBT_128_US,
  }),
  derive(AS_920_923, {
    id: 'AS_920_923_TTN_AU',
    name: 'Asia 920-923 MHz (used by TTN Australia)',
    description: 'TTN Community Network frequency plan for Asia 920-923 MHz in Australia',
    ...TTN_AUSTRALIA,
  }),
  derive(AS_923_925, {
    id: 'AS_923_925_TTN_AU',
    name: 'Asia 923-925 MHz (used by TTN Australia - secondary channels)',
    description: 'TTN Community Network frequency plan for Asia 923-925 MHz in Australia. Secondary channels for 16 channel gateways.',
    ...TTN_AUSTRALIA,
  }),
  KR_920_923_TTN,
  IN_865_867,
  IL_917_920_TTN,
  IL_917_920_TTN_2,
  derive(AS_920_923, {
    id: 'SG_920_923_TTN',
    name: 'Singapore 920-923 MHz',
    description: 'TTN Community Network frequency plan for Singapore',
    sub_bands: [subBand(922_000_000, 923_400_000, { duty_cycle: 0.1 })],
    dwell_time: NO_DWELL_TIME,
  }),
  UZ_923_1,
];
