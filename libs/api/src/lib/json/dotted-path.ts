import { isJsonObject, type JsonObject } from './json-object';

/**
 * Dotted field paths (`end_device.ids.device_id`): reading and writing a value at a path of a
 * JSON object. The one helper for the RPC table's entity paths, field masks, the gateway's
 * path variables and the registries' key envelopes.
 */

/** Path parts that would reach an object's prototype instead of a field: never written. */
const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether every part of a path is a field name that may be written (non-empty, not a prototype key). */
export function safePathParts(parts: readonly string[]): boolean {
  return parts.every((p) => p !== '' && !UNSAFE.has(p));
}

/** The value at `path` (a dotted string or its parts), undefined where the path leaves the objects (lists are not entered). */
export function getPath(obj: unknown, path: string | readonly string[]): unknown {
  let cur = obj;
  for (const part of typeof path === 'string' ? path.split('.') : path) {
    if (!isJsonObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

/**
 * Sets the value at `path`, creating (or replacing non-object) intermediate objects. Throws on a
 * part that is empty or a prototype key: callers check user-given paths first, with `safePathParts`.
 */
export function setPath(obj: JsonObject, path: string | readonly string[], value: unknown): void {
  const parts = typeof path === 'string' ? path.split('.') : path;
  if (!safePathParts(parts)) throw new Error(`unsafe field path "${parts.join('.')}"`);
  let cur = obj;
  const last = parts.length - 1;
  for (let i = 0; i < last; i++) {
    const next = cur[parts[i]];
    if (!isJsonObject(next)) cur[parts[i]] = {};
    cur = cur[parts[i]] as JsonObject;
  }
  cur[parts[last]] = value;
}

/** Removes the field at `path`, if its parent is there. */
export function deletePath(obj: JsonObject, path: string | readonly string[]): void {
  const parts = typeof path === 'string' ? path.split('.') : path;
  const parent = parts.length > 1 ? getPath(obj, parts.slice(0, -1)) : obj;
  if (isJsonObject(parent)) delete parent[parts[parts.length - 1]];
}
