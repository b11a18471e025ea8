import { ErrFieldMaskPaths } from '@lorawan/errors';
import { getPath } from '../json/dotted-path';
import { cloneJson } from '../json/plain';
import { isJsonObject, type JsonObject } from '../json/json-object';

/** Rejects paths outside `allowed` with `field_mask_paths` naming them (TTS's validator middleware). */
export function checkFieldMaskPaths(paths: readonly string[], allowed: ReadonlySet<string>): void {
  const forbidden = paths.filter((p) => !allowed.has(p));
  if (forbidden.length > 0) throw ErrFieldMaskPaths.with({ forbidden_paths: [...new Set(forbidden)] });
}

/** True if `path` or one of its parents is requested (TTS `HasAnyField`). */
export function hasAnyField(requested: readonly string[], path: string): boolean {
  return requested.some((r) => r === path || path.startsWith(`${r}.`));
}

/** True if any requested path is `path`, a parent of it, or a child of it. */
export function touchesField(requested: readonly string[], path: string): boolean {
  return requested.some((r) => r === path || path.startsWith(`${r}.`) || r.startsWith(`${path}.`));
}

/** Removes paths covered by a requested parent and duplicates (sorted). */
export function normalizePaths(paths: readonly string[]): string[] {
  const unique = new Set(paths);
  const out: string[] = [];
  // A path is covered when one of its dot-prefixes (`a`, `a.b` of `a.b.c`) is requested too.
  for (const p of unique) {
    let covered = false;
    for (let dot = p.indexOf('.'); dot >= 0 && !covered; dot = p.indexOf('.', dot + 1)) covered = unique.has(p.slice(0, dot));
    if (!covered) out.push(p);
  }
  return out.sort();
}

/** A copy of `source` holding only the given paths (a parent path selects the whole subtree). */
export function selectFields<T extends object>(source: T, paths: readonly string[]): Partial<T> {
  return selectSplitPaths(source, splitPaths(paths));
}

/**
 * `selectFields` with the paths normalised once, for callers that select the same paths again and
 * again (a registry's stored paths, the rows of a List).
 */
export function fieldSelector<T extends object>(paths: readonly string[]): (source: T) => Partial<T> {
  const split = splitPaths(paths);
  return (source) => selectSplitPaths(source, split);
}

function splitPaths(paths: readonly string[]): string[][] {
  return normalizePaths(paths).map((path) => path.split('.'));
}

/** `splitPaths` of masks seen before (a batch's requests mostly share one), at most `SPLIT_CACHE_SIZE` of them. */
const splitCache = new Map<string, readonly string[][]>();
const SPLIT_CACHE_SIZE = 256;

function splitPathsOf(paths: readonly string[]): readonly string[][] {
  const key = JSON.stringify(paths);
  let split = splitCache.get(key);
  if (!split) {
    if (splitCache.size >= SPLIT_CACHE_SIZE) splitCache.clear();
    splitCache.set(key, (split = splitPaths(paths)));
  }
  return split;
}

function selectSplitPaths<T extends object>(source: T, paths: readonly string[][]): Partial<T> {
  const out: JsonObject = {};
  for (const parts of paths) {
    const value = getPath(source as JsonObject, parts);
    if (value === undefined) continue;
    let cur = out;
    const last = parts.length - 1;
    for (let i = 0; i < last; i++) {
      const key = parts[i];
      if (!isJsonObject(cur[key])) cur[key] = {};
      cur = cur[key] as JsonObject;
    }
    cur[parts[last]] = value;
  }
  return out as Partial<T>;
}

/**
 * Applies `source` onto `target` at the given paths (Update/Set semantics): a masked path takes
 * the source's value, and a masked path absent from the source clears the field.
 */
export function applyFields<T extends object>(target: T, source: object, paths: readonly string[]): T {
  const out = cloneJson(target) as JsonObject;
  for (const parts of splitPathsOf(paths)) {
    const value = getPath(source as JsonObject, parts);
    let cur = out;
    for (const key of parts.slice(0, -1)) {
      if (!isJsonObject(cur[key])) {
        if (value === undefined) break;
        cur[key] = {};
      }
      cur = cur[key] as JsonObject;
    }
    const leaf = parts[parts.length - 1];
    if (value === undefined) delete cur[leaf];
    else cur[leaf] = cloneJson(value);
  }
  return out as T;
}

/** Top-level field names touched by the paths (`ids.dev_eui` → `ids`). */
export function topLevelFields(paths: readonly string[]): string[] {
  return [...new Set(paths.map((p) => p.split('.')[0]))];
}
