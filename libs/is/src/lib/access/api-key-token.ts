import { randomBytes } from 'node:crypto';

/** RFC 4648 base32 alphabet. */
const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * RFC 4648 base32, upper case, without padding (TTS encodes API key IDs and secrets so). Only
 * encoding is needed: tokens are checked by pattern and IDs are stored as their text.
 */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xfff; // at most 4 pending bits + 8 new ones
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(buffer >>> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** `base32("key")`: the token type of API keys (access tokens are `MFRWG`, sessions `ONZW4`). */
export const API_KEY_PREFIX = 'NNSXS';
const ID_BYTES = 24;
const SECRET_BYTES = 32;
/** `NNSXS.<ID: 39 base32 characters>.<secret: 52 base32 characters>`. */
const TOKEN_PATTERN = /^NNSXS\.([A-Z2-7]{39})\.([A-Z2-7]{52})$/;

export interface ApiKeyToken {
  /** The public identifier (stored in clear, shown in lists). */
  id: string;
  /** The secret part (stored only as a hash, shown once). */
  secret: string;
  /** `NNSXS.<id>.<secret>`: what the client sends as `Authorization: Bearer …`. */
  token: string;
}

/** A new random API key (TTS `pkg/auth` `GenerateKey`): 24 random bytes of ID, 32 of secret. */
export function generateApiKeyToken(): ApiKeyToken {
  const id = base32(randomBytes(ID_BYTES));
  const secret = base32(randomBytes(SECRET_BYTES));
  return { id, secret, token: `${API_KEY_PREFIX}.${id}.${secret}` };
}

/** The ID and secret of an API key token, or undefined when the token is not one. */
export function parseApiKeyToken(token: string): Pick<ApiKeyToken, 'id' | 'secret'> | undefined {
  const m = TOKEN_PATTERN.exec(token);
  return m ? { id: m[1], secret: m[2] } : undefined;
}
