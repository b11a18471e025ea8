import { TokenBucket } from './token-bucket';

describe('TokenBucket', () => {
  it('allows the burst at once, then the rate', () => {
    let now = 0;
    const bucket = new TokenBucket(10, 10, () => now);
    const taken = () => Array.from({ length: 20 }, () => bucket.take()).filter(Boolean).length;
    expect(taken()).toBe(10);
    now = 500;
    expect(taken()).toBe(5);
    now = 10_000;
    expect(taken()).toBe(10);
  });
});
