import { randomFillSync } from 'node:crypto';
import { monotonicFactory, type ULID } from 'ulid';

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

const ENCODING = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** The time part (10 characters) of the latest millisecond a ULID was made in. */
let timeMs = Number.NaN;
let timePart = '';

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0, t = ms; i < 10; i++, t = Math.floor(t / 32)) out = ENCODING[t % 32] + out;
  return out;
}

/**
 * The process's ULID source: request IDs, event IDs, correlation IDs, stream sessions. Not
 * monotonic within a millisecond (nothing orders by it; the monotonic step costs a few µs on every
 * request): time-ordered to the millisecond, 80 random bits. The same ULIDs as the ulid package's
 * `factory` on the pooled source, made with less work (several per uplink in every component): the
 * time part is encoded once per millisecond, each random character is a byte of the pool / 8.
 */
export const newUlid: ULID = (seedTime?: number): string => {
  const ms = seedTime ?? Date.now();
  if (ms !== timeMs) {
    timeMs = ms;
    timePart = encodeTime(ms);
  }
  if (next + 16 > POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  let id = timePart;
  for (let i = 0; i < 16; i++) id += ENCODING[pool[next++] >> 3];
  return id;
};
