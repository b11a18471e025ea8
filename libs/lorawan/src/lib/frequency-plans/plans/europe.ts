import { ERP_TO_EIRP } from '../bands';
import { ch, concentrator, derive, fixed, type PlanSpec, subBand } from './plan-spec';

/** Europe and Russia: TTS `EU_863_870.yml` and the plans built on it, `EU_433.yml`, `RU_864_870_TTN.yml`. */

const EU_DESCRIPTION = 'Default frequency plan for Europe';

export const EU_863_870: PlanSpec = {
  id: 'EU_863_870',
  name: 'Europe 863-870 MHz (SF12 for RX2)',
  description: EU_DESCRIPTION,
  band_id: 'EU_863_870',
  base_frequency: 868,
  // The three default channels on radio 1, five more on radio 0.
  uplink_channels: [
    ch(868_100_000, 1),
    ch(868_300_000, 1),
    ch(868_500_000, 1),
    ch(867_100_000, 0),
    ch(867_300_000, 0),
    ch(867_500_000, 0),
    ch(867_700_000, 0),
    ch(867_900_000, 0),
  ],
  lora_standard_channel: fixed(868_300_000, 6, 1),
  fsk_channel: fixed(868_800_000, 7, 1),
  ...concentrator('SX1257', 867_500_000, { min: 863_000_000, max: 870_000_000 }, 868_500_000),
};

const EU_863_870_TTN = derive(EU_863_870, {
  id: 'EU_863_870_TTN',
  name: 'Europe 863-870 MHz (SF9 for RX2 - recommended)',
  description: 'TTN Community Network frequency plan for Europe, using SF9 for RX2',
  rx2: { data_rate_index: 3 },
});

const EU_863_870_ROAMING_DRAFT = derive(EU_863_870, {
  id: 'EU_863_870_ROAMING_DRAFT',
  name: 'Europe 863-870 MHz, 6 channels for roaming (Draft)',
  description: 'European 6 channel plan used by major operators to support LoRaWAN Passive Roaming',
  uplink_channels: [ch(868_100_000, 1), ch(868_300_000, 1), ch(868_500_000, 1), ch(867_100_000, 0), ch(867_300_000, 0), ch(867_900_000, 0)],
});

const EU_868_1 = derive(EU_863_870, {
  id: 'EU_868_1',
  name: 'Europe 868.1 MHz',
  description: 'Single channel frequency plan for Europe (experimental)',
  uplink_channels: [ch(868_100_000, 1)],
});

const EU_433: PlanSpec = {
  id: 'EU_433',
  name: 'Europe 433 MHz (ITU region 1)',
  description: 'Default frequency plan for worldwide 433MHz',
  band_id: 'EU_433',
  base_frequency: 433,
  sub_bands: [subBand(433_050_000, 434_790_000, { duty_cycle: 0.1, max_eirp: 10 + ERP_TO_EIRP })],
  uplink_channels: [
    ch(433_175_000, 0),
    ch(433_375_000, 0),
    ch(433_575_000, 0),
    ch(433_775_000, 0),
    ch(433_975_000, 1),
    ch(434_175_000, 1),
    ch(434_375_000, 1),
    ch(434_575_000, 1),
  ],
  lora_standard_channel: fixed(434_075_000, 6, 1),
  ...concentrator('SX1255', 433_475_000, { min: 433_050_000, max: 434_790_000 }, 434_275_000),
};

const RU_864_870_TTN: PlanSpec = {
  id: 'RU_864_870_TTN',
  name: 'Russia 864-870 MHz',
  description: 'TTN Community Network frequency plan for Russia',
  band_id: 'RU_864_870',
  base_frequency: 868,
  uplink_channels: [ch(868_900_000, 1), ch(869_100_000, 1), ch(864_100_000, 0), ch(864_300_000, 0), ch(864_500_000, 0), ch(864_700_000, 0), ch(864_900_000, 0)],
  ...concentrator('SX1257', 864_500_000, { min: 864_000_000, max: 870_000_000 }, 869_000_000),
};

export const EUROPE_PLANS: readonly PlanSpec[] = [EU_863_870, EU_863_870_TTN, EU_863_870_ROAMING_DRAFT, EU_868_1, EU_433];

export const RUSSIA_PLANS: readonly PlanSpec[] = [RU_864_870_TTN];
