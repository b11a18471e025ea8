/**
 * Bounded JSON: what a formatter's result may be when it leaves the sandbox. Both functions walk
 * with an explicit stack, never by recursion, so no output can exhaust a thread's stack.
 */

/** The message prefixes `boundedJsonStringify` throws with (a RangeError), so the caller can tell a bound from the script's own errors. */
export const OUTPUT_TOO_DEEP = 'output nested deeper than';
export const OUTPUT_TOO_LARGE = 'output longer than';

/**
 * `JSON.stringify(value)` with bounds: the text nests at most `maxDepth` arrays/objects and holds at
 * most `maxLength` characters, else a RangeError (`OUTPUT_TOO_DEEP` / `OUTPUT_TOO_LARGE`) is
 * thrown as soon as the bound is passed. Same text as JSON.stringify otherwise: `toJSON` (Dates),
 * boxed primitives unwrapped, `undefined`, functions and symbols left out of objects and `null` in
 * arrays, BigInt refused; a cycle is refused as too deep.
 *
 * Runs inside the QuickJS sandbox (its source is evaluated there, `Function.prototype.toString`):
 * keep it self-contained, with no imports, closures over module scope or syntax newer than ES2020.
 */
export function boundedJsonStringify(value: unknown, maxDepth: number, maxLength: number): string | undefined {
  type Frame = { container: Record<string, unknown> | unknown[]; keys: string[] | null; next: number; wrote: boolean };
  const parts: string[] = [];
  const stack: Frame[] = [];
  let length = 0;
  const emit = (text: string): void => {
    length += text.length;
    if (length > maxLength) throw new RangeError(`output longer than ${maxLength} characters`);
    parts.push(text);
  };
  const resolve = (holder: unknown, key: string, v: unknown): unknown => {
    let out = v;
    if (out !== null && typeof out === 'object' && typeof (out as { toJSON?: unknown }).toJSON === 'function') {
      out = (out as { toJSON: (key: string) => unknown }).toJSON.call(out, key);
    }
    if (out instanceof Number || out instanceof String || out instanceof Boolean) out = out.valueOf();
    return out;
  };
  /** Writes `v` (resolved); false when JSON has no text for it (undefined, a function, a symbol). */
  const write = (v: unknown): boolean => {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return false;
    if (v === null || typeof v !== 'object') {
      emit(JSON.stringify(v) as string);
      return true;
    }
    if (stack.length >= maxDepth) throw new RangeError(`output nested deeper than ${maxDepth} levels`);
    if (Array.isArray(v)) {
      emit('[');
      stack.push({ container: v, keys: null, next: 0, wrote: false });
    } else {
      emit('{');
      stack.push({ container: v as Record<string, unknown>, keys: Object.keys(v), next: 0, wrote: false });
    }
    return true;
  };

  if (!write(resolve({ '': value }, '', value))) return undefined;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    const count = frame.keys === null ? (frame.container as unknown[]).length : frame.keys.length;
    if (frame.next >= count) {
      emit(frame.keys === null ? ']' : '}');
      stack.pop();
      continue;
    }
    const index = frame.next++;
    if (frame.keys === null) {
      if (index > 0) emit(',');
      if (!write(resolve(frame.container, String(index), (frame.container as unknown[])[index]))) emit('null');
      continue;
    }
    const key = frame.keys[index];
    const v = resolve(frame.container, key, (frame.container as Record<string, unknown>)[key]);
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    emit(`${frame.wrote ? ',' : ''}${JSON.stringify(key)}:`);
    frame.wrote = true;
    write(v);
  }
  return parts.join('');
}

/** How deeply the arrays and objects of a JSON text nest (0 for a primitive), counted in one pass over the text. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}
