import { PingSlotPeriod } from '@lorawan/api';
import { aesEncrypt, leBytes } from '@lorawan/crypto';
import { getBand, hz } from '../frequency-plans/bands';
import type { BandId, Hz } from '../frequency-plans/types';

/**
 * Class B downlink slot timing (LoRaWAN 1.0.4 §13 "Class B downlink slot timing", §13.2 slot
 * randomization; the same text in LoRaWAN 1.1; TTS `pkg/networkserver/mac/utils.go` NextPingSlotAt,
 * DevicePingSlotFrequency and `pkg/crypto/ping_slot.go` ComputePingOffset). Time is GPS time in
 * milliseconds since the GPS epoch (1980-01-06), the clock beacons and `tmms` run on; convert with
 * `utcToGpsMs` / `gpsMsToUtc`.
 *
 * A beacon goes out every 128 s at a GPS time that is a multiple of 128 s; the first 2.120 s after
 * it are reserved for the beacon, and the 122.880 s after that are 4096 ping slots of 30 ms. A
 * device listening `pingNb` times per beacon period opens one slot every `pingPeriod` slots
 * (pingNb × pingPeriod = 4096), starting at an offset that changes every beacon period so that
 * devices do not collide systematically. TTS adds the 1.5 µs beacon delay (tBeaconDelay) to each
 * slot start; at millisecond resolution that is nothing.
 */

/** Beacon period (LoRaWAN 1.0.4 §13.1): beacons start at GPS times that are multiples of it. */
export const BEACON_PERIOD_MS = 128_000;
/** Start of a beacon period reserved for the beacon itself (beacon_reserved). */
export const BEACON_RESERVED_MS = 2_120;
/** Length of one ping slot (slotLen). */
export const PING_SLOT_LENGTH_MS = 30;
/** Ping slots of a beacon window (the period after the reserved part): 4096 × 30 ms = 122.88 s. */
export const PING_SLOT_COUNT = 4096;

/** How often a device opens a ping slot: `pingNb` slots per beacon period, one every `pingPeriod` slots. */
export interface PingSlotSchedule {
  /** PingSlotPeriod value 0–7 (PING_EVERY_1S … PING_EVERY_128S): a slot every 2^periodicity s. */
  periodicity: number;
  /** Slots per beacon period: 2^(7 − periodicity). */
  pingNb: number;
  /** Slots between two of the device's slots: 2^(5 + periodicity). */
  pingPeriod: number;
}

/**
 * The schedule of a PingSlotPeriod, by name (`PING_EVERY_8S`, as the API carries
 * `ping_slot_periodicity`) or value (0–7, as PingSlotInfoReq carries it, §14.1).
 */
export function pingSlotSchedule(periodicity: string | number): PingSlotSchedule {
  const name = PingSlotPeriod.parse(periodicity);
  if (name === undefined)
    throw new RangeError(`ping slot periodicity must be a PingSlotPeriod (PING_EVERY_1S … PING_EVERY_128S or 0–7), got ${JSON.stringify(periodicity)}`);
  const value = PingSlotPeriod.values[name];
  return { periodicity: value, pingNb: 2 ** (7 - value), pingPeriod: 2 ** (5 + value) };
}

/** Start (GPS ms) of the beacon period containing `gpsMs` (TTS beaconTimeBefore). */
export function beaconTimeBefore(gpsMs: number): number {
  if (!Number.isFinite(gpsMs)) throw new RangeError('a GPS time must be a finite number of milliseconds');
  return Math.floor(gpsMs / BEACON_PERIOD_MS) * BEACON_PERIOD_MS;
}

const ZERO_KEY = Buffer.alloc(16);

/**
 * The device's first ping slot in a beacon period, in slots after the reserved part (§13.2):
 * Rand = aes128_encrypt(16 × 0x00, BeaconTime | DevAddr | 8 × 0x00), with BeaconTime (the beacon's
 * `Time` field: GPS seconds modulo 2^32) and DevAddr little-endian; pingOffset = (Rand[0] +
 * Rand[1] × 256) mod pingPeriod. `devAddr` is the API's big-endian hex (`01020304`). As TTS, a
 * `pingPeriod` that is no power of two in [32, 4096] is refused.
 */
export function pingOffset(beaconTimeSeconds: number, devAddr: string, pingPeriod: number): number {
  if (!Number.isSafeInteger(beaconTimeSeconds) || beaconTimeSeconds < 0) throw new RangeError('the beacon time must be whole GPS seconds');
  if (!Number.isInteger(pingPeriod) || pingPeriod < 32 || pingPeriod > PING_SLOT_COUNT || (pingPeriod & (pingPeriod - 1)) !== 0)
    throw new RangeError(`ping period must be a power of 2 between 32 and ${PING_SLOT_COUNT}, got ${pingPeriod}`);
  const block = Buffer.alloc(16);
  block.writeUInt32LE(beaconTimeSeconds % 2 ** 32, 0);
  leBytes(devAddr, 4, 'DevAddr').copy(block, 4);
  const rand = aesEncrypt(ZERO_KEY, block);
  return (rand[0] + rand[1] * 256) % pingPeriod;
}

/**
 * Start times (GPS ms) of the device's `pingNb` ping slots in the beacon period starting at
 * `beaconGpsMs`: beacon + 2.120 s + (pingOffset + N × pingPeriod) × 30 ms, N = 0 … pingNb − 1.
 */
export function pingSlotsOf(devAddr: string, periodicity: string | number, beaconGpsMs: number): number[] {
  if (beaconTimeBefore(beaconGpsMs) !== beaconGpsMs) throw new RangeError(`a beacon time is a multiple of ${BEACON_PERIOD_MS} GPS ms, got ${beaconGpsMs}`);
  const { pingNb, pingPeriod } = pingSlotSchedule(periodicity);
  const offset = pingOffset(beaconGpsMs / 1000, devAddr, pingPeriod);
  return Array.from({ length: pingNb }, (_, n) => beaconGpsMs + BEACON_RESERVED_MS + (offset + n * pingPeriod) * PING_SLOT_LENGTH_MS);
}

/**
 * GPS ms of the device's first ping slot starting at or after `afterGpsMs` (TTS NextPingSlotAt):
 * the rest of the current beacon period's slots, else the next period's first (every period has
 * at least one slot, so at most two periods are looked at).
 */
export function nextPingSlot(devAddr: string, periodicity: string | number, afterGpsMs: number): number {
  for (let beacon = beaconTimeBefore(afterGpsMs); ; beacon += BEACON_PERIOD_MS) {
    const slot = pingSlotsOf(devAddr, periodicity, beacon).find((t) => t >= afterGpsMs);
    if (slot !== undefined) return slot;
  }
}

/**
 * Default ping slot frequencies by band (TTS `pkg/band` PingSlotFrequencies): the band table's one
 * fixed channel, or the channels its beacons hop over per beacon period (US915/AU915: the eight
 * 500 kHz downlink channels, 923.3 MHz + 600 kHz × i; CN470: 508.3 MHz + 200 kHz × i). One source
 * with the band table: IN865 is 866.5 MHz there, as in TTS (RP002 and LoRaMac-node have 866.55 MHz).
 */
function defaultPingSlotFrequencies(bandId: BandId): readonly Hz[] {
  const band = getBand(bandId);
  if (band.beacon_frequencies) return band.beacon_frequencies;
  return band.ping_slot_frequency ? [band.ping_slot_frequency] : [];
}

/**
 * The frequency of a device's ping slots in the beacon period of `beaconTimeSeconds` (GPS seconds;
 * TTS DevicePingSlotFrequency): the one PingSlotChannelReq set (`configured`; 0 or unset means the
 * default, §14.2), else the band's. Where the band hops (RP002 US902-928 and AU915-928, RP001
 * CN470-510, "Class B downlink channel"), channel = (DevAddr + floor(beaconTime / 128 s)) mod 8, DevAddr as the
 * number its hex spells.
 */
export function pingSlotFrequency(bandId: BandId, devAddr: string, beaconTimeSeconds: number, configured?: Hz | number): Hz {
  if (configured !== undefined && Number(configured) > 0) return hz(Number(configured));
  const frequencies = defaultPingSlotFrequencies(bandId);
  if (frequencies.length === 0) throw new RangeError(`no ping slot frequency for band ${JSON.stringify(bandId)}`);
  if (frequencies.length === 1) return frequencies[0];
  // The little-endian bytes read back little-endian: the hex's value, validated.
  const addr = leBytes(devAddr, 4, 'DevAddr').readUInt32LE(0);
  const period = Math.floor(beaconTimeSeconds / (BEACON_PERIOD_MS / 1000));
  return frequencies[(addr + period) % frequencies.length];
}
