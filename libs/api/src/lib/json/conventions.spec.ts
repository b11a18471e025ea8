import { InvalidBytes, normalizeBase64, normalizeFixedBytes } from './bytes';
import { InvalidTimestamp, normalizeTimestamp, nowTimestamp, sqlToTimestamp, timestampToSql } from './timestamp';

describe('bytes', () => {
  it('accepts hex in any case or base64 (std/url, padding optional) and outputs upper-case hex', () => {
    expect(normalizeFixedBytes('70b3d57ed005b59e', 8)).toBe('70B3D57ED005B59E');
    expect(normalizeFixedBytes('cLPVftAFtZ4=', 8)).toBe('70B3D57ED005B59E');
    expect(normalizeFixedBytes('cLPVftAFtZ4', 8)).toBe('70B3D57ED005B59E');
    expect(normalizeFixedBytes('JgESNA==', 4)).toBe('26011234');
    expect(normalizeFixedBytes('', 8)).toBeUndefined();
  });

  it('rejects wrong lengths and non-strings', () => {
    expect(normalizeFixedBytes('70B3D57ED005B5', 8)).toBeInstanceOf(InvalidBytes);
    expect(normalizeFixedBytes('zz!', 8)).toBeInstanceOf(InvalidBytes);
    expect(normalizeFixedBytes(42, 8)).toBeInstanceOf(InvalidBytes);
  });

  it('normalizes other bytes to standard padded base64', () => {
    expect(normalizeBase64('AQI')).toBe('AQI=');
    expect(normalizeBase64('-_8=')).toBe('+/8=');
    expect(normalizeBase64('not base64!')).toBeInstanceOf(InvalidBytes);
  });
});

describe('timestamps', () => {
  it('accepts RFC 3339 UTC with 0–9 fractional digits, kept with microseconds', () => {
    expect(normalizeTimestamp('2024-05-01T10:00:00Z')).toBe('2024-05-01T10:00:00.000000Z');
    expect(normalizeTimestamp('2024-05-01T10:00:00.123456789Z')).toBe('2024-05-01T10:00:00.123456Z');
  });

  it('rejects offsets and impossible dates', () => {
    expect(normalizeTimestamp('2024-05-01T10:00:00+02:00')).toBeInstanceOf(InvalidTimestamp);
    expect(normalizeTimestamp('2024-02-30T10:00:00Z')).toBeInstanceOf(InvalidTimestamp);
    expect(normalizeTimestamp(1714557600)).toBeInstanceOf(InvalidTimestamp);
  });

  it('now() has microseconds and strictly increases', () => {
    const a = nowTimestamp();
    const b = nowTimestamp();
    expect(a).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(b > a).toBe(true);
  });

  it('round-trips through SQL DATETIME(6) text', () => {
    const ts = '2024-05-01T10:00:00.123456Z';
    expect(timestampToSql(ts)).toBe('2024-05-01 10:00:00.123456');
    expect(sqlToTimestamp(timestampToSql(ts))).toBe(ts);
  });
});
