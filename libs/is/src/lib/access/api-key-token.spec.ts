import { API_KEY_ID_PATTERN } from '@lorawan/api';
import { API_KEY_PREFIX, base32, generateApiKeyToken, parseApiKeyToken } from './api-key-token';

describe('base32 (RFC 4648, upper case, no padding)', () => {
  it.each([
    ['', ''],
    ['f', 'MY'],
    ['fo', 'MZXQ'],
    ['foo', 'MZXW6'],
    ['foob', 'MZXW6YQ'],
    ['fooba', 'MZXW6YTB'],
    ['foobar', 'MZXW6YTBOI'],
  ])('RFC 4648 §10 test vector %j → %s', (input, expected) => {
    expect(base32(Buffer.from(input))).toBe(expected);
  });

  it('agrees with a straightforward bit-string encoding on every byte value and length', () => {
    const naive = (bytes: Uint8Array) => {
      const bits = [...bytes].map((b) => b.toString(2).padStart(8, '0')).join('');
      return (bits.match(/.{1,5}/g) ?? []).map((c) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[parseInt(c.padEnd(5, '0'), 2)]).join('');
    };
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    for (let len = 0; len <= 41; len++) expect(base32(all.subarray(200 - len, 200))).toBe(naive(all.subarray(200 - len, 200)));
    expect(base32(all)).toBe(naive(all));
  });

  it('the API key prefix is base32("key")', () => {
    expect(base32(Buffer.from('key'))).toBe(API_KEY_PREFIX);
  });
});

describe('API key tokens', () => {
  it('are NNSXS.<39 base32 (24 bytes)>.<52 base32 (32 bytes)>, 98 characters, random', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const { id, secret, token } = generateApiKeyToken();
      expect(id).toMatch(API_KEY_ID_PATTERN);
      expect(secret).toMatch(/^[A-Z2-7]{52}$/);
      expect(token).toBe(`NNSXS.${id}.${secret}`);
      expect(token).toHaveLength(98);
      seen.add(id).add(secret);
    }
    expect(seen.size).toBe(100);
  });

  it('parse back into ID and secret', () => {
    const { id, secret, token } = generateApiKeyToken();
    expect(parseApiKeyToken(token)).toEqual({ id, secret });
  });

  const id = 'A'.repeat(39);
  const secret = 'B'.repeat(52);
  it.each([
    ['empty', ''],
    ['no parts', 'not-a-token'],
    ['short parts', 'NNSXS.ABC.DEF'],
    ['another token type (access token)', `MFRWG.${id}.${secret}`],
    ['lower-case prefix', `nnsxs.${id}.${secret}`],
    ['lower-case secret', `NNSXS.${id}.${secret.toLowerCase()}`],
    ['ID one short', `NNSXS.${id.slice(1)}.${secret}`],
    ['secret one long', `NNSXS.${id}.${secret}B`],
    ['padding', `NNSXS.${id}=.${secret}`],
    ['digits outside the alphabet', `NNSXS.${id.slice(1)}0.${secret}`],
    ['a fourth part', `NNSXS.${id}.${secret}.X`],
    ['surrounding space', ` NNSXS.${id}.${secret}`],
  ])('reject %s', (_, token) => {
    expect(parseApiKeyToken(token)).toBeUndefined();
  });
});
