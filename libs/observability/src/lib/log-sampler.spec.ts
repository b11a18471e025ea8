import { LogSampler } from './log-sampler';

describe('LogSampler', () => {
  it('lets the first line of a kind through per interval, with the count held back since the last', () => {
    let now = 0;
    const sampler = new LogSampler(1000, () => now);
    expect(sampler.sample('unknown_gateway')).toBe(0);
    expect(sampler.sample('unknown_gateway')).toBeUndefined();
    expect(sampler.sample('lookup_throttled')).toBe(0);
    now = 999;
    expect(sampler.sample('unknown_gateway')).toBeUndefined();
    now = 1000;
    expect(sampler.sample('unknown_gateway')).toBe(2);
    expect(sampler.sample('unknown_gateway')).toBeUndefined();
    now = 5000;
    expect(sampler.sample('unknown_gateway')).toBe(1);
    expect(sampler.sample('lookup_throttled')).toBe(0);
  });
});
