import { LruCache } from './lru-cache';

describe('LruCache', () => {
  it('holds at most maxEntries, dropping the least recently used first', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.size]).toEqual([1, undefined, 3, 2]);
    cache.delete('a');
    expect([...cache]).toEqual([['c', 3]]);
  });

  it('forgets an entry ttlMs after it was set, however often it was read', () => {
    let now = 0;
    const cache = new LruCache<string, boolean>(10, 100, () => now);
    cache.set('eui', true);
    now = 99;
    expect(cache.get('eui')).toBe(true);
    now = 100;
    expect(cache.get('eui')).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.set('eui', true);
    now = 150;
    expect(cache.get('eui')).toBe(true);
  });

  it('keeps nothing with a size of 0', () => {
    const cache = new LruCache<string, number>(0);
    cache.set('a', 1);
    expect([cache.get('a'), cache.size]).toEqual([undefined, 0]);
  });
});
