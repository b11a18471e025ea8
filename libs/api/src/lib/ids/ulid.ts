import { randomFillSync } from 'node:crypto';
import { factory, monotonicFactory, type ULID } from 'ulid';

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let next = POOL_BYTES;

/**
 * The ulid package's default generator asks the OS for one random byte per character (16 calls
 * per ULID, several per message on the uplink path): here the bytes come from a pool refilled 4 KiB
 * at a time from the same cryptographic source. ulid maps `prng()` to a character with
 * `floor(prng() * 32)`, so a byte / 256 keeps every character uniform.
 */
function pooledRandom(): number {
  if (next === POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++] / 256;
}

/** A monotonic ULID generator (strictly increasing within a millisecond) on the pooled random source. */
export function ulidFactory(): ULID {
  return monotonicFactory(pooledRandom);
}

/**
 * The process's ULID source: request IDs, event IDs, correlation IDs, stream sessions. Not
 * monotonic within a millisecond (nothing orders by it; the monotonic step costs a few µs on every
 * request): time-ordered to the millisecond, 80 random bits.
 */
export const newUlid: ULID = factory(pooledRandom);
