import { MAX_RTTS, RoundTripTimes, RTT_TTL_MS } from './round-trip-times';

describe('RoundTripTimes (TTS io.rtts)', () => {
  it('gives the median and a percentile of the latest round trips, forgetting old ones', () => {
    const rtts = new RoundTripTimes();
    expect(rtts.stats(90, 0)).toBeUndefined();
    for (let i = 1; i <= 10; i++) rtts.record(i * 10, 1000);
    expect(rtts.stats(90, 1000)).toEqual({ min: 10, max: 100, median: 55, percentile: 90, count: 10 });
    expect(rtts.stats(90, 1000 + RTT_TTL_MS + 1)).toBeUndefined();
    for (let i = 0; i < 2 * MAX_RTTS; i++) rtts.record(500, 2000);
    expect(rtts.stats(50, 2000)).toMatchObject({ median: 500, count: MAX_RTTS });
  });
});
