import { deepFreeze } from '../deep-freeze';
import { getBand, hz, rx1DownlinkChannels } from './bands';
import { CN_470_510_PLAN_SPECS } from './cn-470-510-plans';
import type { BandId, DwellTime, FrequencyPlan, FrequencyPlanChannel } from './types';

/**
 * The seed catalogue of frequency plans. Channel facts follow The Things Network's
 * lorawan-frequency-plans (the plans The Things Stack ships); band facts are filled in from `bands.ts`.
 */
export interface PlanSpec {
  id: string;
  name: string;
  description: string;
  band_id: BandId;
  uplink_channels: readonly FrequencyPlanChannel[];
  /** Overrides the band's RX2 data rate (the TTN EU plan uses SF9). */
  rx2_data_rate_index?: number;
  dwell_time?: DwellTime;
}

function plan(spec: PlanSpec): FrequencyPlan {
  const band = getBand(spec.band_id);
  const { rx2_data_rate_index, ...rest } = spec;
  const downlinkChannels = rx1DownlinkChannels(
    band,
    spec.uplink_channels.map((c) => c.frequency),
  );
  return {
    ...rest,
    ...(downlinkChannels ? { downlink_channels: downlinkChannels } : {}),
    rx2: { frequency: band.default_rx2.frequency, data_rate_index: rx2_data_rate_index ?? band.default_rx2.data_rate_index },
    max_eirp: band.default_max_eirp,
    rx1_delay: band.rx1_delay,
    sub_bands: band.sub_bands,
    ...(band.ping_slot_frequency ? { ping_slot_frequency: band.ping_slot_frequency } : {}),
    ...(band.beacon_frequency ? { beacon_frequency: band.beacon_frequency } : {}),
  };
}

function channels(frequencies: readonly number[], maxDataRateIndex: number): FrequencyPlanChannel[] {
  return frequencies.map((f) => ({ frequency: hz(f), min_data_rate_index: 0, max_data_rate_index: maxDataRateIndex }));
}

/** Sub-band `n` (1–8) of a 72-channel band: eight 125 kHz channels and the matching 500 kHz channel. */
function subBand(bandId: BandId, n: number): FrequencyPlanChannel[] {
  const all = getBand(bandId).default_channels;
  return [...all.slice(8 * (n - 1), 8 * n), all[64 + n - 1]].map((c) => ({
    frequency: c.uplink_frequency,
    min_data_rate_index: c.min_data_rate_index,
    max_data_rate_index: c.max_data_rate_index,
  }));
}

const EU_868_CHANNELS = channels([868_100_000, 868_300_000, 868_500_000, 867_100_000, 867_300_000, 867_500_000, 867_700_000, 867_900_000], 5);

const SPECS: readonly PlanSpec[] = [
  {
    id: 'EU_863_870',
    name: 'Europe 863-870 MHz (RX2 SF12)',
    description: 'EU868 with the eight usual channels; RX2 on 869.525 MHz at SF12, the regional default',
    band_id: 'EU_863_870',
    uplink_channels: EU_868_CHANNELS,
  },
  {
    id: 'EU_863_870_TTN',
    name: 'Europe 863-870 MHz (RX2 SF9)',
    description: 'EU868 as The Things Network runs it: the same eight channels, RX2 on 869.525 MHz at SF9 (DR3)',
    band_id: 'EU_863_870',
    uplink_channels: EU_868_CHANNELS,
    rx2_data_rate_index: 3,
  },
  {
    id: 'US_902_928_FSB_2',
    name: 'United States 902-928 MHz, sub-band 2',
    description: 'US915 channels 8-15 (903.9-905.3 MHz) and 65 (904.6 MHz, 500 kHz), the sub-band The Things Network uses; also Canada',
    band_id: 'US_902_928',
    uplink_channels: subBand('US_902_928', 2),
    dwell_time: { uplinks: true, downlinks: false },
  },
  {
    id: 'AU_915_928_FSB_2',
    name: 'Australia 915-928 MHz, sub-band 2',
    description: 'AU915 channels 8-15 (916.8-918.2 MHz) and 65 (917.5 MHz, 500 kHz), the sub-band The Things Network uses',
    band_id: 'AU_915_928',
    uplink_channels: subBand('AU_915_928', 2),
    dwell_time: { downlinks: false },
  },
  {
    id: 'AS_923',
    name: 'Asia 923 MHz (group 1), default channels only',
    description: 'AS923 group 1 with only the two channels every device knows (923.2 and 923.4 MHz)',
    band_id: 'AS_923',
    uplink_channels: channels([923_200_000, 923_400_000], 5),
  },
  {
    id: 'IN_865_867',
    name: 'India 865-867 MHz',
    description: 'IN865 with the three default channels and five more',
    band_id: 'IN_865_867',
    uplink_channels: channels([865_062_500, 865_402_500, 865_985_000, 865_232_500, 866_185_000, 866_385_000, 866_585_000, 866_785_000], 5),
  },
  ...CN_470_510_PLAN_SPECS,
];

const PLANS: readonly FrequencyPlan[] = deepFreeze(SPECS.map(plan));

const BY_ID = new Map(PLANS.map((p) => [p.id, p]));

export const FREQUENCY_PLAN_IDS: readonly string[] = Object.freeze(PLANS.map((p) => p.id));

export function getFrequencyPlan(id: string): FrequencyPlan | undefined {
  return BY_ID.get(id);
}

export function listFrequencyPlans(): FrequencyPlan[] {
  return [...PLANS];
}
