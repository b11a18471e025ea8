import { getBand } from '../bands';
import { concentrator, type PlanSpec } from './plan-spec';

/**
 * CN470-510 by sub-band (TTS `CN_470_510_FSB_1.yml`, `CN_470_510_FSB_11.yml`): sub-band n is the
 * eight 125 kHz uplink channels 8(n − 1) … 8n − 1 of the band's 96 (DR0–DR5), the first four on
 * radio 0 and the last four on radio 1, two SX1255 radios centred 300 kHz and 1.1 MHz above the
 * sub-band's first channel; radio 0 transmits on 470–510 MHz. Their RX1 downlink channels (uplink
 * channel mod 48, 500.3 + 0.2·n MHz) follow from the band.
 */
function fsb(n: number, name: string, description: string): PlanSpec {
  const channels = getBand('CN_470_510').default_channels.slice(8 * (n - 1), 8 * n);
  const first = Number(channels[0].uplink_frequency);
  return {
    id: `CN_470_510_FSB_${n}`,
    name,
    description,
    band_id: 'CN_470_510',
    base_frequency: 470,
    uplink_channels: channels.map((c, i) => ({
      frequency: c.uplink_frequency,
      min_data_rate_index: c.min_data_rate_index,
      max_data_rate_index: c.max_data_rate_index,
      radio: i < 4 ? 0 : 1,
    })),
    ...concentrator('SX1255', first + 300_000, { min: 470_000_000, max: 510_000_000 }, first + 1_100_000),
  };
}

export const CHINA_PLANS: readonly PlanSpec[] = [
  fsb(1, 'China 470-510 MHz, FSB 1', 'Default frequency plan for China, using sub-band 1'),
  fsb(11, 'China 470-510 MHz, FSB 11 (used by TTN)', 'TTN Community Network frequency plan for China, using sub-band 11'),
];
