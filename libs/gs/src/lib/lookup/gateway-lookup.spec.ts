import type { GetGatewayForEUIResponse as GatewayResolution } from '@lorawan/api';
import { GatewayLookup, type GatewayLookupOptions } from './gateway-lookup';

const KNOWN = 'AA555A0000000101';
const gateway = (eui: string): GatewayResolution => ({ ids: { gateway_id: `gtw-${eui.slice(-2)}`, eui }, frequency_plan_ids: ['EU_863_870_TTN'] });
const randomEui = () =>
  Math.floor(Math.random() * 2 ** 48)
    .toString(16)
    .toUpperCase()
    .padStart(16, '0');

function setup(options: Partial<GatewayLookupOptions> = {}) {
  const asked: string[] = [];
  let known = new Set([KNOWN]);
  let fail = false;
  const lookup = new GatewayLookup({ unknownCacheSize: 100, unknownCacheTtlMs: 60_000, lookupsPerSec: 0, ...options }, async (eui) => {
    asked.push(eui);
    await new Promise((r) => setImmediate(r));
    if (fail) throw new Error('registry unavailable');
    return known.has(eui) ? gateway(eui) : undefined;
  });
  return { lookup, asked, register: (eui: string) => (known = new Set([...known, eui])), failing: (f: boolean) => (fail = f) };
}

describe('GatewayLookup', () => {
  it('answers found or unknown, and remembers the unknown: its next lookups ask nothing', async () => {
    const { lookup, asked } = setup();
    expect(await lookup.lookup(KNOWN)).toEqual({ status: 'found', gateway: gateway(KNOWN) });
    const eui = randomEui();
    for (let i = 0; i < 5; i++) expect(await lookup.lookup(eui)).toEqual({ status: 'unknown' });
    expect(asked).toEqual([KNOWN, eui]);
  });

  it('shares one call between concurrent lookups of an EUI', async () => {
    const { lookup, asked } = setup();
    const results = await Promise.all(Array.from({ length: 10 }, () => lookup.lookup(KNOWN)));
    expect(new Set(results.map((r) => r.status))).toEqual(new Set(['found']));
    expect(asked).toHaveLength(1);
  });

  it('asks at most the rate: a flood of random EUIs gets throttled answers beyond it', async () => {
    const { lookup, asked } = setup({ lookupsPerSec: 20 });
    const results = await Promise.all(Array.from({ length: 1000 }, () => lookup.lookup(randomEui())));
    expect(asked.length).toBeGreaterThanOrEqual(20);
    expect(asked.length).toBeLessThanOrEqual(21);
    expect(results.filter((r) => r.status === 'throttled')).toHaveLength(1000 - asked.length);
  });

  it('bounds what it remembers, and forgets an EUI after the TTL or when a gateway is registered with it', async () => {
    const { lookup, asked, register } = setup({ unknownCacheSize: 2, unknownCacheTtlMs: 50 });
    const [a, b, c] = [randomEui(), randomEui(), randomEui()];
    for (const eui of [a, b, c, a]) await lookup.lookup(eui);
    expect(asked).toEqual([a, b, c, a]);
    await lookup.lookup(c);
    expect(asked).toHaveLength(4);
    register(c);
    lookup.forget(c.toLowerCase());
    expect(await lookup.lookup(c)).toEqual({ status: 'found', gateway: gateway(c) });
    await new Promise((r) => setTimeout(r, 60));
    await lookup.lookup(a);
    expect(asked).toEqual([a, b, c, a, c, a]);
  });

  it('does not remember an answer that a registration overtook', async () => {
    const { lookup, asked } = setup();
    const eui = randomEui();
    const pending = lookup.lookup(eui);
    lookup.forget(eui);
    expect(await pending).toEqual({ status: 'unknown' });
    await lookup.lookup(eui);
    expect(asked).toEqual([eui, eui]);
  });

  it('rejects when the IS is away, and remembers nothing', async () => {
    const { lookup, asked, failing } = setup();
    failing(true);
    await expect(lookup.lookup(KNOWN)).rejects.toThrow('registry unavailable');
    failing(false);
    expect((await lookup.lookup(KNOWN)).status).toBe('found');
    expect(asked).toEqual([KNOWN, KNOWN]);
  });
});
