import type { KeyEnvelope } from '@lorawan/api';

/** `ttn.lorawan.v3.KeyEnvelope` as stored and returned (canonical JSON): the contract's message. */
export type KeyEnvelopeJson = KeyEnvelope;

/**
 * How a registry keeps key material at rest. `seal` turns a plain envelope into what is stored
 * (wrapped with the component's KEK when one is configured); `open` turns a stored envelope into
 * what an authorised reader gets (the plain key, or the envelope as stored when this component
 * has no KEK for it, e.g. an AppSKey the NS keeps for the AS).
 */
export interface KeySealer {
  seal(envelope: KeyEnvelopeJson): KeyEnvelopeJson;
  open(envelope: KeyEnvelopeJson): KeyEnvelopeJson;
}

/** Keys stored as given. */
export const PLAIN_KEYS: KeySealer = {
  seal: (envelope) => envelope,
  open: (envelope) => envelope,
};

/** The part of @lorawan/crypto's KeyVault the registries use. */
export interface KeyWrapper {
  has(label: string): boolean;
  wrap(keyHex: string, label: string): { kek_label: string; encrypted_key: string };
  unwrap(envelope: KeyEnvelopeJson): string | undefined;
}

/**
 * Wraps plain keys with the KEK `label` (RFC 3394) when one is given; opens every envelope whose
 * KEK it holds (so keys wrapped before a label change stay readable while their KEK is configured).
 */
export class KekSealer implements KeySealer {
  constructor(
    private readonly vault: KeyWrapper,
    private readonly label?: string,
  ) {
    if (label !== undefined && !vault.has(label)) throw new Error(`KEK label "${label}" is not configured in KEKS`);
  }

  seal(envelope: KeyEnvelopeJson): KeyEnvelopeJson {
    return envelope.key && this.label ? this.vault.wrap(envelope.key, this.label) : envelope;
  }

  open(envelope: KeyEnvelopeJson): KeyEnvelopeJson {
    if (envelope.key || !envelope.kek_label || !this.vault.has(envelope.kek_label)) return envelope;
    const key = this.vault.unwrap(envelope);
    return key ? { key } : envelope;
  }
}
