import { KeyVault } from './key-vault';
import { SecretBox } from './secret-box';

const vault = new KeyVault(
  new Map([
    ['a', Buffer.from('000102030405060708090A0B0C0D0E0F', 'hex')],
    ['b', Buffer.from('0F0E0D0C0B0A09080706050403020100', 'hex')],
  ]),
);

describe('SecretBox', () => {
  it('keeps a secret in the clear without a KEK label', () => {
    const box = new SecretBox(vault);
    expect(box.seal('hunter2')).toEqual({ value: 'hunter2' });
    expect(box.open({ value: 'hunter2' })).toBe('hunter2');
  });

  it('seals with the labelled KEK: the secret is nowhere in what is stored, and opens again', () => {
    const box = new SecretBox(vault, 'a');
    const secret = '-----BEGIN PRIVATE KEY-----\n' + 'x'.repeat(3000) + 'é\n-----END PRIVATE KEY-----';
    const sealed = box.seal(secret);
    expect(sealed.kek_label).toBe('a');
    expect(sealed.value).toBeUndefined();
    expect(JSON.stringify(sealed)).not.toContain('PRIVATE');
    expect(box.open(sealed)).toBe(secret);
    // Each seal has its own data key and nonce.
    expect(box.seal(secret).ciphertext).not.toBe(sealed.ciphertext);
    // A box sealing with another label still opens secrets sealed with a KEK it holds.
    expect(new SecretBox(vault, 'b').open(sealed)).toBe(secret);
  });

  it('refuses altered ciphertext and an unknown label', () => {
    const box = new SecretBox(vault, 'a');
    const sealed = box.seal('hunter2');
    const bytes = Buffer.from(sealed.ciphertext ?? '', 'base64');
    bytes[0] ^= 1;
    expect(() => box.open({ ...sealed, ciphertext: bytes.toString('base64') })).toThrow(/corrupt key/);
    expect(() => box.open({ ...sealed, kek_label: 'c' })).toThrow(/KEK with label `c` not found/);
    expect(() => new SecretBox(vault, 'c')).toThrow(/not configured/);
  });
});
