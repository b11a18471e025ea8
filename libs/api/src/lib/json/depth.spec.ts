import { exceedsJsonDepth, MAX_JSON_DEPTH } from './depth';

/** `levels` objects (or arrays) inside each other. */
function nested(levels: number, kind: 'object' | 'array' = 'object'): unknown {
  let value: unknown = kind === 'object' ? {} : [];
  for (let i = 1; i < levels; i++) value = kind === 'object' ? { a: value } : [value];
  return value;
}

describe('exceedsJsonDepth', () => {
  it('counts objects and arrays alike; scalars add no level', () => {
    expect(exceedsJsonDepth('text', 0)).toBe(false);
    expect(exceedsJsonDepth(null, 0)).toBe(false);
    expect(exceedsJsonDepth({}, 0)).toBe(true);
    expect(exceedsJsonDepth({}, 1)).toBe(false);
    expect(exceedsJsonDepth({ a: 1, b: 'x', c: [1, 2] }, 2)).toBe(false);
    expect(exceedsJsonDepth({ a: 1, b: 'x', c: [1, { d: 2 }] }, 2)).toBe(true);
    expect(exceedsJsonDepth([[], { a: [] }], 3)).toBe(false);
    expect(exceedsJsonDepth([[], { a: [[]] }], 3)).toBe(true);
  });

  it(`allows ${MAX_JSON_DEPTH} levels by default, not one more`, () => {
    for (const kind of ['object', 'array'] as const) {
      expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH, kind))).toBe(false);
      expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1, kind))).toBe(true);
    }
  });

  it('finds the deep branch among wide shallow ones', () => {
    const wide = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, { v: [i] }]));
    expect(exceedsJsonDepth({ ...wide, deep: nested(10) }, 11)).toBe(false);
    expect(exceedsJsonDepth({ ...wide, deep: nested(11) }, 11)).toBe(true);
  });

  it('measures a million levels without recursion (no stack overflow)', () => {
    const deep = JSON.parse(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`) as unknown;
    expect(exceedsJsonDepth(deep)).toBe(true);
    expect(exceedsJsonDepth(deep, 1_000_000)).toBe(false);
  });
});
