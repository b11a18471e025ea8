import { apiKeyIdOf, RateLimits } from './rate-limits';

describe('rate limits', () => {
  const id = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFG';

  it('counts an API key by its ID, whatever its secret; other credentials have none', () => {
    expect(apiKeyIdOf(`Bearer NNSXS.${id}.SECRETSECRETSECRET`)).toBe(id);
    expect(apiKeyIdOf(`Bearer nnsxs.${id.toLowerCase()}.secret`)).toBe(id);
    expect(apiKeyIdOf(`Bearer NNSXS.${id.slice(1)}.SECRET`)).toBeUndefined();
    expect(apiKeyIdOf('Bearer some-admin-key-of-16-chars')).toBeUndefined();
    expect(apiKeyIdOf(`Basic NNSXS.${id}.SECRET`)).toBeUndefined();
    expect(apiKeyIdOf(undefined)).toBeUndefined();
  });

  it('is off when both limits are 0', () => {
    expect(new RateLimits({ perKeyPerMin: 0, perAddressPerMin: 0 }).enabled).toBe(false);
    expect(new RateLimits({ perKeyPerMin: 1, perAddressPerMin: 0 }).enabled).toBe(true);
  });
});
