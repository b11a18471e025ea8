import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ErrCorruptKey } from './errors';
import type { KeyVault } from './key-vault';

/**
 * A secret of any length (a broker password, a TLS private key) as stored: in the clear (`value`)
 * when no KEK label is configured, as keys are; else sealed (`kek_label` set): encrypted with a
 * fresh 256-bit data key (AES-256-GCM, `nonce` and `ciphertext` with its tag appended), the data
 * key wrapped with the labelled KEK (RFC 3394, `encrypted_key`) as the vault wraps session keys.
 */
export interface StoredSecret {
  value?: string;
  kek_label?: string;
  encrypted_key?: string;
  nonce?: string;
  ciphertext?: string;
}

const TAG_BYTES = 16;

/** Seals and opens secrets of any length with the KEKs of a KeyVault (envelope encryption). */
export class SecretBox {
  constructor(
    private readonly vault: KeyVault,
    /** The KEK new secrets are sealed with; unset: stored in the clear. */
    private readonly label?: string,
  ) {
    if (label !== undefined && !vault.has(label)) throw new Error(`KEK label "${label}" is not configured in KEKS`);
  }

  seal(secret: string): StoredSecret {
    if (this.label === undefined) return { value: secret };
    const dataKey = randomBytes(32);
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', dataKey, nonce);
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    const { kek_label, encrypted_key } = this.vault.wrap(dataKey.toString('hex'), this.label);
    return { kek_label, encrypted_key, nonce: nonce.toString('base64'), ciphertext: ciphertext.toString('base64') };
  }

  /** The secret; `pkg/crypto:kek_not_found` or `corrupt_key` when it cannot be opened. */
  open(stored: StoredSecret): string {
    if (stored.kek_label === undefined) return stored.value ?? '';
    const dataKeyHex = this.vault.unwrap({ kek_label: stored.kek_label, encrypted_key: stored.encrypted_key });
    const data = Buffer.from(stored.ciphertext ?? '', 'base64');
    if (!dataKeyHex || data.length < TAG_BYTES) throw ErrCorruptKey.with({ label: stored.kek_label });
    try {
      const decipher = createDecipheriv('aes-256-gcm', Buffer.from(dataKeyHex, 'hex'), Buffer.from(stored.nonce ?? '', 'base64'));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      return Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw ErrCorruptKey.with({ label: stored.kek_label });
    }
  }
}
