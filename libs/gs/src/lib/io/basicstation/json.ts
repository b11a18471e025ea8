import { randomBytes } from 'node:crypto';
import { isJsonObject, type JsonObject } from '@lorawan/api';

/**
 * JSON as LoRa Basics Station writes it, read without trusting it. Station encodes 64-bit integers
 * (`xtime`, `gpstime`, EUIs as numbers) as plain JSON numbers, and an `xtime` carries the session
 * and radio unit in its top 16 bits, far past the 2^53 a JavaScript number holds exactly: such
 * integers come out of `parseStationJson` as `bigint`, every other number as a `number`.
 */

/** Why a message was refused: said to the log and the drop counter, never thrown to the socket's handler. */
export interface Refused {
  error: string;
}

/** A JSON string (numbers inside it are not tokens of their own) or a JSON number. */
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const INTEGER = /^-?\d+$/;

/**
 * The JSON text's value, integers beyond 2^53 as `bigint`; `Refused` for text that is not JSON.
 * Each unsafe integer is swapped for a string carrying a random marker before parsing (a string
 * the gateway could not have guessed) and turned into a `bigint` by the reviver.
 */
export function parseStationJson(text: string): { value: unknown } | Refused {
  let marker: string | undefined;
  const big: bigint[] = [];
  const prepared = text.replace(TOKEN, (token) => {
    if (!INTEGER.test(token) || Number.isSafeInteger(Number(token))) return token;
    marker ??= `\u0000${randomBytes(8).toString('hex')}:`;
    big.push(BigInt(token));
    return JSON.stringify(`${marker}${big.length - 1}`);
  });
  try {
    const value: unknown = JSON.parse(prepared, (_key, v: unknown) =>
      marker !== undefined && typeof v === 'string' && v.startsWith(marker) ? big[Number(v.slice(marker.length))] : v,
    );
    return { value };
  } catch {
    return { error: 'not JSON' } satisfies Refused;
  }
}

/** JSON text of a message to a station: `bigint`s written as plain integers, as station reads them. */
export function stringifyStationJson(value: unknown): string {
  // A random marker (hex digits only, so it needs no escaping) that no string of the message can hold by chance.
  const marker = `bigint-${randomBytes(8).toString('hex')}:`;
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${marker}${v}` : v));
  return text.replace(new RegExp(`"${marker}(-?\\d+)"`, 'g'), '$1');
}

/** A message field that is not what the protocol says (caught where a message is read, never escapes it). */
export class InvalidField extends Error {}

const describe = (key: string, what: string) => new InvalidField(`\`${key}\` must be ${what}`);

/** Reads the fields of one JSON object, each checked for type and range; a wrong one throws `InvalidField`. */
export class FieldReader {
  constructor(private readonly o: JsonObject) {}

  /** The object's own field (never one of Object.prototype's: `{"constructor": …}` is just a field). */
  private get(key: string): unknown {
    return Object.hasOwn(this.o, key) ? this.o[key] : undefined;
  }

  /** Whether the field is there and not null (station writes null for what it does not know). */
  has(key: string): boolean {
    const v = this.get(key);
    return v !== undefined && v !== null;
  }

  /** A finite number in [min, max]; `integer` also refuses fractions. */
  number(key: string, min: number, max: number, integer = false): number {
    const v = this.get(key);
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v)))
      throw describe(key, `${integer ? 'an integer' : 'a number'} in [${min}, ${max}]`);
    return v;
  }

  optionalNumber(key: string, min: number, max: number, integer = false): number | undefined {
    return this.has(key) ? this.number(key, min, max, integer) : undefined;
  }

  /** A 64-bit integer (a safe-integer number or a `bigint` of the parse) in [min, max]. */
  int64(key: string, min: bigint, max: bigint): bigint {
    const v = this.get(key);
    const value = typeof v === 'bigint' ? v : typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : undefined;
    if (value === undefined || value < min || value > max) throw describe(key, `an integer in [${min}, ${max}]`);
    return value;
  }

  optionalInt64(key: string, min: bigint, max: bigint): bigint | undefined {
    return this.has(key) ? this.int64(key, min, max) : undefined;
  }

  string(key: string, maxLength: number): string {
    const v = this.get(key);
    if (typeof v !== 'string' || v.length > maxLength) throw describe(key, `a string of at most ${maxLength} characters`);
    return v;
  }

  optionalString(key: string, maxLength: number): string | undefined {
    return this.has(key) ? this.string(key, maxLength) : undefined;
  }

  /** Hex digits (either case, even count) of at most `maxBytes` bytes. */
  hex(key: string, maxBytes: number): Buffer {
    const v = this.get(key);
    if (typeof v !== 'string' || v.length % 2 !== 0 || v.length > 2 * maxBytes || !/^[0-9a-fA-F]*$/.test(v))
      throw describe(key, `hex of at most ${maxBytes} bytes`);
    return Buffer.from(v, 'hex');
  }

  object(key: string): FieldReader {
    const v = this.get(key);
    if (!isJsonObject(v)) throw describe(key, 'an object');
    return new FieldReader(v);
  }

  /** The field itself, for readers of their own (EUIs). */
  raw(key: string): unknown {
    return this.get(key);
  }
}

/** `read`'s result, or `Refused` with the message of the field that was wrong. */
export function readFields<T>(o: unknown, what: string, read: (fields: FieldReader) => T): T | Refused {
  if (!isJsonObject(o)) return { error: `${what} is not a JSON object` };
  try {
    return read(new FieldReader(o));
  } catch (err) {
    if (err instanceof InvalidField) return { error: `${what}: ${err.message}` };
    throw err;
  }
}

/** `o` without its undefined fields (what JSON leaves out). */
export function withoutUndefined<T extends object>(o: T): T {
  for (const key of Object.keys(o) as Array<keyof T>) if (o[key] === undefined) delete o[key];
  return o;
}
