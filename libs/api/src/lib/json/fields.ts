import { Transform } from 'class-transformer';
import { ValidateBy, type ValidationOptions } from 'class-validator';
import type { ProtoEnum } from '../enums/enum';
import { InvalidBytes, normalizeBase64, normalizeFixedBytes } from './bytes';
import { InvalidTimestamp, normalizeTimestamp } from './timestamp';
import { isJsonObject } from './json-object';
import { keyProblem, MapCheck, type MapKeyRules } from './map-fields';

/**
 * Field decorators implementing the JSON conventions of the wire contract (§0). Each one
 * normalises the input during `plainToInstance` (hex/base64 → upper-case hex, enum number → name,
 * "123" → 123, …) and validates the result, so a decoded message holds canonical values only.
 * Invalid input is kept as an `Invalid` marker whose reason becomes the validation error's reason.
 */
class Invalid {
  constructor(readonly reason: string) {}
}

function reasonOf(value: unknown, fallback: string): string {
  return value instanceof Invalid || value instanceof InvalidBytes || value instanceof InvalidTimestamp ? value.reason : fallback;
}

function compose(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((d) => d(target, key));
}

/**
 * `google.protobuf.*Value` and TTS `*Value` wrapper fields. TTS marshals them as the bare value
 * (`thethings.json.message` `wrapper: true`), which is the contract's canonical form; on input the
 * bare value and the message form `{"value": X}` are both accepted. Field-mask paths may name the
 * wrapper's `value` sub-field (`mac_settings.rx1_delay.value`); see `wrapperFieldsOf`.
 */
export interface WrapperOption {
  wrapper?: boolean;
}

const WRAPPER_FIELDS = new WeakMap<object, Set<string>>();

function registerWrapper(options: WrapperOption | undefined): PropertyDecorator {
  return (target, key) => {
    if (!options?.wrapper) return;
    const fields = WRAPPER_FIELDS.get(target) ?? new Set<string>();
    fields.add(String(key));
    WRAPPER_FIELDS.set(target, fields);
  };
}

/** Names of the wrapper fields of a contract class. */
export function wrapperFieldsOf(cls: { prototype: object }): ReadonlySet<string> {
  return WRAPPER_FIELDS.get(cls.prototype) ?? new Set();
}

function unwrap(value: unknown, options: WrapperOption | undefined): unknown {
  if (!options?.wrapper || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return (value as { value?: unknown }).value;
}

/**
 * A check that accepts an absent value (`decodeMessage` skips the checks of undefined properties).
 * `constraints` expose the rule's parameters in class-validator's metadata (read by the fuzz suite's
 * request generator, `apps/e2e/src/fuzz/`); the check itself uses its closure.
 */
function check(
  name: string,
  valid: (value: unknown) => boolean,
  reason: (value: unknown) => string,
  options?: ValidationOptions,
  constraints?: unknown[],
): PropertyDecorator {
  return ValidateBy(
    {
      name,
      constraints,
      validator: {
        validate: (value) => value === undefined || valid(value),
        defaultMessage: (args) => reason(args?.value),
      },
    },
    options,
  );
}

const notInvalid = (v: unknown) => !(v instanceof Invalid || v instanceof InvalidBytes || v instanceof InvalidTimestamp);

/**
 * The list of a repeated field, or the reason it is refused before its items are converted: a list
 * longer than `maxItems` is refused at once, whatever its items (protoc-gen-validate's reason).
 */
function listOf(value: unknown, maxItems: number | undefined): unknown[] | Invalid {
  if (!Array.isArray(value)) return new Invalid('value must be a list');
  if (maxItems !== undefined && value.length > maxItems) return new Invalid(`value must contain no more than ${maxItems} item(s)`);
  return value;
}

/**
 * The class-transformer step of a repeated field: absent stays absent, a list is checked by
 * `listOf`, then each item converted by `item`; one item `item` refuses (`refused`) refuses the
 * whole list with `reason`.
 */
function listTransform<T>(maxItems: number | undefined, item: (v: unknown) => T, refused: (v: T) => boolean, reason: string): PropertyDecorator {
  return Transform(
    ({ value }) => {
      if (value === undefined || value === null) return undefined;
      const list = listOf(value, maxItems);
      if (list instanceof Invalid) return list;
      const out = list.map(item);
      return out.some(refused) ? new Invalid(reason) : out;
    },
    { toClassOnly: true },
  );
}

function fixedBytes(name: string, length: number): PropertyDecorator {
  return compose(
    Transform(({ value }) => normalizeFixedBytes(value, length), { toClassOnly: true }),
    check(name, notInvalid, (v) => reasonOf(v, `invalid ${name}`), undefined, [{ length }]),
  );
}

/** 8-byte EUI (DevEUI, JoinEUI, gateway EUI). */
export const Eui64 = () => fixedBytes('eui64', 8);
/** 4-byte DevAddr. */
export const DevAddr = () => fixedBytes('dev_addr', 4);
/** 3-byte NetID. */
export const NetId = () => fixedBytes('net_id', 3);
/** 16-byte AES-128 key. */
export const AesKey = () => fixedBytes('aes_key', 16);

/** Other `bytes`: standard base64. */
export function Base64Bytes(maxBytes?: number, minBytes?: number): PropertyDecorator {
  return compose(
    Transform(
      ({ value }) => {
        const out = normalizeBase64(value);
        if (out instanceof InvalidBytes) return new Invalid(out.reason);
        if (out !== undefined && maxBytes !== undefined && Buffer.from(out, 'base64').length > maxBytes) {
          return new Invalid(`value length must be at most ${maxBytes} bytes`);
        }
        if (out !== undefined && minBytes !== undefined && Buffer.from(out, 'base64').length < minBytes) {
          return new Invalid(`value length must be at least ${minBytes} bytes`);
        }
        return out;
      },
      { toClassOnly: true },
    ),
    check('bytes', notInvalid, (v) => reasonOf(v, 'invalid bytes'), undefined, [{ maxBytes, minBytes }]),
  );
}

/** google.protobuf.Timestamp: RFC 3339 UTC, stored with microseconds. */
export function Timestamp(): PropertyDecorator {
  return compose(
    Transform(({ value }) => normalizeTimestamp(value), { toClassOnly: true }),
    check('timestamp', notInvalid, (v) => reasonOf(v, 'invalid timestamp')),
  );
}

function parseEnum(protoEnum: ProtoEnum, value: unknown): string | number | undefined {
  const name = protoEnum.parse(value);
  return name === undefined ? undefined : protoEnum.canonical(name);
}

/**
 * An enum (input: name, number or prefix-less name), `defined_only` as the seed asks. Canonical
 * form is the name, except for the enums TTS marshals as numbers (DataRateIndex, DataRateOffset,
 * RxDelay), which are kept as numbers.
 */
export function EnumName(protoEnum: ProtoEnum, options?: WrapperOption): PropertyDecorator {
  return compose(
    registerWrapper(options),
    Transform(
      ({ value }) => {
        const raw = unwrap(value, options);
        if (raw === undefined || raw === null) return undefined;
        return parseEnum(protoEnum, raw) ?? new Invalid(`value must be one of the defined ${protoEnum.typeName} values`);
      },
      { toClassOnly: true },
    ),
    check('enum', notInvalid, (v) => reasonOf(v, `invalid ${protoEnum.typeName}`), undefined, [{ protoEnum }]),
  );
}

/** Repeated enum by name, with an optional limit on the number of items. */
export function EnumNames(protoEnum: ProtoEnum, rules: { maxItems?: number } = {}): PropertyDecorator {
  return compose(
    listTransform(
      rules.maxItems,
      (v) => parseEnum(protoEnum, v),
      (v) => v === undefined,
      `each value must be one of the defined ${protoEnum.typeName} values`,
    ),
    check('enum', notInvalid, (v) => reasonOf(v, `invalid ${protoEnum.typeName}`), undefined, [{ protoEnum, list: true, maxItems: rules.maxItems }]),
  );
}

interface IntRange {
  min?: number;
  max?: number;
}

function toInteger(value: unknown, lo: number, hi: number, what: string): unknown {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < lo || n > hi) return new Invalid(`value must be a ${what}`);
  return n;
}

function rangeCheck(range: IntRange): (v: unknown) => boolean {
  return (v) => typeof v !== 'number' || ((range.min === undefined || v >= range.min) && (range.max === undefined || v <= range.max));
}

function rangeReason(range: IntRange): string {
  if (range.min !== undefined && range.max !== undefined) return `value must be inside range [${range.min}, ${range.max}]`;
  if (range.min !== undefined) return `value must be greater than or equal to ${range.min}`;
  return `value must be less than or equal to ${range.max}`;
}

function integer(name: string, lo: number, hi: number, range: IntRange, options?: WrapperOption): PropertyDecorator {
  return compose(
    registerWrapper(options),
    Transform(({ value }) => toInteger(unwrap(value, options), lo, hi, name), { toClassOnly: true }),
    check(name, notInvalid, (v) => reasonOf(v, `invalid ${name}`)),
    check(`${name}_range`, rangeCheck(range), () => rangeReason(range), undefined, [{ min: range.min, max: range.max }]),
  );
}

export const Uint32 = (range: IntRange & WrapperOption = {}) => integer('uint32', 0, 0xffffffff, range, range);
export const Int32 = (range: IntRange & WrapperOption = {}) => integer('int32', -0x80000000, 0x7fffffff, range, range);

const UINT64_MAX = 2n ** 64n - 1n;

/** A uint64 from a JSON number or decimal string, as its canonical decimal string. */
function toUint64(value: unknown): string | undefined | Invalid {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value === 'string' && /^\d{1,20}$/.test(value) && BigInt(value) <= UINT64_MAX) return BigInt(value).toString();
  return new Invalid('value must be a uint64');
}

function uint64InRange(range: IntRange): (v: unknown) => boolean {
  return (v) =>
    typeof v !== 'string' || ((range.min === undefined || BigInt(v) >= BigInt(range.min)) && (range.max === undefined || BigInt(v) <= BigInt(range.max)));
}

/**
 * 64-bit unsigned integer. TTS writes 64-bit integers as JSON strings (`"868100000"`), so the
 * canonical form is the decimal string; a number or a string is accepted on input.
 */
export function Uint64(range: IntRange & WrapperOption = {}): PropertyDecorator {
  return compose(
    registerWrapper(range),
    Transform(({ value }) => toUint64(unwrap(value, range)), { toClassOnly: true }),
    check('uint64', notInvalid, (v) => reasonOf(v, 'invalid uint64')),
    check('uint64_range', uint64InRange(range), () => rangeReason(range), undefined, [{ min: range.min, max: range.max }]),
  );
}

/** repeated uint64: decimal strings, each within the range; at most `maxItems` of them. */
export function Uint64List(range: IntRange & { maxItems?: number } = {}): PropertyDecorator {
  return compose(
    listTransform(range.maxItems, toUint64, (v) => v === undefined || v instanceof Invalid, 'each item must be a uint64'),
    check('uint64_list', notInvalid, (v) => reasonOf(v, 'invalid list')),
    List({ item: uint64InRange(range), itemReason: `each item: ${rangeReason(range)}` }),
  );
}

/** float / double (and FloatValue with `wrapper`). */
export function Float(range: IntRange & WrapperOption = {}): PropertyDecorator {
  return compose(
    registerWrapper(range),
    Transform(
      ({ value: input }) => {
        const value = unwrap(input, range);
        if (value === undefined || value === null) return undefined;
        const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
        return typeof n === 'number' && Number.isFinite(n) ? n : new Invalid('value must be a number');
      },
      { toClassOnly: true },
    ),
    check('float', notInvalid, (v) => reasonOf(v, 'invalid number')),
    check('float_range', rangeCheck(range), () => rangeReason(range), undefined, [{ min: range.min, max: range.max }]),
  );
}

/** bool, and google.protobuf.BoolValue (a nullable bool: null means unset). */
export function Bool(options?: WrapperOption): PropertyDecorator {
  return compose(
    registerWrapper(options),
    Transform(
      ({ value }) => {
        const raw = unwrap(value, options);
        return raw === null ? undefined : raw;
      },
      { toClassOnly: true },
    ),
    check(
      'bool',
      (v) => typeof v === 'boolean',
      () => 'value must be a boolean',
    ),
  );
}

interface StringRules {
  maxLength?: number;
  pattern?: RegExp;
}

/** A string with the seed's length / pattern rules (lengths count characters, as protoc-gen-validate does runes). */
export function Str(rules: StringRules = {}): PropertyDecorator {
  return compose(
    check(
      'string',
      (v) => typeof v === 'string',
      () => 'value must be a string',
    ),
    check(
      'string_rules',
      (v) => typeof v !== 'string' || ((rules.maxLength === undefined || [...v].length <= rules.maxLength) && (!rules.pattern || rules.pattern.test(v))),
      (v) =>
        typeof v === 'string' && rules.maxLength !== undefined && [...v].length > rules.maxLength
          ? `value length must be at most ${rules.maxLength} runes`
          : `value does not match regex pattern "${rules.pattern?.source}"`,
      undefined,
      [{ maxLength: rules.maxLength, pattern: rules.pattern }],
    ),
  );
}

/** Runes (code points) in `s`, as protoc-gen-validate counts lengths; a string of at most `max` UTF-16 units is within `max` runes. */
function runesWithin(s: string, max: number): boolean {
  return s.length <= max || [...s].length <= max;
}

/**
 * map<string,string> with optional rules (TTS's `map` rules: `max_pairs`, key and value rules).
 * Every own key is an entry, whatever its name; a broken rule names the entry (`attributes[key]`).
 */
export function StringMap(rules: MapKeyRules & { maxEntries?: number; maxValueLength?: number } = {}): PropertyDecorator {
  return MapCheck('string_map', (map) => {
    const keys = Object.keys(map);
    if (rules.maxEntries !== undefined && keys.length > rules.maxEntries) return { reason: `value must contain no more than ${rules.maxEntries} pair(s)` };
    for (const key of keys) {
      const badKey = keyProblem(key, rules);
      if (badKey !== undefined) return { key, reason: badKey };
      const value = map[key];
      if (typeof value !== 'string') return { key, reason: 'value must be a string' };
      if (rules.maxValueLength !== undefined && !runesWithin(value, rules.maxValueLength))
        return { key, reason: `value length must be at most ${rules.maxValueLength} runes` };
    }
    return undefined;
  });
}

/** Repeated scalars. */
export function List(rules: { minItems?: number; maxItems?: number; item?: (v: unknown) => boolean; itemReason?: string } = {}): PropertyDecorator {
  return check(
    'list',
    (v) =>
      // A value an element decorator already refused (e.g. an unknown enum name) is reported by that decorator.
      !notInvalid(v) ||
      (Array.isArray(v) &&
        (rules.minItems === undefined || v.length >= rules.minItems) &&
        (rules.maxItems === undefined || v.length <= rules.maxItems) &&
        (!rules.item || v.every(rules.item))),
    (v) => {
      if (!Array.isArray(v)) return 'value must be a list';
      if (rules.minItems !== undefined && v.length < rules.minItems) return `value must contain at least ${rules.minItems} item(s)`;
      if (rules.maxItems !== undefined && v.length > rules.maxItems) return `value must contain no more than ${rules.maxItems} item(s)`;
      return rules.itemReason ?? 'invalid item';
    },
    undefined,
    [{ minItems: rules.minItems, maxItems: rules.maxItems }],
  );
}

/** Coerces repeated 64-bit / 32-bit integers given as strings or numbers. */
export function IntegerList(range: IntRange & { minItems?: number; maxItems?: number } = {}): PropertyDecorator {
  return compose(
    listTransform(
      range.maxItems,
      (v) => toInteger(v, 0, Number.MAX_SAFE_INTEGER, 'unsigned integer'),
      (v) => v instanceof Invalid,
      'each item must be an unsigned integer',
    ),
    check('integer_list', notInvalid, (v) => reasonOf(v, 'invalid list')),
    List({ minItems: range.minItems, maxItems: range.maxItems, item: rangeCheck(range), itemReason: `each item: ${rangeReason(range)}` }),
  );
}

const DURATION_PROTO = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/;
const DURATION_GO = /^(-)?((?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+)$/;
const DURATION_UNIT_NANOS: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  µs: 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
/** google.protobuf.Duration's range: ±10,000 years. */
const DURATION_MAX_NANOS = 315_576_000_000n * 1_000_000_000n + 999_999_999n;

function decimalToNanos(int: string, frac: string, unitNanos: bigint): bigint {
  const digits = frac.padEnd(18, '0').slice(0, 18);
  return BigInt(int) * unitNanos + (BigInt(digits) * unitNanos) / 10n ** 18n;
}

/**
 * Parses a google.protobuf.Duration JSON string (`"1.5s"`, `"-0.000001s"`) and, as TTS's jsonplugin
 * also reads Go durations, `"1m30s"`, `"250ms"`. Returns the canonical protojson form (seconds with
 * 0, 3, 6 or 9 fractional digits: `"1.500s"`), undefined for null/absent, or an Invalid marker.
 */
export function normalizeDuration(value: unknown): string | undefined | Invalid {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return new Invalid('value must be a duration string such as "1.5s"');
  let negative = false;
  let nanos: bigint;
  const proto = DURATION_PROTO.exec(value);
  if (proto) {
    negative = proto[1] === '-';
    nanos = decimalToNanos(proto[2], proto[3] ?? '', 1_000_000_000n);
  } else {
    const go = DURATION_GO.exec(value);
    if (!go) return new Invalid('value must be a duration string such as "1.5s"');
    negative = go[1] === '-';
    nanos = 0n;
    for (const part of go[2].matchAll(/(\d+)(?:\.(\d+))?(ns|us|µs|ms|s|m|h)/g)) nanos += decimalToNanos(part[1], part[2] ?? '', DURATION_UNIT_NANOS[part[3]]);
  }
  if (nanos > DURATION_MAX_NANOS) return new Invalid('value is out of the duration range');
  const seconds = nanos / 1_000_000_000n;
  const fraction = nanos % 1_000_000_000n;
  let frac = '';
  if (fraction !== 0n) {
    frac = fraction.toString().padStart(9, '0');
    frac = frac.endsWith('000000') ? frac.slice(0, 3) : frac.endsWith('000') ? frac.slice(0, 6) : frac;
    frac = `.${frac}`;
  }
  return `${negative && nanos !== 0n ? '-' : ''}${seconds}${frac}s`;
}

/** google.protobuf.Duration: a string such as `"1.5s"`, kept in canonical form (`"1.500s"`). */
export function Duration(): PropertyDecorator {
  return compose(
    Transform(({ value }) => normalizeDuration(value), { toClassOnly: true }),
    check('duration', notInvalid, (v) => reasonOf(v, 'invalid duration')),
  );
}

/**
 * google.protobuf.Struct: any JSON object, its keys and values as given (every own key kept), not
 * validated further except, with `maxBytes`, its size as compact JSON (UTF-8).
 */
export function Struct(rules: { maxBytes?: number } = {}): PropertyDecorator {
  const { maxBytes } = rules;
  return compose(
    Transform(({ value }) => (value === null ? undefined : value), { toClassOnly: true }),
    check('struct', isJsonObject, () => 'value must be an object'),
    ...(maxBytes === undefined
      ? []
      : [
          check(
            'struct_size',
            (v) => !isJsonObject(v) || Buffer.byteLength(JSON.stringify(v), 'utf8') <= maxBytes,
            () => `value must be at most ${maxBytes} bytes as JSON`,
          ),
        ]),
  );
}

/** repeated string, with an optional limit on the number of items and on each item's length (runes). */
export function StringList(rules: { maxItems?: number; maxLength?: number } = {}): PropertyDecorator {
  return List({
    maxItems: rules.maxItems,
    item: (s) => typeof s === 'string' && (rules.maxLength === undefined || [...s].length <= rules.maxLength),
    itemReason: rules.maxLength === undefined ? 'each item must be a string' : `each item must be a string of at most ${rules.maxLength} runes`,
  });
}

export { Invalid as InvalidValue };
