import { pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);

/** Iterations of new hashes (TTS's API keys use fewer; its passwords 20 000). Stored per hash, so it can change. */
export const SECRET_HASH_ITERATIONS = 10_000;
/** Stored hashes claiming more iterations are refused rather than computed (a corrupted row must not pin a CPU). */
const MAX_ITERATIONS = 10_000_000;
const KEY_LENGTH = 32;
const DIGESTS = new Set(['sha256', 'sha512']);
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A stored hash that is not `PBKDF2$<digest>$<iterations>$<salt>$<key>`: stored data gone bad, never the caller's fault. */
export class SecretHashFormatError extends Error {
  constructor(reason: string) {
    super(`stored secret hash is not in PBKDF2 format: ${reason}`);
    this.name = 'SecretHashFormatError';
  }
}

/**
 * Hashes a secret (an API key's secret part) as TTS stores it (`pkg/auth/pbkdf2`):
 * `PBKDF2$sha256$<iterations>$<16-character salt>$<base64url, unpadded, 32-byte key>`. PBKDF2 runs
 * on libuv's thread pool, off the event loop.
 */
export async function hashSecret(secret: string, iterations = SECRET_HASH_ITERATIONS): Promise<string> {
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS)
    throw new RangeError(`iterations must be an integer in 1..${MAX_ITERATIONS}`);
  const salt = randomBytes(12).toString('base64url');
  const key = await pbkdf2Async(secret, salt, iterations, KEY_LENGTH, 'sha256');
  return `PBKDF2$sha256$${iterations}$${salt}$${key.toString('base64url')}`;
}

/**
 * Whether `secret` matches a hash made by `hashSecret` (or by TTS): recomputes the key with the
 * stored digest, iterations, salt and key length and compares in constant time. Throws
 * SecretHashFormatError when the stored value is malformed.
 */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const { digest, iterations, salt, key } = parseSecretHash(stored);
  const derived = await pbkdf2Async(secret, salt, iterations, key.length, digest);
  return timingSafeEqual(derived, key);
}

interface ParsedSecretHash {
  digest: string;
  iterations: number;
  salt: string;
  key: Buffer;
}

function parseSecretHash(stored: string): ParsedSecretHash {
  const parts = stored.split('$');
  if (parts.length !== 5 || parts[0] !== 'PBKDF2') throw new SecretHashFormatError('expected 5 `$`-separated parts starting with PBKDF2');
  const [, digest, iterationsText, salt, encodedKey] = parts;
  if (!DIGESTS.has(digest)) throw new SecretHashFormatError('unsupported digest');
  const iterations = /^[1-9]\d{0,9}$/.test(iterationsText) ? Number(iterationsText) : NaN;
  if (!(iterations <= MAX_ITERATIONS)) throw new SecretHashFormatError('invalid iteration count');
  if (salt.length === 0) throw new SecretHashFormatError('empty salt');
  const key = BASE64URL.test(encodedKey) ? Buffer.from(encodedKey, 'base64url') : Buffer.alloc(0);
  // Only the canonical encoding: a key that does not round-trip was altered.
  if (key.length === 0 || key.length > 64 || key.toString('base64url') !== encodedKey) throw new SecretHashFormatError('invalid key encoding');
  return { digest, iterations, salt, key };
}
