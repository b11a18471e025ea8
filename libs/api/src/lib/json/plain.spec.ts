import { cloneJson, plainJson } from './plain';

class Inner {
  constructor(
    readonly a: number,
    readonly skipped?: string,
  ) {}
}

class Message {
  kept = 'x';
  nothing = undefined;
  fn = () => 1;
  inner = new Inner(1);
  list = [new Inner(2), undefined, () => 2, Number.NaN];
  when = new Date(Date.UTC(2024, 4, 1));
  map = { b: 2, a: 1, 10: 'ten', 2: 'two' };
  big = Number.POSITIVE_INFINITY;
}

describe('plainJson', () => {
  it('is what a JSON round trip gives', () => {
    const samples: unknown[] = [
      new Message(),
      { nested: { deeper: [1, 'two', true, null, { x: [] }] } },
      [undefined, null, 0, -0, ''],
      'text',
      42,
      false,
      null,
      new Uint8Array([1, 2]),
      Buffer.from([3, 4]),
      Object.assign(Object.create(null), { a: 1 }),
      new Number(5),
    ];
    for (const sample of samples) expect(plainJson(sample)).toStrictEqual(JSON.parse(JSON.stringify(sample)));
    expect(plainJson(undefined)).toBeUndefined();
  });

  it('keeps a key named __proto__ as an own property, as JSON.parse does', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": {"__proto__": 1}}') as Record<string, unknown>;
    const plain = plainJson(parsed);
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect(Object.keys(plain)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(plain)).toBe(JSON.stringify(parsed));
  });

  it('refuses a BigInt as JSON.stringify does', () => {
    expect(() => plainJson({ n: 1n })).toThrow(TypeError);
  });
});

describe('cloneJson', () => {
  it('copies JSON data deeply, sharing nothing', () => {
    const source = { a: [1, { b: 'c' }], d: { e: null, f: undefined }, g: 'h' };
    const copy = cloneJson(source);
    expect(copy).toEqual(source);
    expect('f' in copy.d).toBe(true); // kept, as structuredClone keeps it
    expect(copy.a).not.toBe(source.a);
    expect(copy.a[1]).not.toBe(source.a[1]);
    expect(copy.d).not.toBe(source.d);
  });

  it('leaves other objects to structuredClone, and keeps __proto__ keys own', () => {
    const when = new Date(0);
    expect(cloneJson({ when }).when).toEqual(when);
    expect(cloneJson({ when }).when).not.toBe(when);
    const parsed = JSON.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    const copy = cloneJson(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
  });
});
