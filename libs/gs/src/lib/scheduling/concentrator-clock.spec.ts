import { ConcentratorClock, RESET_TOLERANCE_US } from './concentrator-clock';

const WRAP = 2 ** 32;

describe('ConcentratorClock (TTS RolloverClock)', () => {
  it('runs on server time until an uplink anchors it, and keeps that timeline when one does', () => {
    const clock = new ConcentratorClock();
    expect(clock.synced).toBe(false);
    expect(clock.fromServerTime(10_000_000)).toBe(10_000_000);
    expect(clock.fromTimestamp(5, 10_000_000)).toBeUndefined();
    expect(clock.toTimestamp(10_000_000)).toBeUndefined();
    // The uplink arrived at server time 12 s: it takes that place on the timeline.
    expect(clock.sync(4_000_000_000, 12_000_000)).toBe(12_000_000);
    expect(clock.synced).toBe(true);
    expect(clock.fromServerTime(13_000_000)).toBe(13_000_000);
    expect(clock.fromTimestamp(4_001_000_000, 12_000_000)).toBe(13_000_000);
  });

  it('unwraps the 32-bit timestamp across a rollover, both ways', () => {
    const clock = new ConcentratorClock();
    const base = clock.sync(WRAP - 1_000_000, 1_000_000_000);
    // 3 s later the counter has wrapped: 2 s past zero.
    expect(clock.fromTimestamp(2_000_000, 1_000_000_000)).toBe(base + 3_000_000);
    expect(clock.toTimestamp(base + 3_000_000)).toBe(2_000_000);
    // A class A window 5 s after an uplink just before the rollover.
    expect(clock.toTimestamp(base + 5_000_000)).toBe(4_000_000);
    // Timestamps just before the anchor stay before it.
    expect(clock.fromTimestamp(WRAP - 2_000_000, 1_000_000_000)).toBe(base - 1_000_000);
    // The next uplink, after the rollover, continues the timeline.
    expect(clock.sync(3_000_000, 1_004_000_000)).toBe(base + 4_000_000);
  });

  it('counts the rollovers of a gateway silent for longer than one (71.6 min) by the server time elapsed', () => {
    const clock = new ConcentratorClock();
    const base = clock.sync(100, 0);
    const silent = 2 * WRAP + 7_000_000; // two rollovers and 7 s
    expect(clock.sync(100 + 7_000_000, silent)).toBe(base + silent);
  });

  it('re-anchors where the server time says when the concentrator restarted (its timestamp fits no rollover)', () => {
    const clock = new ConcentratorClock();
    const base = clock.sync(3_000_000_000, 50_000_000);
    expect(clock.restarted).toBe(false);
    const after = clock.sync(1_000, 50_000_000 + 10_000_000);
    expect(after).toBe(base + 10_000_000);
    expect(clock.restarted).toBe(true);
    expect(clock.toTimestamp(after + 1_000_000)).toBe(1_001_000);
    // Within the tolerance the timestamp wins over the server's estimate (network latency, drift).
    const late = clock.sync(1_000 + 20_000_000 - RESET_TOLERANCE_US + 1, 50_000_000 + 30_000_000);
    expect(late).toBe(after + 20_000_000 - RESET_TOLERANCE_US + 1);
  });
});
