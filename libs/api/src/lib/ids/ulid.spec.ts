import { decodeTime } from 'ulid';
import { newUlid, ulidFactory } from './ulid';

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

describe('newUlid', () => {
  it('makes valid ULIDs of the time given, with the random part over the whole alphabet', () => {
    const ids = Array.from({ length: 5000 }, () => newUlid());
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(-1))).size).toBe(32);
    expect(newUlid(1469918176385).slice(0, 10)).toBe('01ARYZ6S41');
    expect(decodeTime(newUlid(Date.UTC(2030, 0, 1)))).toBe(Date.UTC(2030, 0, 1));
  });
});
