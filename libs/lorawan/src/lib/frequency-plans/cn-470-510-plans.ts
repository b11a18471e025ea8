import { getBand } from './bands';
import type { PlanSpec } from './catalogue';

/**
 * The CN470-510 frequency plans The Things Stack ships (TheThingsNetwork/lorawan-frequency-plans
 * `CN_470_510_FSB_1.yml`, `CN_470_510_FSB_11.yml`): sub-band n is the eight 125 kHz uplink channels
 * 8(n − 1) … 8n − 1 of the band's 96, DR0–DR5; their RX1 downlink channels (channel mod 48) follow
 * from the band. Kept apart from the catalogue, which lists them with one spread.
 */
function subBandPlan(n: number, name: string, description: string): PlanSpec {
  return {
    id: `CN_470_510_FSB_${n}`,
    name,
    description,
    band_id: 'CN_470_510',
    uplink_channels: getBand('CN_470_510')
      .default_channels.slice(8 * (n - 1), 8 * n)
      .map((c) => ({ frequency: c.uplink_frequency, min_data_rate_index: c.min_data_rate_index, max_data_rate_index: c.max_data_rate_index })),
  };
}

export const CN_470_510_PLAN_SPECS: readonly PlanSpec[] = [
  subBandPlan(1, 'China 470-510 MHz, FSB 1', 'CN470 channels 0-7 (470.3-471.7 MHz), RX1 on 500.3-501.7 MHz; the default plan for China'),
  subBandPlan(
    11,
    'China 470-510 MHz, FSB 11 (used by TTN)',
    'CN470 channels 80-87 (486.3-487.7 MHz), RX1 on 506.7-508.1 MHz; The Things Network community plan for China',
  ),
];
