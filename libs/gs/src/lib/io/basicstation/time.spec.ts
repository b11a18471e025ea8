import {
  gpsTimeOf,
  gpsTimeOfRfc3339,
  timeTransfer,
  MAX_ROUND_TRIP_MS,
  roundTripMs,
  sessionOfXtime,
  timestampOfXtime,
  timesyncAnswer,
  utcOfGpsTime,
  utcOfUnixSeconds,
  xtimeOfTimestamp,
} from './time';

const SESSION = 0x012an << 48n; // radio unit 1, session 0x2A

describe('station times (ral.h xtime, GPS time, MuxTime)', () => {
  it('an xtime`s concentrator timestamp (low 32 bits) and session (top 16 bits)', () => {
    const xtime = SESSION | 0x1_0000_0005n;
    expect(timestampOfXtime(xtime)).toBe(5);
    expect(sessionOfXtime(xtime)).toBe(0x012a);
  });

  it('the xtime of a timestamp: the reference`s session, the microseconds nearest the reference, across 32-bit wraps', () => {
    const ref = SESSION | 0x3_ffff_ff00n;
    // Just after the wrap that follows the reference.
    expect(xtimeOfTimestamp(ref, 0x100)).toBe(SESSION | 0x4_0000_0100n);
    // Shortly before the reference (an uplink's timestamp, the reference a later one).
    expect(xtimeOfTimestamp(SESSION | 0x4_0000_0100n, 0xffff_ff00)).toBe(SESSION | 0x3_ffff_ff00n);
    // Same period.
    expect(xtimeOfTimestamp(SESSION | 0x2_0000_0000n, 1_000_000)).toBe(SESSION | 0x2_000f_4240n);
    // The first period never goes below zero.
    expect(xtimeOfTimestamp(SESSION | 0x10n, 0xffff_fff0)).toBe(SESSION | 0xffff_fff0n);
    // Round trip with timestampOfXtime.
    const x = SESSION | 123_456_789_012n;
    expect(xtimeOfTimestamp(x + 1_000_000n, timestampOfXtime(x))).toBe(x);
  });

  it('GPS µs of a server time and back (18 leap seconds; the UDP frontend`s tmms example)', () => {
    expect(gpsTimeOf(new Date('2026-11-24T10:00:00.123Z'))).toBe(1_479_549_618_123_000n);
    expect(utcOfGpsTime(1_479_549_618_123_456n)).toBe('2026-11-24T10:00:00.123456Z');
    expect(utcOfUnixSeconds(1764320000.25)).toBe('2025-11-28T08:53:20.250000Z');
    expect(gpsTimeOfRfc3339('2026-11-24T10:00:00.123456Z')).toBe(1_479_549_618_123_456n);
    expect(gpsTimeOfRfc3339('2026-11-24T10:00:00Z')).toBe(1_479_549_618_000_000n);
    expect(gpsTimeOfRfc3339('2026-11-24T10:00:00.123456789Z')).toBe(1_479_549_618_123_456n);
    for (const text of ['2026-11-24 10:00:00Z', '2026-11-24T10:00:00+01:00', '2026-13-24T10:00:00Z', '']) expect(gpsTimeOfRfc3339(text)).toBeUndefined();
  });

  it('round-trip time from RefTime: only when it is in the past and recent', () => {
    const at = new Date('2025-11-28T08:53:20.250Z');
    expect(roundTripMs(1764320000.1, at)).toBeCloseTo(150, 3);
    expect(roundTripMs(undefined, at)).toBeUndefined();
    expect(roundTripMs(1764320000.3, at)).toBeUndefined();
    expect(roundTripMs(1764320000.25 - (MAX_ROUND_TRIP_MS + 1) / 1000, at)).toBeUndefined();
    expect(MAX_ROUND_TRIP_MS).toBe(10_000);
    expect(roundTripMs(1764320000.1, at, 100)).toBeUndefined();
  });

  it('the timesync answer echoes txtime with the server`s GPS time and MuxTime', () => {
    expect(timesyncAnswer(123456789, new Date('2026-11-24T10:00:00.123Z'))).toEqual({
      msgtype: 'timesync',
      txtime: 123456789,
      gpstime: 1_479_549_618_123_000n,
      MuxTime: Date.parse('2026-11-24T10:00:00.123Z') / 1000,
    });
  });

  it('a time transfer pairs one of the gateway`s xtimes with its GPS time', () => {
    const now = new Date('2026-11-24T10:00:00.123Z');
    expect(timeTransfer(SESSION | 5n, 1_479_549_618_123_000n, now)).toEqual({
      msgtype: 'timesync',
      xtime: SESSION | 5n,
      gpstime: 1_479_549_618_123_000n,
      MuxTime: now.getTime() / 1000,
    });
  });
});
