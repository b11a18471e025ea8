/**
 * The HTTP API's abuse limits (docs/configuration.md: RATE_LIMIT_API_KEY_PER_MIN,
 * RATE_LIMIT_ADDRESS_PER_MIN, EVENTS_MAX_STREAMS_PER_KEY), on a stack started with small ones:
 * over a limit the answer is TTS's `pkg/ratelimit:rate_limit_exceeded` (429, `Retry-After`, the
 * `X-Rate-Limit-*` headers), and nothing else is refused: other credentials, the probes.
 */
import { startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { EventStream } from './event-stream';
import { Api, type ApiResponse } from './http-client';

interface Status {
  code?: number;
  message?: string;
  details?: Array<{ namespace?: string; name?: string; attributes?: Record<string, unknown> }>;
}

function expectRateLimited(res: ApiResponse, resource: RegExp | string, rate: number): void {
  expect(res.status).toBe(429);
  const body = res.json as Status;
  expect(body.code).toBe(8);
  expect(body.details?.[0]).toMatchObject({ namespace: 'pkg/ratelimit', name: 'rate_limit_exceeded', attributes: { rate } });
  const key = String(body.details?.[0]?.attributes?.key);
  if (typeof resource === 'string') expect(key).toBe(resource);
  else expect(key).toMatch(resource);
  expect(body.message).toBe(`error:pkg/ratelimit:rate_limit_exceeded (rate limit of \`${rate}\` accesses per minute exceeded for resource \`${key}\`)`);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers.get('x-rate-limit-limit')).toBe(String(rate));
  expect(res.headers.get('x-rate-limit-available')).toBe('0');
  expect(res.headers.get('x-rate-limit-retry')).toBe(String(retryAfter));
}

describe('abuse limits: per API key, and event streams per credential', () => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const streams: EventStream[] = [];

  beforeAll(async () => {
    stack = await startEmbeddedStack({ env: { RATE_LIMIT_API_KEY_PER_MIN: '5', RATE_LIMIT_ADDRESS_PER_MIN: '0', EVENTS_MAX_STREAMS_PER_KEY: '2' } });
  }, 120_000);
  afterAll(async () => {
    for (const s of streams) s.close();
    await stack?.stop();
  });

  it('serves a key 5 requests a minute, then answers 429 in the TTS shape, also to a wrong secret; other credentials and the probes go on', async () => {
    const created = await api.post('/api/v3/users/admin/api-keys', { name: 'limited', rights: ['RIGHT_USER_ALL'] });
    expect(created.status).toBe(200);
    const token = (created.json as { key: string }).key;
    const id = (created.json as { id: string }).id;
    const asKey = { headers: { authorization: `Bearer ${token}` } };
    for (let i = 0; i < 5; i++) {
      const res = await api.get('/api/v3/users/admin', asKey);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-rate-limit-limit')).toBe('5');
      expect(res.headers.get('x-rate-limit-available')).toBe(String(4 - i));
    }
    expectRateLimited(await api.get('/api/v3/users/admin', asKey), `http:api:token:${id}`, 5);
    // Counted by the key's ID, before the secret is checked: guessing secrets does not reset it.
    const [prefix, keyId] = token.split('.');
    const wrongSecret = await api.get('/api/v3/users/admin', { headers: { authorization: `Bearer ${prefix}.${keyId}.${'A'.repeat(64)}` } });
    expectRateLimited(wrongSecret, `http:api:token:${id}`, 5);
    // Nothing was changed by the refused requests, and the admin key is not this key.
    expect((await api.get('/api/v3/users/admin')).status).toBe(200);
    expect((await fetch(`${stack.baseUrl}/healthz`)).status).toBe(200);
  });

  it('refuses a third event stream of one credential while two are open (429 too_many_streams), and takes it once one closed', async () => {
    const open = (authorization: string) =>
      EventStream.open(stack.baseUrl, { authorization, body: { identifiers: [{ user_ids: { user_id: 'admin' } }] } }).then((s) => {
        streams.push(s);
        return s;
      });
    const admin = `Bearer ${stack.adminKey}`;
    const first = await open(admin);
    const second = await open(admin);
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await open(admin);
    expect(third.status).toBe(429);
    expect(third.json?.error).toMatchObject({
      code: 8,
      details: [{ namespace: 'pkg/events', name: 'too_many_streams', attributes: { open: 2, max: 2 } }],
    });
    first.close();
    // The gateway forgets the closed stream when its socket closes.
    let again: EventStream | undefined;
    for (let attempt = 0; attempt < 50 && again?.status !== 200; attempt++) {
      if (again) again.close();
      await new Promise((r) => setTimeout(r, 100));
      again = await open(admin);
    }
    expect(again?.status).toBe(200);
  });
});

describe('abuse limits: per source address', () => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);

  beforeAll(async () => {
    stack = await startEmbeddedStack({ env: { RATE_LIMIT_API_KEY_PER_MIN: '0', RATE_LIMIT_ADDRESS_PER_MIN: '6' } });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('serves an address 6 requests a minute whatever the credentials, then 429; the probes and metrics are not counted', async () => {
    for (let i = 0; i < 6; i++) {
      expect((await fetch(`${stack.baseUrl}/healthz`)).status).toBe(200);
      const res = await api.get('/api/v3/users/admin');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-rate-limit-available')).toBe(String(5 - i));
    }
    expectRateLimited(await api.get('/api/v3/users/admin'), /^http:api:ip:(?:::ffff:)?127\.0\.0\.1$/, 6);
    // No credential at all: still the address's limit, not a 401.
    expectRateLimited(await api.get('/api/v3/users/admin', { headers: {} }), /^http:api:ip:/, 6);
    // CUPS (POST /update-info, a gateway key check each) counts against the same limit.
    expectRateLimited(await api.post('/update-info', { router: '0000000000000001' }), /^http:api:ip:/, 6);
    expect((await fetch(`${stack.baseUrl}/metrics`)).status).not.toBe(429);
    expect(api.serverErrors).toEqual([]);
  });
});
