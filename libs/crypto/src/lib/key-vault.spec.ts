import { type CipherGCMTypes, createDecipheriv } from 'node:crypto';
import { ErrCorruptKey, ErrInvalidKey, ErrKekNotFound } from './errors';
import { KeyVault } from './key-vault';

const KEK128 = '000102030405060708090A0B0C0D0E0F';
const KEK192 = KEK128 + '1011121314151617';
const KEK256 = KEK128 + '101112131415161718191A1B1C1D1E1F';
const KEY128 = '00112233445566778899AABBCCDDEEFF';
const KEY256 = KEY128 + '000102030405060708090A0B0C0D0E0F';

const vault = new KeyVault(
  new Map([
    ['k128', Buffer.from(KEK128, 'hex')],
    ['k192', Buffer.from(KEK192, 'hex')],
    ['k256', Buffer.from(KEK256, 'hex')],
  ]),
);
const hexOf = (base64: string) => Buffer.from(base64, 'base64').toString('hex').toUpperCase();
const base64Of = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

describe('KeyVault', () => {
  // RFC 3394 §4.1, 4.2, 4.3, 4.6.
  it.each([
    ['k128', KEY128, '1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5'],
    ['k192', KEY128, '96778B25AE6CA435F92B5B97C050AED2468AB8A17AD84E5D'],
    ['k256', KEY128, '64E8C3F9CE0F5BA263E9777905818A2A93C8191E7D6E8AE7'],
    ['k256', KEY256, '28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21'],
  ])('wraps and unwraps the RFC 3394 vector with %s', (label, key, wrapped) => {
    const envelope = vault.wrap(key, label);
    expect(envelope.kek_label).toBe(label);
    expect(hexOf(envelope.encrypted_key)).toBe(wrapped);
    expect(vault.unwrap({ kek_label: label, encrypted_key: base64Of(wrapped) })).toBe(key);
  });

  it('round-trips a lower-case key to upper-case hex', () => {
    const key = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    expect(vault.unwrap(vault.wrap(key, 'k128'))).toBe(key.toUpperCase());
  });

  it('returns a plain key as is, and a label-less encrypted_key as the key in the clear (TTS)', () => {
    expect(vault.unwrap({ key: KEY128 })).toBe(KEY128);
    expect(vault.unwrap({ encrypted_key: base64Of(KEY128) })).toBe(KEY128);
    expect(vault.unwrap({ kek_label: '', encrypted_key: base64Of(KEY128) })).toBe(KEY128);
    expect(vault.unwrap({})).toBeUndefined();
  });

  it('knows its labels', () => {
    expect(vault.has('k128')).toBe(true);
    expect(vault.has('other')).toBe(false);
  });

  it('fails with kek_not_found (FailedPrecondition) for an unknown label', () => {
    expect(() => vault.wrap(KEY128, 'other')).toThrow(
      expect.objectContaining({ errorName: 'kek_not_found', code: 9, message: 'KEK with label `other` not found' }),
    );
    const err = (() => {
      try {
        vault.unwrap({ kek_label: 'other', encrypted_key: base64Of('1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5') });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(ErrKekNotFound.matches(err)).toBe(true);
  });

  it('detects a wrong KEK and altered or truncated ciphertext as corrupt_key (DataLoss)', () => {
    const wrapped = vault.wrap(KEY128, 'k128');
    const tampered = Buffer.from(wrapped.encrypted_key, 'base64');
    tampered[10] ^= 1;
    for (const envelope of [
      { kek_label: 'k256', encrypted_key: wrapped.encrypted_key },
      { kek_label: 'k128', encrypted_key: tampered.toString('base64') },
      { kek_label: 'k128', encrypted_key: base64Of('1FA68B0A8112B447') },
      { encrypted_key: base64Of('0011') },
    ]) {
      expect(() => vault.unwrap(envelope)).toThrow(expect.objectContaining({ errorName: 'corrupt_key', code: 15 }));
    }
    expect(ErrCorruptKey.code).toBe(15);
  });

  it.each(['0011', KEY128.slice(0, 30) + 'ZZ', KEY128 + '0'])('refuses to wrap %s (invalid_key)', (key) => {
    expect(() => vault.wrap(key, 'k128')).toThrow(expect.objectContaining({ errorName: ErrInvalidKey.name }));
  });

  describe('sealed secrets (TTS Secret, AES-GCM)', () => {
    const secret = Buffer.from('NNSXS.ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFG.SECRET', 'utf8');

    it.each(['k128', 'k192', 'k256'])('seals with %s as Go’s gcm.Seal lays it out (nonce, ciphertext, tag) and opens it', (label) => {
      const sealed = vault.seal(secret, label);
      expect(sealed.key_id).toBe(label);
      const data = Buffer.from(sealed.value, 'base64');
      expect(data.length).toBe(12 + secret.length + 16);
      expect(data.includes(secret)).toBe(false);
      // Independent of the vault: Node's AES-GCM with the KEK opens it.
      const kek = Buffer.from(label === 'k128' ? KEK128 : label === 'k192' ? KEK192 : KEK256, 'hex');
      const decipher = createDecipheriv(`aes-${kek.length * 8}-gcm` as CipherGCMTypes, kek, data.subarray(0, 12));
      decipher.setAuthTag(data.subarray(data.length - 16));
      expect(Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()])).toEqual(secret);
      expect(vault.open(sealed)).toEqual(secret);
      expect(vault.seal(secret, label).value).not.toBe(sealed.value);
    });

    it('opens a secret stored as given; refuses a wrong KEK, an altered value, an unknown label', () => {
      expect(vault.open({ value: secret.toString('base64') })).toEqual(secret);
      const sealed = vault.seal(secret, 'k128');
      expect(() => vault.open({ ...sealed, key_id: 'k256' })).toThrow(expect.objectContaining({ errorName: 'corrupt_key', attributes: { label: 'k256' } }));
      const altered = Buffer.from(sealed.value, 'base64');
      altered[20] ^= 1;
      expect(() => vault.open({ ...sealed, value: altered.toString('base64') })).toThrow(
        expect.objectContaining({ errorName: 'corrupt_key', attributes: { label: 'k128' } }),
      );
      expect(() => vault.open({ key_id: 'k128', value: 'AAAA' })).toThrow(expect.objectContaining({ errorName: 'corrupt_key', attributes: { label: 'k128' } }));
      expect(() => vault.seal(secret, 'none')).toThrow(expect.objectContaining({ errorName: 'kek_not_found' }));
    });
  });
});
