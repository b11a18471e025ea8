import { InProcessBroker } from '@lorawan/transport';
import { ApplicationCache } from './application-cache';

describe('ApplicationCache', () => {
  let transport: InProcessBroker;
  let loads: string[];
  let value: number;
  const cache = (ttlMs = 60_000) => {
    const c = new ApplicationCache<number>(
      'test',
      async (app) => {
        loads.push(app);
        return value;
      },
      ttlMs,
      transport,
    );
    c.start();
    return c;
  };
  const flush = () => new Promise((r) => setImmediate(r));

  beforeEach(() => {
    transport = new InProcessBroker();
    loads = [];
    value = 1;
  });

  it('loads once per application while fresh; concurrent misses share the load', async () => {
    const c = cache();
    expect(await Promise.all([c.get('a'), c.get('a'), c.get('b')])).toEqual([1, 1, 1]);
    value = 2;
    expect(await c.get('a')).toBe(1);
    expect(loads).toEqual(['a', 'b']);
  });

  it('reloads after the TTL', async () => {
    const c = cache(1);
    await c.get('a');
    await new Promise((r) => setTimeout(r, 5));
    value = 2;
    expect(await c.get('a')).toBe(2);
  });

  it('an invalidation on one replica drops the entry on every replica', async () => {
    const one = cache();
    const two = cache();
    await one.get('a');
    await two.get('a');
    value = 2;
    one.invalidate('a');
    await flush();
    expect(await one.get('a')).toBe(2);
    expect(await two.get('a')).toBe(2);
    expect(loads).toEqual(['a', 'a', 'a', 'a']);
  });

  it('does not keep a failed load', async () => {
    let fail = true;
    const c = new ApplicationCache<number>(
      'test',
      async () => {
        if (fail) throw new Error('database down');
        return 3;
      },
      60_000,
      transport,
    );
    await expect(c.get('a')).rejects.toThrow('database down');
    fail = false;
    expect(await c.get('a')).toBe(3);
  });

  it('stops listening on stop', async () => {
    const one = cache();
    const two = cache();
    await two.get('a');
    two.stop();
    await two.get('a');
    value = 5;
    one.invalidate('a');
    await flush();
    expect(await two.get('a')).toBe(1);
  });
});
