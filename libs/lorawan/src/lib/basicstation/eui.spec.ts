import { formatDashedEui, formatId6, readEui } from './eui';

describe('station EUIs (glossary id6, rt_readEui, uj_eui)', () => {
  it.each([
    ['b827:ebff:fe61:51d9', 'B827EBFFFE6151D9'],
    ['b827ebfffe6151d9', 'B827EBFFFE6151D9'],
    ['B8-27-EB-FF-FE-61-51-D9', 'B827EBFFFE6151D9'],
    ['b8:27:eb:ff:fe:61:51:d9', 'B827EBFFFE6151D9'],
    // Station's selftest: the jreq's JoinEui of frame bytes 01 23 45 … EF (little-endian).
    ['EF-CD-AB-89-67-45-23-01', 'EFCDAB8967452301'],
    ['::1', '0000000000000001'],
    ['::0', '0000000000000000'],
    ['1::', '0001000000000000'],
    ['1::2', '0001000000000002'],
    ['a:b::c', '000A000B0000000C'],
  ])('%s → %s', (text, eui) => expect(readEui(text)).toBe(eui));

  it('integers, 64-bit ones exact', () => {
    expect(readEui(1)).toBe('0000000000000001');
    expect(readEui(0xb827ebfffe6151d9n)).toBe('B827EBFFFE6151D9');
    expect(readEui(18446744073709551615n)).toBe('FFFFFFFFFFFFFFFF');
  });

  it.each([
    ['', 'empty'],
    ['b827ebfffe6151d', '15 digits'],
    ['b827ebfffe6151d9aa', '18 digits'],
    ['b827:ebff:fe61:51d9:1', '4 colons'],
    ['b8-27-eb-ff-fe-61-51:d9', 'mixed separators'],
    [':::', 'no digits'],
    ['1::2::3', 'two ::'],
    ['12345::1', 'group of 5'],
    ['g::1', 'not hex'],
    ['1:2:3:4::', 'five groups'],
    ['::a:b:c', 'four colons (station reads no id6 then)'],
  ])('refuses %s (%s)', (text) => expect(readEui(text)).toBeUndefined());

  it('refuses other types and out-of-range integers', () => {
    for (const v of [null, true, {}, [], -1, 1.5, 2 ** 60, 18446744073709551616n, -1n]) expect(readEui(v)).toBeUndefined();
  });

  it('writes id6 in its shortest form and dashed bytes, both read back', () => {
    for (const [eui, id6] of [
      ['B827EBFFFE6151D9', 'b827:ebff:fe61:51d9'],
      ['0000000000000001', '::1'],
      ['0000000000000000', '::0'],
      ['0001000000000002', '1::2'],
      ['000A0000000B0000', 'a:0:b:0'],
      ['0000000C000D0000', '0:c:d:0'],
      ['000A000000000000', 'a::'],
      ['0001000200030000', '1:2:3:0'],
    ]) {
      expect(formatId6(eui)).toBe(id6);
      expect(readEui(id6)).toBe(eui);
    }
    expect(formatDashedEui('EFCDAB8967452301')).toBe('EF-CD-AB-89-67-45-23-01');
  });
});
