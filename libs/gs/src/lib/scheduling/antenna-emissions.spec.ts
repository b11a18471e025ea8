import { timeOnAirUs } from '@lorawan/lorawan';
import { AntennaEmissions } from './antenna-emissions';
import { ErrConflict } from '../errors';
import { offAirUs, overlapsWithOffAir, QUEUE_DELAY_US, resolveTimeOffAir } from './emission';

const at = (starts_us: number, duration_us: number) => ({ starts_us, duration_us });

describe('emissions of one antenna', () => {
  let now: number;
  let antenna: AntennaEmissions;
  beforeEach(() => {
    now = 1_000_000;
    antenna = new AntennaEmissions(() => now);
  });

  it('keeps the radio off the air for at least the queue delay (30 ms) after each emission', () => {
    expect(antenna.timeOffAir).toEqual({ fraction: 0, duration_us: QUEUE_DELAY_US });
    expect(resolveTimeOffAir({ duration_us: 10_000 }).duration_us).toBe(QUEUE_DELAY_US);
    expect(resolveTimeOffAir({ fraction: 0.1, duration_us: 50_000 })).toEqual({ fraction: 0.1, duration_us: 50_000 });
    // A fraction of a long emission is longer than the minimum.
    expect(offAirUs(at(0, 1_000_000), resolveTimeOffAir({ fraction: 0.1 }))).toBe(100_000);
    expect(offAirUs(at(0, 100_000), resolveTimeOffAir({ fraction: 0.1 }))).toBe(QUEUE_DELAY_US);
  });

  it('refuses an emission that overlaps a recorded one, with TTS conflict', () => {
    antenna.record(at(2_000_000, 41_216));
    const refused = antenna.check(at(2_020_000, 41_216));
    expect(ErrConflict.matches(refused)).toBe(true);
    expect(refused?.toDetails()).toMatchObject({
      namespace: 'pkg/gatewayserver/scheduling',
      name: 'conflict',
      code: 6,
      attributes: { conflict_starts_us: 2_000_000, conflict_ends_us: 2_041_216 },
    });
    // Wholly inside, wholly around, and starting at the same time.
    expect(antenna.check(at(2_010_000, 1_000))).toBeDefined();
    expect(antenna.check(at(1_900_000, 500_000))).toBeDefined();
    expect(antenna.check(at(2_000_000, 41_216))).toBeDefined();
  });

  it('counts the time off air after the earlier emission, whichever is recorded first', () => {
    antenna.record(at(2_000_000, 40_000)); // the radio is free again at 2 070 000
    expect(antenna.check(at(2_069_999, 10_000))).toBeDefined();
    expect(antenna.check(at(2_070_000, 10_000))).toBeUndefined();
    // Before it: the new one's own time off air must end by 2 000 000.
    expect(antenna.check(at(1_960_000, 10_001))).toBeDefined();
    expect(antenna.check(at(1_960_000, 10_000))).toBeUndefined();
    expect(overlapsWithOffAir(at(1_960_000, 10_000), at(2_000_000, 40_000), antenna.timeOffAir)).toBe(false);
  });

  it('takes a plan’s time off air as a fraction of the emission', () => {
    const lbt = new AntennaEmissions(() => now, { fraction: 0.5 });
    lbt.record(at(2_000_000, 400_000)); // off the air for 200 ms after it
    expect(lbt.check(at(2_599_999, 1_000))).toBeDefined();
    expect(lbt.check(at(2_600_000, 1_000))).toBeUndefined();
  });

  it('lets emissions in the gaps between recorded ones, and finds the first gap that fits', () => {
    const sf7 = timeOnAirUs(13, { lora: { spreading_factor: 7, bandwidth: 125_000 } }, { direction: 'downlink' });
    antenna.record(at(2_000_000, 100_000)); // free at 2 130 000
    antenna.record(at(2_200_000, 100_000)); // free at 2 330 000
    antenna.record(at(3_000_000, 100_000));
    // 70 ms between the first two: not enough for 41 ms plus 30 ms off air, the next gap is.
    expect(antenna.check(at(2_130_000, sf7))).toBeDefined();
    expect(antenna.earliestStart(2_000_000, sf7)).toBe(2_330_000);
    expect(antenna.check(at(2_330_000, sf7))).toBeUndefined();
    // A 40 ms emission fits the first gap exactly: it ends with its time off air at 2 200 000.
    expect(antenna.earliestStart(1_990_000, 40_000)).toBe(2_130_000);
    // Free from the start, or only after the last one.
    expect(antenna.earliestStart(1_500_000, 100_000)).toBe(1_500_000);
    expect(antenna.earliestStart(2_900_000, 1_000_000)).toBe(3_130_000);
  });

  it('forgets emissions after which the radio is free, as the clock moves, and keeps the others', () => {
    for (let i = 0; i < 10; i++) antenna.record(at(2_000_000 + i * 1_000_000, 50_000));
    expect(antenna.size).toBe(10);
    now = 4_080_000; // the third is free at 4 080 000
    expect(antenna.check(at(5_000_000, 10_000))).toBeDefined();
    expect(antenna.size).toBe(7);
    now = 100_000_000;
    expect(antenna.check(at(100_000_000, 10_000))).toBeUndefined();
    expect(antenna.size).toBe(0);
  });

  it('stays bounded under a sustained schedule: what it remembers is what is still to come', () => {
    for (let i = 0; i < 100_000; i++) {
      now = 1_000_000 + i * 100_000;
      const em = at(now + 2_000_000, 50_000);
      expect(antenna.check(em)).toBeUndefined();
      antenna.record(em);
    }
    // Each is scheduled 2 s ahead and the radio is free 80 ms after its start: the 21 of the last 2.08 s remain.
    expect(antenna.size).toBe(21);
  });
});
