import { randomBytes } from 'node:crypto';
import { base32 } from '../../access/api-key-token';

/** Random bytes of a generated secret (TTS `auth.GenerateKey`: 32 bytes). */
const SECRET_BYTES = 32;

/** A new client secret as TTS generates it: 32 random bytes, base32 without padding (52 characters). */
export function generateClientSecret(): string {
  return base32(randomBytes(SECRET_BYTES));
}
