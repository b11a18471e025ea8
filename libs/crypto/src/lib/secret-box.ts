import type { KeyVault, SealedSecret } from './key-vault';

/** A secret as stored (`KeyVault.seal`'s form, TTS `Secret`): `key_id` set when sealed. */
export type StoredSecret = SealedSecret;

/**
 * Text secrets (a broker password, a TLS private key) at rest with one configured KEK label: sealed
 * by `KeyVault.seal` (AES-GCM with the labelled KEK, as TTS seals secrets) when a label is set,
 * else kept as given (base64, no `key_id`), as keys are without a KEK. Opening takes any KEK the
 * vault holds, so secrets sealed before a label change still open.
 */
export class SecretBox {
  constructor(
    private readonly vault: KeyVault,
    /** The KEK new secrets are sealed with; unset: stored as given. */
    private readonly label?: string,
  ) {
    if (label !== undefined && !vault.has(label)) throw new Error(`KEK label "${label}" is not configured in KEKS`);
  }

  seal(secret: string): StoredSecret {
    return this.sealBytes(Buffer.from(secret, 'utf8'));
  }

  /** A secret of any bytes (TTS `Secret.value`), sealed as `seal` does. */
  sealBytes(bytes: Buffer): StoredSecret {
    return this.label === undefined ? { value: bytes.toString('base64') } : this.vault.seal(bytes, this.label);
  }

  /** The secret; `pkg/crypto:kek_not_found` or `corrupt_key` when it cannot be opened. */
  open(stored: StoredSecret): string {
    return this.openBytes(stored).toString('utf8');
  }

  /** The bytes of a secret of `sealBytes`. */
  openBytes(stored: StoredSecret): Buffer {
    return this.vault.open(stored);
  }
}
