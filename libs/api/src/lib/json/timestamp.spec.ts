import { microsToTimestamp, normalizeTimestamp, nowTimestamp, sqlToTimestamp, timestampToSql } from './timestamp';

describe('timestamps', () => {
  it('formats microseconds as RFC 3339 with six fraction digits, across second, day and year boundaries', () => {
    const at = (iso: string, micros: number) => Date.parse(iso) * 1000 + micros;
    expect(microsToTimestamp(at('2024-05-01T10:00:00Z', 123_456))).toBe('2024-05-01T10:00:00.123456Z');
    expect(microsToTimestamp(at('2024-05-01T10:00:00Z', 999_999))).toBe('2024-05-01T10:00:00.999999Z');
    expect(microsToTimestamp(at('2024-05-01T10:00:01Z', 0))).toBe('2024-05-01T10:00:01.000000Z');
    expect(microsToTimestamp(at('2024-12-31T23:59:59Z', 7))).toBe('2024-12-31T23:59:59.000007Z');
    expect(microsToTimestamp(at('2025-01-01T00:00:00Z', 70))).toBe('2025-01-01T00:00:00.000070Z');
    // Back to an earlier second: the cached prefix is not reused.
    expect(microsToTimestamp(at('2024-05-01T10:00:00Z', 1))).toBe('2024-05-01T10:00:00.000001Z');
    expect(microsToTimestamp(at('1969-12-31T23:59:59Z', 500_000))).toBe('1969-12-31T23:59:59.500000Z');
  });

  it('gives strictly increasing timestamps that sort as text', () => {
    const stamps = Array.from({ length: 1000 }, () => nowTimestamp());
    for (let i = 1; i < stamps.length; i++) expect(stamps[i] > stamps[i - 1]).toBe(true);
    expect(stamps[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  it('normalizes RFC 3339 input and refuses what is not UTC or not a date', () => {
    expect(normalizeTimestamp('2024-05-01T10:00:00.1Z')).toBe('2024-05-01T10:00:00.100000Z');
    expect(normalizeTimestamp('2024-05-01T10:00:00.123456789Z')).toBe('2024-05-01T10:00:00.123456Z');
    expect(normalizeTimestamp(undefined)).toBeUndefined();
    expect(normalizeTimestamp('2024-02-30T10:00:00Z')).toHaveProperty('reason', 'timestamp is not a valid date and time');
    expect(normalizeTimestamp('2024-05-01T10:00:00+02:00')).toHaveProperty('reason', 'timestamp must be RFC 3339 in UTC (ending in Z)');
  });

  it('converts to and from SQL DATETIME(6) text', () => {
    expect(timestampToSql('2024-05-01T10:00:00.123456Z')).toBe('2024-05-01 10:00:00.123456');
    expect(sqlToTimestamp('2024-05-01 10:00:00.123456')).toBe('2024-05-01T10:00:00.123456Z');
    expect(sqlToTimestamp('2024-05-01 10:00:00')).toBe('2024-05-01T10:00:00.000000Z');
  });
});
