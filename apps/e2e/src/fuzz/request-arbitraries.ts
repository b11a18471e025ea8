/**
 * fast-check arbitraries for request bodies, derived from a contract class's validation metadata:
 * class-validator's entries (the names and `constraints` of `libs/api/src/lib/json/fields.ts`'s
 * checks: string length/pattern, enum, integer/float ranges, fixed-size bytes, lists, maps) and
 * class-transformer's `@Type` for embedded messages. `validish` builds values meant to pass;
 * `mutant` builds the ones meant to break a field (wrong types, limits ±1, strings breaking the
 * pattern, unknown enum names, unicode with lone surrogates and NUL, deep nesting, huge arrays,
 * prototype-named keys).
 */
import fc from 'fast-check';
import type { ClassConstructor } from 'class-transformer';
import { type FieldRule as Rule, fieldsOf, hasRule as has, isRequiredField, nestedClass, ruleConstraint as constraint } from '@lorawan/api';
import { ABUSIVE_FORMATTERS } from '@lorawan/testing';

type Json = unknown;
interface EnumLike {
  names: readonly string[];
}

/** Strings that break things: unicode, lone surrogates, NUL, control characters, RTL marks, long runs. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '\u202e',
    '\ufeff',
    '💩',
    '%00',
    '../..',
    "'; DROP TABLE x; --",
    '${{7*7}}',
    '',
    ' ',
    '\n',
    'null',
  ),
  fc.nat({ max: 70_000 }).map((n) => 'a'.repeat(n)),
);

/** Keys that are also Object.prototype names. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'] as const;

/** An object with own keys (built with Object.fromEntries so `__proto__` is an own, serialised key). */
const objectWithKeys = (keys: fc.Arbitrary<string[]>, value: fc.Arbitrary<Json>) =>
  fc.tuple(keys, fc.array(value, { minLength: 8, maxLength: 8 })).map(([ks, vs]) => Object.fromEntries(ks.map((k, i) => [k, vs[i % vs.length]])));

/** `{"a":{"a":…}}`, `depth` levels deep. */
export function deep(depth: number, leaf: Json = {}): Json {
  let v: Json = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

/** Any wrong value for a field: other JSON types, huge numbers, nested junk, prototype keys. */
export const wrongValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, '', [], {}, [null], { value: null }, '1e400', 'NaN', 'Infinity'),
  nastyString,
  fc.integer(),
  fc.double(),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.nat({ max: 200 }).map((d) => deep(d)),
  fc.nat({ max: 200 }).map((d) => (d === 0 ? [] : JSON.parse('['.repeat(d) + ']'.repeat(d)))),
  fc.nat({ max: 20_000 }).map((n) => new Array<number>(n).fill(1)),
  objectWithKeys(fc.subarray([...PROTOTYPE_KEYS], { minLength: 1 }), fc.oneof(fc.constant('x'), fc.constant({}), fc.constant(null))),
  fc.jsonValue({ maxDepth: 4 }),
);

const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex').toUpperCase());

function stringRules(rules: Rule[]): { maxLength?: number; pattern?: RegExp } {
  return (constraint(rules, 'string_rules') ?? {}) as { maxLength?: number; pattern?: RegExp };
}

/** A value meant to satisfy the field's rules (best effort: cross-field rules may still refuse it). */
export function validish(cls: ClassConstructor<object>, property: string, rules: Rule[], depth: number, paths?: readonly string[]): fc.Arbitrary<Json> {
  if (property === 'field_mask' && has(rules, 'field_mask')) {
    return paths && paths.length > 0
      ? fc.subarray([...paths], { maxLength: Math.min(6, paths.length) }).map((p) => ({ paths: p }))
      : fc.constant({ paths: [] });
  }
  // Payload formatter scripts, the abusive ones of issue 29 among them: the AS runs what it accepts.
  if (property.endsWith('_formatter_parameter')) return fc.oneof(fc.constantFrom(...ABUSIVE_FORMATTERS.map((f) => f.script)), fc.string({ maxLength: 50 }));
  if (has(rules, 'string_rules') || has(rules, 'string')) {
    const { maxLength, pattern } = stringRules(rules);
    if (pattern) return fc.stringMatching(pattern).filter((s) => maxLength === undefined || [...s].length <= maxLength);
    return fc.string({ unit: 'grapheme', maxLength: Math.min(maxLength ?? 50, 50) });
  }
  const enumRule = constraint(rules, 'enum') as { protoEnum: EnumLike; list?: boolean; maxItems?: number } | undefined;
  if (enumRule) {
    const name = fc.constantFrom(...enumRule.protoEnum.names);
    return enumRule.list ? fc.array(name, { maxLength: Math.min(enumRule.maxItems ?? 4, 4) }) : name;
  }
  for (const [name, lo, hi] of [
    ['uint32', 0, 0xffffffff],
    ['int32', -0x80000000, 0x7fffffff],
  ] as const) {
    if (has(rules, name)) {
      const r = (constraint(rules, `${name}_range`) ?? {}) as { min?: number; max?: number };
      return fc.integer({ min: r.min ?? lo, max: r.max ?? hi });
    }
  }
  if (has(rules, 'uint64')) {
    const r = (constraint(rules, 'uint64_range') ?? {}) as { min?: number; max?: number };
    return fc.bigInt({ min: BigInt(r.min ?? 0), max: BigInt(r.max ?? Number.MAX_SAFE_INTEGER) }).map(String);
  }
  if (has(rules, 'float')) {
    const r = (constraint(rules, 'float_range') ?? {}) as { min?: number; max?: number };
    return fc.double({ min: r.min ?? -1e6, max: r.max ?? 1e6, noNaN: true, noDefaultInfinity: true });
  }
  if (has(rules, 'bool')) return fc.boolean();
  for (const name of ['eui64', 'dev_addr', 'net_id', 'aes_key']) {
    const c = constraint(rules, name) as { length: number } | undefined;
    if (c) return hex(c.length);
  }
  if (has(rules, 'bytes')) {
    const c = (constraint(rules, 'bytes') ?? {}) as { maxBytes?: number; minBytes?: number };
    return fc.uint8Array({ minLength: c.minBytes ?? 0, maxLength: Math.min(c.maxBytes ?? 32, 64) }).map((b) => Buffer.from(b).toString('base64'));
  }
  if (has(rules, 'timestamp')) return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  if (has(rules, 'duration')) return fc.nat({ max: 100_000 }).map((n) => `${n / 1000}s`);
  if (has(rules, 'string_map')) return fc.dictionary(fc.stringMatching(/^[a-z0-9]{3,10}$/), fc.string({ maxLength: 20 }), { maxKeys: 3 });
  if (has(rules, 'struct')) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
  if (has(rules, 'uint64_list') || has(rules, 'integer_list')) return fc.array(fc.nat({ max: 1_000_000 }).map(String), { maxLength: 3 });
  if (has(rules, 'list')) return fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 });
  const nested = nestedClass(cls, property);
  if (nested && (has(rules, 'message') || has(rules, 'messages'))) {
    const one = depth > 4 ? fc.constant({}) : messageArbitrary(nested, { depth: depth + 1 });
    return has(rules, 'messages') ? fc.array(one, { maxLength: 2 }) : one;
  }
  return fc.constant(undefined);
}

/** Values meant to break the field's rules. */
export function mutant(rules: Rule[]): fc.Arbitrary<Json> {
  const specific: Array<fc.Arbitrary<Json>> = [];
  const { maxLength, pattern } = stringRules(rules);
  if (maxLength !== undefined) specific.push(fc.constantFrom('a'.repeat(maxLength + 1), 'a'.repeat(maxLength), 'a'.repeat(Math.max(0, maxLength - 1))));
  if (pattern) specific.push(fc.string({ unit: 'binary', maxLength: 30 }).filter((s) => !pattern.test(s)));
  const enumRule = constraint(rules, 'enum') as { protoEnum: EnumLike; list?: boolean } | undefined;
  if (enumRule) {
    const unknown = fc.oneof(fc.constantFrom('UNKNOWN_NAME', 'constructor', '__proto__', '-1', '999999'), fc.integer(), nastyString);
    specific.push(enumRule.list ? fc.array(unknown, { maxLength: 3 }) : unknown);
    if (enumRule.list) specific.push(fc.nat({ max: 5000 }).map((n) => new Array<string>(n).fill(enumRule.protoEnum.names[0])));
  }
  for (const name of ['uint32_range', 'int32_range', 'uint64_range', 'float_range']) {
    const r = constraint(rules, name) as { min?: number; max?: number } | undefined;
    if (r?.min !== undefined) specific.push(fc.constantFrom(r.min - 1, r.min, String(r.min - 1)));
    if (r?.max !== undefined) specific.push(fc.constantFrom(r.max + 1, r.max, String(r.max + 1)));
  }
  for (const name of ['eui64', 'dev_addr', 'net_id', 'aes_key']) {
    const c = constraint(rules, name) as { length: number } | undefined;
    if (c)
      specific.push(fc.constantFrom('0'.repeat(c.length * 2 - 1), '0'.repeat(c.length * 2 + 2), 'G'.repeat(c.length * 2), '0x' + '0'.repeat(c.length * 2)));
  }
  const list = (constraint(rules, 'list') ?? constraint(rules, 'messages')) as { maxItems?: number; minItems?: number } | undefined;
  if (list?.maxItems !== undefined) specific.push(fc.constant(new Array<string>(list.maxItems + 1).fill('a')));
  if (has(rules, 'string_map')) specific.push(objectWithKeys(fc.subarray([...PROTOTYPE_KEYS, 'ok-key'], { minLength: 1 }), fc.oneof(fc.string(), wrongValue)));
  return specific.length > 0 ? fc.oneof(fc.oneof(...specific), wrongValue) : wrongValue;
}

export interface MessageOptions {
  depth?: number;
  /** Allowed field-mask paths of the RPC (for its `field_mask`). */
  paths?: readonly string[];
}

/** A message of `cls`: required fields always, optional ones sometimes, each value valid-ish. */
export function messageArbitrary(cls: ClassConstructor<object>, o: MessageOptions = {}): fc.Arbitrary<Record<string, Json>> {
  const depth = o.depth ?? 0;
  const entries: Record<string, fc.Arbitrary<Json>> = {};
  const required: string[] = [];
  for (const [property, rules] of fieldsOf(cls)) {
    entries[property] = validish(cls, property, rules, depth, o.paths);
    if (isRequiredField(rules)) required.push(property);
  }
  return fc.record(entries, { requiredKeys: required }).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)));
}

/** Every field path of `cls` down to `maxDepth` with its rules (the places a mutation can go). */
export function fieldPaths(cls: ClassConstructor<object>, maxDepth = 3, prefix: string[] = []): Array<{ path: string[]; rules: Rule[] }> {
  const out: Array<{ path: string[]; rules: Rule[] }> = [];
  for (const [property, rules] of fieldsOf(cls)) {
    const path = [...prefix, property];
    out.push({ path, rules });
    const nested = nestedClass(cls, property);
    if (nested && has(rules, 'message') && path.length < maxDepth) out.push(...fieldPaths(nested, maxDepth, path));
  }
  return out;
}

/** `body` with `value` at `path` (objects created on the way; `__proto__` set as an own key). */
export function setPath(body: Record<string, Json>, path: string[], value: Json): Record<string, Json> {
  const root: Record<string, Json> = structuredClone(body);
  let cur: Record<string, Json> = root;
  for (const key of path.slice(0, -1)) {
    const next = Object.prototype.hasOwnProperty.call(cur, key) ? cur[key] : undefined;
    const obj = typeof next === 'object' && next !== null && !Array.isArray(next) ? (next as Record<string, Json>) : {};
    Object.defineProperty(cur, key, { value: obj, enumerable: true, writable: true, configurable: true });
    cur = obj;
  }
  Object.defineProperty(cur, path[path.length - 1], { value, enumerable: true, writable: true, configurable: true });
  return root;
}
