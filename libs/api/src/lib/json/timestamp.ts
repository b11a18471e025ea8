/**
 * Timestamps on the wire are RFC 3339 in UTC ending in `Z`. The stack keeps them as canonical
 * strings with microsecond precision (`2024-05-01T10:00:00.123456Z`), which sort as text.
 */
const INPUT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;

export class InvalidTimestamp {
  constructor(readonly reason: string) {}
}

export function normalizeTimestamp(value: unknown): string | undefined | InvalidTimestamp {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return new InvalidTimestamp('timestamp must be an RFC 3339 string');
  const m = INPUT.exec(value);
  if (!m) return new InvalidTimestamp('timestamp must be RFC 3339 in UTC (ending in Z)');
  const [, y, mo, d, h, mi, s, frac = ''] = m;
  const date = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s));
  if (date.getUTCFullYear() !== +y || date.getUTCMonth() !== +mo - 1 || date.getUTCDate() !== +d || +h > 23 || +mi > 59 || +s > 59) {
    return new InvalidTimestamp('timestamp is not a valid date and time');
  }
  return `${y}-${mo}-${d}T${h}:${mi}:${s}.${frac.padEnd(6, '0').slice(0, 6)}Z`;
}

let lastMicros = 0;

/** Now, with microsecond precision, strictly increasing within the process. */
export function nowTimestamp(): string {
  const ms = Date.now();
  // The microseconds within the millisecond from the monotonic clock (`performance.now()` is a
  // double: no BigInt to make on every event).
  const sub = Math.floor((performance.now() % 1) * 1000);
  let micros = ms * 1000 + sub;
  if (micros <= lastMicros) micros = lastMicros + 1;
  lastMicros = micros;
  return microsToTimestamp(micros);
}

/** The whole second `secondPrefix` is of (`2024-05-01T10:00:00`): consecutive timestamps mostly share it. */
let prefixSecond = Number.NaN;
let secondPrefix = '';

export function microsToTimestamp(micros: number): string {
  const second = Math.floor(micros / 1_000_000);
  if (second !== prefixSecond) {
    secondPrefix = new Date(second * 1000).toISOString().slice(0, 19); // 2024-05-01T10:00:00.000Z
    prefixSecond = second;
  }
  return `${secondPrefix}.${String(micros - second * 1_000_000).padStart(6, '0')}Z`;
}

/** `2024-05-01T10:00:00.123456Z` ⇄ `2024-05-01 10:00:00.123456` (SQL DATETIME(6) text). */
export function timestampToSql(ts: string): string {
  return `${ts.slice(0, 10)} ${ts.slice(11, 26)}`;
}

export function sqlToTimestamp(sql: string | Date): string {
  if (sql instanceof Date) return `${sql.toISOString().slice(0, 23)}000Z`;
  const [date, time] = sql.split(' ');
  const [hms, frac = ''] = time.split('.');
  return `${date}T${hms}.${frac.padEnd(6, '0').slice(0, 6)}Z`;
}
