import { getBand } from '../bands';
import type { DwellTime, FrequencyPlanChannel } from '../types';
import { concentrator, derive, fixed, type PlanSpec } from './plan-spec';

/**
 * US902-928 and AU915-928 by sub-band (TTS `US_902_928_FSB_<n>.yml`, `AU_915_928_FSB_<n>.yml`,
 * `AU_915_928_FSB_<n>_BR.yml`), and the single-channel US plans (`US_903_0.yml` …).
 *
 * Sub-band n is channels 8(n-1)…8n-1 (125 kHz, 200 kHz apart, the first four on radio 0 and the
 * last four on radio 1) and the wide channel 63+n (500 kHz in US915 at DR4, AU915 at DR6, received
 * as the LoRa standard channel of radio 0). The radios are centred 400 kHz and 1.1 MHz above the
 * sub-band's first channel; radio 0 transmits on the band's downlink range.
 */

const FSB_NUMBERS = [1, 2, 3, 4, 5, 6, 7, 8] as const;

type Region = 'US' | 'AU';

const REGION = {
  US: { band_id: 'US_902_928', tx: { min: 923_000_000, max: 928_000_000 }, dwell_time: { uplinks: true, downlinks: false } },
  AU: { band_id: 'AU_915_928', tx: { min: 915_000_000, max: 928_000_000 }, dwell_time: { downlinks: false } },
} as const;

const COUNTRIES = {
  US: 'the United States and Canada',
  AU: 'Australia',
} as const;

/** The nine uplink channels of sub-band `n`: eight 125 kHz ones and the wide one, from the band's 72. */
function fsbChannels(region: Region, n: number): FrequencyPlanChannel[] {
  const all = getBand(REGION[region].band_id).default_channels;
  const narrow = all.slice(8 * (n - 1), 8 * n).map((c, i) => ({ ...channelOf(c), radio: i < 4 ? 0 : 1 }));
  return [...narrow, { ...channelOf(all[64 + n - 1]), radio: 0 }];
}

function channelOf(c: { uplink_frequency: string; min_data_rate_index: number; max_data_rate_index: number }): FrequencyPlanChannel {
  return { frequency: c.uplink_frequency, min_data_rate_index: c.min_data_rate_index, max_data_rate_index: c.max_data_rate_index };
}

function fsbName(region: Region, n: number, brazil: boolean): string {
  if (brazil) return `Brazil 915-928 MHz, FSB ${n} (dwell time disabled)`;
  const name = region === 'US' ? `United States 902-928 MHz, FSB ${n}` : `Australia 915-928 MHz, FSB ${n}`;
  return n === 2 ? `${name} (used by TTN)` : name;
}

function fsbDescription(region: Region, n: number, brazil: boolean): string {
  const suffix = brazil ? ' (Brazil)' : '';
  if (n === 2) return `TTN Community Network frequency plan for ${COUNTRIES[region]}, using sub-band 2${suffix}`;
  if (region === 'AU' && n === 6) return `Frequency plan for Australia, using sub-band 6, which overlaps with Asia 923-925 MHz${suffix}`;
  return `Default frequency plan for ${COUNTRIES[region]}, using sub-band ${n}${suffix}`;
}

function fsb(region: Region, n: number, brazil = false): PlanSpec {
  const { band_id, tx, dwell_time } = REGION[region];
  const channels = fsbChannels(region, n);
  const first = Number(channels[0].frequency);
  const wide = channels[8];
  const noDwellTime: DwellTime = { uplinks: false, downlinks: false };
  return {
    id: `${band_id}_FSB_${n}${brazil ? '_BR' : ''}`,
    name: fsbName(region, n, brazil),
    description: fsbDescription(region, n, brazil),
    band_id,
    base_frequency: 915,
    uplink_channels: channels,
    lora_standard_channel: fixed(Number(wide.frequency), wide.min_data_rate_index, 0),
    dwell_time: brazil ? noDwellTime : dwell_time,
    ...concentrator('SX1257', first + 400_000, tx, first + 1_100_000),
  };
}

const US_PLANS = FSB_NUMBERS.map((n) => fsb('US', n));

/**
 * A single-channel US plan on sub-band n's wide-channel frequency, used at DR0–DR3 (experimental in
 * TTS; 24.15 dBm EIRP). Downlinks stay on the band's 500 kHz channels.
 */
function usSingleChannel(n: number): PlanSpec {
  const base = US_PLANS[n - 1];
  const frequency = base.lora_standard_channel?.frequency ?? '';
  const mhz = (Number(frequency) / 1e6).toFixed(1);
  return derive(base, {
    id: `US_${mhz.replace('.', '_')}`,
    name: `United States ${mhz} MHz`,
    description: 'Single channel frequency plan for United States (experimental)',
    uplink_channels: [{ frequency, min_data_rate_index: 0, max_data_rate_index: 3, radio: 1 }],
    max_eirp: 24.15,
  });
}

export const US_915_PLANS: readonly PlanSpec[] = [...US_PLANS, ...FSB_NUMBERS.map(usSingleChannel)];

export const AU_915_PLANS: readonly PlanSpec[] = [...FSB_NUMBERS.map((n) => fsb('AU', n)), ...FSB_NUMBERS.map((n) => fsb('AU', n, true))];
