import { ulidFactory } from './ulid';

describe('ulidFactory', () => {
  it('makes valid, unique, increasing ULIDs', () => {
    const ulid = ulidFactory();
    const ids = Array.from({ length: 10000 }, () => ulid());
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('spreads the random part over the whole alphabet', () => {
    const ulid = ulidFactory();
    const counts = new Map<string, number>();
    // Different milliseconds are not needed: the first ULID of a factory is fully random.
    for (let i = 0; i < 2000; i++) {
      const last = ulidFactory()().slice(-1);
      counts.set(last, (counts.get(last) ?? 0) + 1);
    }
    expect(counts.size).toBe(32);
    expect(ulid()).toHaveLength(26);
  });
});
