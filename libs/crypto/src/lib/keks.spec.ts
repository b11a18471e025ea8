import { parseKeks } from './keks';

const K128 = '000102030405060708090A0B0C0D0E0F';
const K192 = K128 + '1011121314151617';
const K256 = K128 + '101112131415161718191A1B1C1D1E1F';

describe('parseKeks', () => {
  it('treats unset and blank as no KEKs', () => {
    expect(parseKeks(undefined).size).toBe(0);
    expect(parseKeks('  ').size).toBe(0);
  });

  it('parses labelled AES-128/192/256 KEKs, tolerating spaces around entries', () => {
    const keks = parseKeks(`ns=${K128}, as:2024.v1=${K192} ,js_root-1=${K256.toLowerCase()}`);
    expect([...keks.keys()]).toEqual(['ns', 'as:2024.v1', 'js_root-1']);
    expect(keks.get('ns')?.toString('hex').toUpperCase()).toBe(K128);
    expect(keks.get('as:2024.v1')?.length).toBe(24);
    expect(keks.get('js_root-1')?.length).toBe(32);
  });

  it.each([
    ['missing =', `ns${K128}`, /entry 1 is not of the form/],
    ['empty label', `=${K128}`, /entry 1: label must match/],
    ['label with a space', `my kek=${K128}`, /entry 1: label must match/],
    ['duplicate label', `a=${K128},a=${K128}`, /entry 2: its label is already used by an earlier entry/],
    ['short key', 'a=0011', /entry 1: key must be 32, 48, 64 hex characters .* got 4 characters$/],
    ['non-hex key', `a=${K128.slice(0, 31)}Z`, /got 32 characters with non-hex characters/],
    ['trailing comma', `a=${K128},`, /entry 2 is not of the form/],
  ])('rejects %s', (_case, value, message) => {
    expect(() => parseKeks(value)).toThrow(message);
  });

  it.each([
    ['a malformed key', (secret: string) => `a=${secret.slice(1)}`],
    ['key and label swapped', (secret: string) => `${secret}=a`],
    ['a duplicate', (secret: string) => `${secret}=${K128},${secret}=${K128}`],
  ])('never echoes key material in errors: %s', (_case, value) => {
    const secret = 'DEADBEEFDEADBEEFDEADBEEFDEADBEEF';
    expect(() => parseKeks(value(secret))).toThrow(expect.objectContaining({ message: expect.not.stringContaining(secret.slice(1)) }));
  });
});
