import { isRetryableStatus, retryBackoffMs } from './retry-policy';

describe('retry policy', () => {
  const config = { retryBaseMs: 1000, retryMaxMs: 300_000 };

  it.each([
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [9, 256_000],
    [10, 300_000],
    [40, 300_000],
  ])('backoff before retry %i lies in [d/2, d] with d = %i', (n, d) => {
    expect(retryBackoffMs(n, config, () => 0)).toBe(d / 2);
    expect(retryBackoffMs(n, config, () => 0.999999)).toBe(d);
    for (let i = 0; i < 100; i++) {
      const ms = retryBackoffMs(n, config);
      expect(ms).toBeGreaterThanOrEqual(d / 2);
      expect(ms).toBeLessThanOrEqual(d);
    }
  });

  it.each([500, 502, 503, 504, 599, 408, 425, 429])('retries status %i', (status) => expect(isRetryableStatus(status)).toBe(true));
  it.each([300, 301, 302, 304, 307, 308, 400, 401, 403, 404, 405, 409, 410, 413, 422])('gives up on status %i', (status) =>
    expect(isRetryableStatus(status)).toBe(false),
  );
});
