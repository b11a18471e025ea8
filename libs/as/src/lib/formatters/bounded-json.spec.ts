import { boundedJsonStringify, jsonDepth } from './bounded-json';

const nested = (depth: number): unknown => {
  let v: unknown = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

describe('boundedJsonStringify', () => {
  it.each([
    ['primitives', [1, -0, 1.5e300, NaN, Infinity, 'a"\\\n\u2028é😀', true, false, null]],
    [
      'objects in order, undefined, functions and symbols left out',
      { b: 1, a: { c: undefined, d: () => 1, e: Symbol('x'), f: [undefined, () => 1, Symbol('y')] } },
    ],
    ['toJSON and Dates', { at: new Date('2024-05-01T10:00:00Z'), custom: { toJSON: (key: string) => `key ${key}` } }],
    ['boxed primitives', [Object(1), Object('s'), Object(false)]],
    ['empty containers', { a: [], o: {}, n: [[], [{}]] }],
    ['sparse arrays', [1, , 3]], // eslint-disable-line no-sparse-arrays
  ])('writes %s as JSON.stringify does', (_name, value) => {
    expect(boundedJsonStringify(value, 32, 1e6)).toBe(JSON.stringify(value));
  });

  it('returns undefined where JSON.stringify does', () => {
    expect(boundedJsonStringify(undefined, 32, 100)).toBeUndefined();
    expect(boundedJsonStringify(() => 1, 32, 100)).toBeUndefined();
  });

  it('refuses BigInt as JSON.stringify does', () => {
    expect(() => boundedJsonStringify({ a: BigInt(1) }, 32, 100)).toThrow(TypeError);
  });

  it('counts depth from the value itself (level 1) and refuses one level more', () => {
    expect(boundedJsonStringify(nested(3), 4, 1000)).toBe('{"a":{"a":{"a":{}}}}');
    expect(() => boundedJsonStringify(nested(4), 4, 1000)).toThrow(new RangeError('output nested deeper than 4 levels'));
    expect(() => boundedJsonStringify([[[1]]], 2, 1000)).toThrow(RangeError);
  });

  it('refuses a cycle as too deep', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => boundedJsonStringify(cycle, 32, 1e6)).toThrow('output nested deeper than 32 levels');
  });

  it('stops at the length bound, even for an array of a billion holes', () => {
    expect(boundedJsonStringify('abcd', 32, 6)).toBe('"abcd"');
    expect(() => boundedJsonStringify('abcde', 32, 6)).toThrow(new RangeError('output longer than 6 characters'));
    const huge: unknown[] = [];
    huge.length = 1e9;
    expect(() => boundedJsonStringify({ huge }, 32, 1000)).toThrow('output longer than 1000 characters');
  });

  it('walks 100 000 levels without recursion', () => {
    expect(boundedJsonStringify(nested(100_000), 200_000, 1e7)).toHaveLength(100_000 * 6 + 2);
  });

  it('reads each property once (a getter cannot hand the check one value and the text another)', () => {
    let reads = 0;
    const value = {
      get a() {
        reads++;
        return reads === 1 ? 1 : nested(100);
      },
    };
    expect(boundedJsonStringify(value, 3, 1000)).toBe('{"a":1}');
  });
});

describe('jsonDepth', () => {
  it.each([
    ['1', 0],
    ['"[{"', 0],
    ['[]', 1],
    ['{"a":[1,{"b":"]}\\"[["}]}', 3],
    ['[[],[[]],[]]', 3],
  ])('%s nests %d deep', (text, depth) => {
    expect(jsonDepth(text)).toBe(depth);
  });

  it('counts 100 000 levels in one pass', () => {
    expect(jsonDepth('['.repeat(100_000) + ']'.repeat(100_000))).toBe(100_000);
  });
});
