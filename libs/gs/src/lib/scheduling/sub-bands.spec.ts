import { getFrequencyPlan } from '@lorawan/lorawan';
import { ErrDutyCycle, ErrSubBandNotFound } from '../errors';
import { SubBands } from './sub-bands';

const plan = getFrequencyPlan('EU_863_870_TTN');
if (!plan) throw new Error('EU_863_870_TTN missing from the catalogue');
const S = 1_000_000;

describe('the sub-bands of a gateway', () => {
  let now: number;
  const clock = () => now;
  beforeEach(() => {
    now = 0;
  });

  it('counts each emission in the sub-band of its frequency, the first listed on a shared bound', () => {
    const subBands = new SubBands(plan.sub_bands, clock);
    expect(subBands.find('868100000')?.duty_cycle).toBe(0.01);
    expect(subBands.find('869525000')?.duty_cycle).toBe(0.1);
    expect(subBands.find('868000000')?.max_frequency).toBe(868_000_000);
    // RX2 on 869.525 MHz (10 %) takes 252 s of NORMAL airtime an hour; 868.1 MHz (1 %) 25.2 s, apart.
    expect(subBands.check('869525000', { starts_us: S, duration_us: 252 * S }, 'NORMAL')).toBeUndefined();
    subBands.record('869525000', { starts_us: S, duration_us: 252 * S });
    expect(subBands.check('868100000', { starts_us: S, duration_us: 25_200_000 }, 'NORMAL')).toBeUndefined();
    expect(ErrDutyCycle.matches(subBands.check('869525000', { starts_us: 300 * S, duration_us: 1 }, 'NORMAL'))).toBe(true);
    expect(ErrDutyCycle.matches(subBands.check('868100000', { starts_us: 300 * S, duration_us: 25_200_001 }, 'NORMAL'))).toBe(true);
  });

  it('refuses a frequency in none of the sub-bands (TTS sub_band_not_found) and does not count it', () => {
    const subBands = new SubBands(plan.sub_bands, clock);
    const refused = subBands.check('869300000', { starts_us: S, duration_us: 1000 }, 'HIGHEST');
    expect(ErrSubBandNotFound.matches(refused)).toBe(true);
    expect(refused?.toDetails()).toMatchObject({
      namespace: 'pkg/gatewayserver/scheduling',
      name: 'sub_band_not_found',
      attributes: { frequency: '869300000' },
    });
    subBands.record('869300000', { starts_us: S, duration_us: 1000 });
    expect(subBands.sub_bands.every((subBand) => subBand.size === 0)).toBe(true);
  });

  it('reports each sub-band’s utilization next to its limit, as TTS’s connection stats do', () => {
    const subBands = new SubBands(plan.sub_bands, clock);
    subBands.record('869525000', { starts_us: 0, duration_us: 36 * S });
    now = 3600 * S;
    expect(subBands.stats()).toContainEqual({
      min_frequency: '869400000',
      max_frequency: '869650000',
      downlink_utilization_limit: 0.1,
      downlink_utilization: 0.01,
    });
    expect(subBands.stats()).toContainEqual({
      min_frequency: '868000000',
      max_frequency: '868600000',
      downlink_utilization_limit: 0.01,
      downlink_utilization: 0,
    });
    expect(subBands.stats()).toHaveLength(plan.sub_bands.length);
  });

  it('counts a sub-band that several plans list once, and refuses plans whose sub-bands overlap otherwise', () => {
    expect(new SubBands([...plan.sub_bands, ...plan.sub_bands], clock).sub_bands).toHaveLength(plan.sub_bands.length);
    const of = (min: number, max: number, duty_cycle: number) => ({ min_frequency: String(min), max_frequency: String(max), duty_cycle });
    expect(() => new SubBands([of(868_000_000, 868_600_000, 0.01), of(868_500_000, 869_000_000, 0.01)], clock)).toThrow(/overlap/);
    expect(() => new SubBands([of(868_000_000, 868_600_000, 0.01), of(868_000_000, 868_600_000, 0.1)], clock)).toThrow(/duty cycles/);
  });

  it('has one sub-band without limit over every frequency when the gateway does not enforce duty cycle', () => {
    const subBands = new SubBands(plan.sub_bands, clock, { enforce_duty_cycle: false });
    expect(subBands.sub_bands).toHaveLength(1);
    expect(subBands.check('869300000', { starts_us: S, duration_us: 3600 * S }, 'LOWEST')).toBeUndefined();
    subBands.record('869300000', { starts_us: 0, duration_us: 360 * S });
    now = 3600 * S;
    expect(subBands.stats()).toEqual([
      { min_frequency: '0', max_frequency: String(Number.MAX_SAFE_INTEGER), downlink_utilization_limit: 1, downlink_utilization: 0.1 },
    ]);
  });
});
