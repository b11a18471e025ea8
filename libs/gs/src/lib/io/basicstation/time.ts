import { gpsMsToUtc, utcToGpsMs } from '@lorawan/lorawan';

/**
 * Times of LoRa Basics Station (station `ral.h`, `timesync.c`; TTS `semtechws/time.go`):
 *
 * - `xtime`, a concentrator time: bit 63 zero, bits 62–56 the radio unit, bits 55–48 a session
 *   (a random non-zero value per concentrator start), bits 47–0 microseconds since that start.
 *   Its low 32 bits are the concentrator counter a Semtech UDP forwarder calls `tmst`.
 * - `gpstime`: microseconds since the GPS epoch (1980-01-06), GPS time running ahead of UTC by the
 *   leap seconds (18 since 2017).
 * - `MuxTime` / `RefTime` / `rxtime`: Unix seconds with a fraction, for round-trip times.
 */

const LOW_32 = 0xffffffffn;
const LOW_48 = (1n << 48n) - 1n;
const WRAP_32 = 1n << 32n;

/** The 32-bit concentrator timestamp (µs, wrapping) of an xtime: what the core schedules class A downlinks by. */
export function timestampOfXtime(xtime: bigint): number {
  return Number(xtime & LOW_32);
}

/** The radio unit and session of an xtime (its top 16 bits), what identifies one concentrator run. */
export function sessionOfXtime(xtime: bigint): number {
  return Number(xtime >> 48n);
}

/**
 * The xtime of a 32-bit concentrator timestamp, in the session of `reference` (the latest xtime the
 * gateway sent): the one whose microseconds are nearest the reference's, so a timestamp shortly
 * after a 32-bit wrap (or shortly before `reference`) lands in the right 71-minute period.
 */
export function xtimeOfTimestamp(reference: bigint, timestamp: number): bigint {
  const session = reference & ~LOW_48;
  const ref = reference & LOW_48;
  let us = (ref & ~LOW_32) | BigInt(timestamp >>> 0);
  if (us - ref > WRAP_32 / 2n) us -= WRAP_32;
  else if (ref - us > WRAP_32 / 2n) us += WRAP_32;
  if (us < 0n) us += WRAP_32;
  return session | (us & LOW_48);
}

/** GPS microseconds of a server time (ms precision; the leap seconds added, TTS `TimeToGPSTime`). */
export function gpsTimeOf(time: Date): bigint {
  return BigInt(utcToGpsMs(time)) * 1000n;
}

/** GPS microseconds of an RFC 3339 UTC time, its fraction to the microsecond; undefined for text that is not one. */
export function gpsTimeOfRfc3339(text: string): bigint | undefined {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/.exec(text);
  const seconds = m ? Date.parse(`${m[1]}Z`) : NaN;
  if (!m || Number.isNaN(seconds)) return undefined;
  return gpsTimeOf(new Date(seconds)) + BigInt((m[2] ?? '').padEnd(6, '0').slice(0, 6));
}

/** RFC 3339 UTC with microseconds of GPS microseconds (the leap seconds taken off), as the contract writes times. */
export function utcOfGpsTime(gpstime: bigint): string {
  const ms = gpstime / 1000n;
  return withMicroseconds(gpsMsToUtc(Number(ms)), Number(gpstime - ms * 1000n));
}

/** RFC 3339 UTC with microseconds of Unix seconds with a fraction (`rxtime`, `RefTime`). */
export function utcOfUnixSeconds(seconds: number): string {
  const us = Math.round(seconds * 1e6);
  const ms = Math.floor(us / 1000);
  return withMicroseconds(new Date(ms), us - ms * 1000);
}

function withMicroseconds(date: Date, microseconds: number): string {
  return date.toISOString().replace(/Z$/, `${String(microseconds).padStart(3, '0')}Z`);
}

/** `MuxTime` of a server time: Unix seconds with a fraction. */
export function muxTimeOf(time: Date): number {
  return time.getTime() / 1000;
}

/** Round trips longer than this are not counted by default (TTS's default `max-valid-round-trip-delay`, 10 s). */
export const MAX_ROUND_TRIP_MS = 10_000;

/**
 * The round-trip time an uplink's `RefTime` tells (station: the `MuxTime` of the server's last
 * message plus the time since it arrived): the server's time of reception less it. Undefined when
 * the gateway sent none, or one in the future or older than `maxMs` (TTS skips those).
 */
export function roundTripMs(refTime: number | undefined, receivedAt: Date, maxMs = MAX_ROUND_TRIP_MS): number | undefined {
  if (!refTime) return undefined;
  const delta = receivedAt.getTime() - refTime * 1000;
  return delta > 0 && delta <= maxMs ? delta : undefined;
}

/**
 * The answer to a station's `timesync` request (`tcproto` "Time synchronization"): its `txtime`
 * back, with the server's GPS time (µs) when the request arrived, and `MuxTime`. Station pairs
 * the two to learn the GPS time of its own clock.
 */
export function timesyncAnswer(txtime: number, receivedAt: Date): { msgtype: 'timesync'; txtime: number; gpstime: bigint; MuxTime: number } {
  return { msgtype: 'timesync', txtime, gpstime: gpsTimeOf(receivedAt), MuxTime: muxTimeOf(receivedAt) };
}

/**
 * A time transfer to a gateway without its own GPS (TTS `TransferTime`; station `handle_timesync`
 * with `xtime`): the GPS time (µs) the server knows for one of the gateway's xtimes, so that station
 * can schedule class B downlinks and beacons by GPS time.
 */
export function timeTransfer(xtime: bigint, gpstime: bigint, now: Date): { msgtype: 'timesync'; xtime: bigint; gpstime: bigint; MuxTime: number } {
  return { msgtype: 'timesync', xtime, gpstime, MuxTime: muxTimeOf(now) };
}
