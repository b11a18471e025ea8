import { parseStationJson, readFields, stringifyStationJson } from './json';

describe('station JSON', () => {
  it('keeps 64-bit integers exact (an xtime with session and radio unit bits), every other number a number', () => {
    // Session 0x2A, radio unit 1, 123456789 µs: 0x012A_0000_075B_CD15.
    const text = '{"xtime":83879543183232277,"rssi":-97,"snr":7.25,"DR":5,"neg":-9223372036854775807,"f":1.5e3}';
    expect(parseStationJson(text)).toEqual({ value: { xtime: 0x012a0000075bcd15n, rssi: -97, snr: 7.25, DR: 5, neg: -9223372036854775807n, f: 1500 } });
  });

  it('leaves digits inside strings alone, escaped quotes included', () => {
    const text = '{"a":"12345678901234567890","b":"x\\"99999999999999999999\\"","c":[18446744073709551615]}';
    expect(parseStationJson(text)).toEqual({ value: { a: '12345678901234567890', b: 'x"99999999999999999999"', c: [18446744073709551615n] } });
  });

  it('refuses text that is not JSON', () => {
    for (const text of ['', '{', '{"a":1,}', 'nul', '{"a":12345678901234567890', '\u0000']) expect(parseStationJson(text)).toEqual({ error: 'not JSON' });
  });

  it('writes bigints as plain integers, strings that look like the marker untouched', () => {
    const value = { xtime: 0x012a0000075bcd15n, s: 'bigint-00:1', n: 5 };
    const text = stringifyStationJson(value);
    expect(text).toBe('{"xtime":83879543183232277,"s":"bigint-00:1","n":5}');
    expect(parseStationJson(text)).toEqual({ value });
  });

  it('reads fields by type and range, naming the wrong one', () => {
    const read = (o: unknown) => readFields(o, 'msg', (f) => ({ a: f.number('a', 0, 10, true), h: f.hex('h', 2), x: f.int64('x', 1n, 10n ** 18n) }));
    expect(read({ a: 3, h: 'aBcD', x: 5 })).toEqual({ a: 3, h: Buffer.from('abcd', 'hex'), x: 5n });
    expect(read({ a: 3.5, h: '', x: 5 })).toEqual({ error: 'msg: `a` must be an integer in [0, 10]' });
    expect(read({ a: '3', h: '', x: 5 })).toEqual({ error: 'msg: `a` must be an integer in [0, 10]' });
    expect(read({ a: 3, h: 'abcdef', x: 5 })).toEqual({ error: 'msg: `h` must be hex of at most 2 bytes' });
    expect(read({ a: 3, h: 'zz', x: 5 })).toEqual({ error: 'msg: `h` must be hex of at most 2 bytes' });
    expect(read({ a: 3, h: 'abc', x: 5 })).toEqual({ error: 'msg: `h` must be hex of at most 2 bytes' });
    expect(read({ a: 3, h: '', x: 0 })).toEqual({ error: 'msg: `x` must be an integer in [1, 1000000000000000000]' });
    expect(read({ a: 3, h: '', x: 1.5 })).toEqual({ error: 'msg: `x` must be an integer in [1, 1000000000000000000]' });
    expect(read([1])).toEqual({ error: 'msg is not a JSON object' });
    expect(read(null)).toEqual({ error: 'msg is not a JSON object' });
  });
});
