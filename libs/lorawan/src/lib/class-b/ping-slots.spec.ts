import { getBand } from '../frequency-plans/bands';
import { utcToGpsMs } from '../mac/mac-commands';
import {
  BEACON_PERIOD_MS,
  BEACON_RESERVED_MS,
  beaconTimeBefore,
  nextPingSlot,
  PING_SLOT_COUNT,
  PING_SLOT_LENGTH_MS,
  pingOffset,
  pingSlotFrequency,
  pingSlotSchedule,
  pingSlotsOf,
} from './ping-slots';

const PERIODICITIES = [
  'PING_EVERY_1S',
  'PING_EVERY_2S',
  'PING_EVERY_4S',
  'PING_EVERY_8S',
  'PING_EVERY_16S',
  'PING_EVERY_32S',
  'PING_EVERY_64S',
  'PING_EVERY_128S',
];
const DEV_ADDR = '260B1234';
/** A beacon time of 2026 (GPS ms), a multiple of 128 s. */
const BEACON = beaconTimeBefore(utcToGpsMs(new Date('2026-11-24T12:00:00Z')));

describe('class B ping slots (LoRaWAN 1.0.4 §13)', () => {
  it('computes the ping offset as TTS does (pkg/crypto/ping_slot_test.go vectors)', () => {
    expect(pingOffset(0, '00000000', 32)).toBe(6);
    expect(pingOffset(0xff42, '004200FF', 4096)).toBe(3994);
  });

  it('refuses a ping period that is no power of two in [32, 4096], a bad DevAddr and a bad beacon time', () => {
    for (const period of [0, 31, 48, 4097, 8192]) expect(() => pingOffset(0, '00000000', period)).toThrow(RangeError);
    expect(() => pingOffset(0, '0102', 32)).toThrow(/DevAddr/);
    expect(() => pingOffset(1.5, '00000000', 32)).toThrow(RangeError);
    expect(() => pingOffset(-128, '00000000', 32)).toThrow(RangeError);
  });

  it('the offset stays below the period and changes with the beacon period and the device', () => {
    const offsets = Array.from({ length: 64 }, (_, i) => pingOffset(BEACON / 1000 + 128 * i, DEV_ADDR, 4096));
    expect(offsets.every((o) => Number.isInteger(o) && o >= 0 && o < 4096)).toBe(true);
    expect(new Set(offsets).size).toBeGreaterThan(32);
    expect(pingOffset(BEACON / 1000, DEV_ADDR, 4096)).not.toBe(pingOffset(BEACON / 1000, '260B1235', 4096));
  });

  it('maps PingSlotPeriod names and values to pingNb = 2^(7−p) and pingPeriod = 2^(5+p) slots', () => {
    expect(pingSlotSchedule('PING_EVERY_1S')).toEqual({ periodicity: 0, pingNb: 128, pingPeriod: 32 });
    expect(pingSlotSchedule('PING_EVERY_128S')).toEqual({ periodicity: 7, pingNb: 1, pingPeriod: 4096 });
    expect(pingSlotSchedule(3)).toEqual(pingSlotSchedule('PING_EVERY_8S'));
    for (const p of PERIODICITIES) {
      const { periodicity, pingNb, pingPeriod } = pingSlotSchedule(p);
      expect(pingNb * pingPeriod).toBe(PING_SLOT_COUNT);
      // "Every 2^p s": 0.96 × 2^p s apart, the 122.88 s window shared out.
      expect(pingPeriod * PING_SLOT_LENGTH_MS).toBe(960 * 2 ** periodicity);
    }
    expect(() => pingSlotSchedule('PING_EVERY_3S')).toThrow(RangeError);
    expect(() => pingSlotSchedule(8)).toThrow(RangeError);
  });

  it('finds the beacon period a GPS time falls in', () => {
    expect(BEACON % BEACON_PERIOD_MS).toBe(0);
    expect(beaconTimeBefore(BEACON)).toBe(BEACON);
    expect(beaconTimeBefore(BEACON + BEACON_PERIOD_MS - 1)).toBe(BEACON);
    expect(beaconTimeBefore(BEACON - 1)).toBe(BEACON - BEACON_PERIOD_MS);
    expect(() => beaconTimeBefore(Number.NaN)).toThrow(RangeError);
  });

  it.each(PERIODICITIES)('%s: pingNb slots, pingPeriod × 30 ms apart from beacon + 2.120 s + offset × 30 ms, all inside the beacon window', (p) => {
    const { pingNb, pingPeriod } = pingSlotSchedule(p);
    for (const beacon of [BEACON, BEACON + BEACON_PERIOD_MS, 0]) {
      const slots = pingSlotsOf(DEV_ADDR, p, beacon);
      expect(slots).toHaveLength(pingNb);
      expect(slots[0]).toBe(beacon + BEACON_RESERVED_MS + pingOffset(beacon / 1000, DEV_ADDR, pingPeriod) * PING_SLOT_LENGTH_MS);
      for (let i = 1; i < slots.length; i++) expect(slots[i] - slots[i - 1]).toBe(pingPeriod * PING_SLOT_LENGTH_MS);
      for (const t of slots) {
        expect(t).toBeGreaterThanOrEqual(beacon + BEACON_RESERVED_MS);
        // The slot ends before the next beacon.
        expect(t + PING_SLOT_LENGTH_MS).toBeLessThanOrEqual(beacon + BEACON_PERIOD_MS);
      }
    }
    expect(() => pingSlotsOf(DEV_ADDR, p, BEACON + 1)).toThrow(RangeError);
  });

  it('next ping slot: a slot itself, the following one 1 ms later, and the next period’s first after the last', () => {
    const slots = pingSlotsOf(DEV_ADDR, 'PING_EVERY_8S', BEACON);
    expect(nextPingSlot(DEV_ADDR, 'PING_EVERY_8S', slots[3])).toBe(slots[3]);
    expect(nextPingSlot(DEV_ADDR, 'PING_EVERY_8S', slots[3] + 1)).toBe(slots[4]);
    expect(nextPingSlot(DEV_ADDR, 'PING_EVERY_8S', BEACON)).toBe(slots[0]);
    const next = pingSlotsOf(DEV_ADDR, 'PING_EVERY_8S', BEACON + BEACON_PERIOD_MS);
    expect(nextPingSlot(DEV_ADDR, 'PING_EVERY_8S', slots[slots.length - 1] + 1)).toBe(next[0]);
    // One slot per period: past it, the next period's.
    const [only] = pingSlotsOf(DEV_ADDR, 'PING_EVERY_128S', BEACON);
    expect(nextPingSlot(DEV_ADDR, 7, only + 1)).toBe(pingSlotsOf(DEV_ADDR, 7, BEACON + BEACON_PERIOD_MS)[0]);
  });

  it('next ping slot is the first of the device’s slots at or after any time (TTS NextPingSlotAt)', () => {
    for (let i = 0; i < 200; i++) {
      const p = PERIODICITIES[i % PERIODICITIES.length];
      const after = BEACON + Math.floor((((i * 7919) % 1000) / 1000) * 3 * BEACON_PERIOD_MS);
      const slot = nextPingSlot(DEV_ADDR, p, after);
      expect(slot).toBeGreaterThanOrEqual(after);
      const beacon = beaconTimeBefore(slot);
      expect(pingSlotsOf(DEV_ADDR, p, beacon)).toContain(slot);
      const skipped = [...pingSlotsOf(DEV_ADDR, p, beaconTimeBefore(after)), ...pingSlotsOf(DEV_ADDR, p, beaconTimeBefore(after) + BEACON_PERIOD_MS)].filter(
        (t) => t >= after && t < slot,
      );
      expect(skipped).toEqual([]);
    }
  });

  it('ping slot frequency: the configured one, else the band’s fixed channel (RP002)', () => {
    expect(pingSlotFrequency('EU_863_870', DEV_ADDR, BEACON / 1000)).toBe('869525000');
    expect(pingSlotFrequency('AS_923', DEV_ADDR, BEACON / 1000)).toBe('923400000');
    expect(pingSlotFrequency('IN_865_867', DEV_ADDR, BEACON / 1000)).toBe('866500000');
    expect(pingSlotFrequency('EU_863_870', DEV_ADDR, BEACON / 1000, '868300000')).toBe('868300000');
    expect(pingSlotFrequency('US_902_928', DEV_ADDR, BEACON / 1000, 869_100_000)).toBe('869100000');
    // PingSlotChannelReq with frequency 0 restores the default (§14.2).
    expect(pingSlotFrequency('EU_863_870', DEV_ADDR, BEACON / 1000, '0')).toBe('869525000');
    // EU and AS agree with the band table.
    for (const id of ['EU_863_870', 'AS_923'] as const) expect(pingSlotFrequency(id, DEV_ADDR, BEACON / 1000)).toBe(getBand(id).ping_slot_frequency);
  });

  it.each(['US_902_928', 'AU_915_928'] as const)('%s hops: 923.3 MHz + 600 kHz × ((DevAddr + floor(beaconTime / 128)) mod 8)', (band) => {
    expect(pingSlotFrequency(band, '00000000', 0)).toBe('923300000');
    expect(pingSlotFrequency(band, '00000000', 128)).toBe('923900000');
    expect(pingSlotFrequency(band, '00000000', 255)).toBe('923900000');
    expect(pingSlotFrequency(band, '00000007', 256)).toBe('923900000'); // (7 + 2) mod 8 = 1
    expect(pingSlotFrequency(band, 'FFFFFFFF', 128 * 5)).toBe(String(923_300_000 + 600_000 * ((0xffffffff + 5) % 8)));
    const seen = new Set(Array.from({ length: 8 }, (_, i) => pingSlotFrequency(band, DEV_ADDR, BEACON / 1000 + 128 * i)));
    expect([...seen].sort()).toEqual(Array.from({ length: 8 }, (_, i) => String(923_300_000 + 600_000 * i)));
  });
});
