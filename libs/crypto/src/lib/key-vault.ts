import { type CipherGCMTypes, createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ErrCorruptKey, ErrInvalidKey, ErrKekNotFound } from './errors';

/** RFC 3394 §2.2.3.1 default initial value. */
const RFC3394_IV = Buffer.from('A6A6A6A6A6A6A6A6', 'hex');
/** Keys that may be wrapped: AES-128/192/256 (RFC 3394 needs at least two 64-bit blocks). */
const KEY_BYTE_LENGTHS = [16, 24, 32];

/** The `KeyEnvelope` fields the vault reads (hex `key`, base64 `encrypted_key`, as the contract holds them). */
export interface KeyEnvelopeLike {
  key?: string;
  kek_label?: string;
  encrypted_key?: string;
}

export interface WrappedKey {
  kek_label: string;
  /** Standard base64, the contract's form of `bytes`. */
  encrypted_key: string;
}

/** A sealed secret (TTS `Secret`): the label of the KEK that sealed it, none when stored as given. */
export interface SealedSecret {
  key_id?: string;
  /** Standard base64 of the nonce, the ciphertext and the tag (sealed), or of the secret itself. */
  value: string;
}

/** AES-GCM nonce and tag sizes (as Go's `cipher.NewGCM`, which TTS seals secrets with). */
const GCM_NONCE_BYTES = 12;
const GCM_TAG_BYTES = 16;

/** AES-GCM with the KEK's size (128, 192 or 256 bits). */
function gcmAlgorithm(kek: Buffer): CipherGCMTypes {
  return `aes-${kek.length * 8}-gcm` as CipherGCMTypes;
}

function wrapAlgorithm(kek: Buffer): string {
  return `id-aes${kek.length * 8}-wrap`;
}

/**
 * Wraps and unwraps keys at rest with labelled key-encryption keys (RFC 3394 AES Key Wrap, as TTS
 * does), using Node's built-in `id-aesNNN-wrap` ciphers.
 */
export class KeyVault {
  constructor(private readonly keks: ReadonlyMap<string, Buffer>) {}

  has(label: string): boolean {
    return this.keks.has(label);
  }

  wrap(keyHex: string, label: string): WrappedKey {
    const key = Buffer.from(keyHex, 'hex');
    if (!/^[0-9A-Fa-f]*$/.test(keyHex) || key.length * 2 !== keyHex.length || !KEY_BYTE_LENGTHS.includes(key.length)) {
      throw ErrInvalidKey.with({ length: keyHex.length });
    }
    const kek = this.kek(label);
    const cipher = createCipheriv(wrapAlgorithm(kek), kek, RFC3394_IV);
    const wrapped = Buffer.concat([cipher.update(key), cipher.final()]);
    return { kek_label: label, encrypted_key: wrapped.toString('base64') };
  }

  /**
   * The plain key of an envelope as upper-case hex: `key` if the envelope holds it in the clear;
   * `encrypted_key` itself when there is no KEK label (TTS stores unwrapped keys that way); else
   * `encrypted_key` unwrapped with the labelled KEK. Undefined for an envelope without a key.
   */
  unwrap(envelope: KeyEnvelopeLike): string | undefined {
    if (envelope.key) return envelope.key.toUpperCase();
    if (!envelope.encrypted_key) return undefined;
    const data = Buffer.from(envelope.encrypted_key, 'base64');
    const label = envelope.kek_label ?? '';
    if (label === '') {
      if (!KEY_BYTE_LENGTHS.includes(data.length)) throw ErrCorruptKey.with({ label });
      return data.toString('hex').toUpperCase();
    }
    const kek = this.kek(label);
    if (!KEY_BYTE_LENGTHS.map((n) => n + 8).includes(data.length)) throw ErrCorruptKey.with({ label });
    try {
      const decipher = createDecipheriv(wrapAlgorithm(kek), kek, RFC3394_IV);
      return Buffer.concat([decipher.update(data), decipher.final()])
        .toString('hex')
        .toUpperCase();
    } catch {
      // The integrity check value did not match: wrong KEK or altered ciphertext.
      throw ErrCorruptKey.with({ label });
    }
  }

  /**
   * Seals a secret of any length at rest (TTS `crypto.Encrypt`, how its IS stores a gateway's
   * `lbs_lns_secret` and `target_cups_key`): AES-GCM with the labelled KEK, a random nonce; the
   * value is the nonce, the ciphertext and the tag. Sealing the same secret twice gives two values.
   */
  seal(secret: Buffer, label: string): SealedSecret {
    const kek = this.kek(label);
    const nonce = randomBytes(GCM_NONCE_BYTES);
    const cipher = createCipheriv(gcmAlgorithm(kek), kek, nonce);
    const sealed = Buffer.concat([nonce, cipher.update(secret), cipher.final(), cipher.getAuthTag()]);
    return { key_id: label, value: sealed.toString('base64') };
  }

  /** The secret a `SealedSecret` holds: the value itself without a `key_id`, else opened with that KEK (`corrupt_key` when it does not open). */
  open(sealed: SealedSecret): Buffer {
    const data = Buffer.from(sealed.value, 'base64');
    if (!sealed.key_id) return data;
    const kek = this.kek(sealed.key_id);
    if (data.length < GCM_NONCE_BYTES + GCM_TAG_BYTES) throw ErrCorruptKey.with({ label: sealed.key_id });
    try {
      const decipher = createDecipheriv(gcmAlgorithm(kek), kek, data.subarray(0, GCM_NONCE_BYTES));
      decipher.setAuthTag(data.subarray(data.length - GCM_TAG_BYTES));
      return Buffer.concat([decipher.update(data.subarray(GCM_NONCE_BYTES, data.length - GCM_TAG_BYTES)), decipher.final()]);
    } catch {
      // The tag did not match: wrong KEK or altered value.
      throw ErrCorruptKey.with({ label: sealed.key_id });
    }
  }

  private kek(label: string): Buffer {
    const kek = this.keks.get(label);
    if (!kek) throw ErrKekNotFound.with({ label });
    return kek;
  }
}
