import { createDecipheriv } from 'node:crypto';
import { KeyVault } from './key-vault';
import { SecretBox } from './secret-box';

const KEK_A = Buffer.from('000102030405060708090A0B0C0D0E0F', 'hex');
const vault = new KeyVault(
  new Map([
    ['a', KEK_A],
    ['b', Buffer.from('0F0E0D0C0B0A09080706050403020100', 'hex')],
  ]),
);

describe('SecretBox', () => {
  it('keeps a secret as given (base64, no key ID) without a KEK label', () => {
    const box = new SecretBox(vault);
    expect(box.seal('hunter2')).toEqual({ value: Buffer.from('hunter2').toString('base64') });
    expect(box.open(box.seal('hunter2'))).toBe('hunter2');
  });

  it('seals with the labelled KEK as TTS does (nonce, AES-GCM ciphertext, tag): the secret is nowhere in what is stored, and opens again', () => {
    const box = new SecretBox(vault, 'a');
    const secret = '-----BEGIN PRIVATE KEY-----\n' + 'x'.repeat(3000) + 'é\n-----END PRIVATE KEY-----';
    const sealed = box.seal(secret);
    expect(sealed.key_id).toBe('a');
    expect(JSON.stringify(sealed)).not.toContain('PRIVATE');
    expect(Buffer.from(sealed.value, 'base64').toString('utf8')).not.toContain('PRIVATE');
    expect(box.open(sealed)).toBe(secret);
    // Opened independently with Node's AES-128-GCM: 12-byte nonce first, 16-byte tag last.
    const data = Buffer.from(sealed.value, 'base64');
    const decipher = createDecipheriv('aes-128-gcm', KEK_A, data.subarray(0, 12));
    decipher.setAuthTag(data.subarray(data.length - 16));
    expect(Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]).toString('utf8')).toBe(secret);
    // Each seal has its own nonce.
    expect(box.seal(secret).value).not.toBe(sealed.value);
    // A box sealing with another label still opens secrets sealed with a KEK it holds.
    expect(new SecretBox(vault, 'b').open(sealed)).toBe(secret);
  });

  it('refuses an altered value and an unknown label', () => {
    const box = new SecretBox(vault, 'a');
    const sealed = box.seal('hunter2');
    const bytes = Buffer.from(sealed.value, 'base64');
    bytes[14] ^= 1;
    expect(() => box.open({ ...sealed, value: bytes.toString('base64') })).toThrow(/corrupt key/);
    expect(() => box.open({ ...sealed, key_id: 'c' })).toThrow(/KEK with label `c` not found/);
    expect(() => new SecretBox(vault, 'c')).toThrow(/not configured/);
  });
});
