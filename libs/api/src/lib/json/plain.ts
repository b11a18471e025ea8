/**
 * Decoded request messages are class instances: this is their plain JSON data (what is stored,
 * compared and sent on). `undefined` stays `undefined`. The same as `JSON.parse(JSON.stringify(v))`
 * (`toJSON` called, undefined and function members dropped, in arrays `null`, non-finite numbers
 * `null`, a BigInt refused), without the text in between: a registry converts every device it
 * is sent, a batch a thousand at a time.
 */
export function plainJson<T>(value: T): T {
  return value === undefined ? value : (plainValue(value, '') as T);
}

function plainValue(value: unknown, key: string): unknown {
  if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value + 0 : null; // -0 + 0 is 0, as JSON writes it
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object': {
      if (value === null) return null;
      if (value instanceof Number || value instanceof String || value instanceof Boolean) return plainValue(value.valueOf(), key);
      if (Array.isArray(value)) {
        const out = new Array<unknown>(value.length);
        for (let i = 0; i < value.length; i++) out[i] = plainValue(value[i], String(i)) ?? null;
        return out;
      }
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(value)) {
        const v = plainValue((value as Record<string, unknown>)[k], k);
        if (v !== undefined) setOwn(out, k, v);
      }
      return out;
    }
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
}

/**
 * A deep copy of JSON data (plain objects, arrays, primitives) as `structuredClone` makes it, at a
 * fraction of its cost for the small values a field mask moves; anything else (a Date, a Map, a
 * class instance) is left to `structuredClone`.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i]);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) setOwn(out, k, cloneJson((value as Record<string, unknown>)[k]));
  return out as T;
}

/** `out[key] = value`, also for a key named `__proto__` (an own property, as JSON.parse makes it, not the prototype). */
function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}
