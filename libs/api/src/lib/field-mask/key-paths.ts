import type { ClassConstructor } from 'class-transformer';
import { keyRoleOf } from '../json/key-material';
import { messageFields } from '../json/message-fields';

/** The field-mask paths of a message that reach key material, derived from its contract. */
export interface KeyPaths {
  /** Paths of key material (`session.keys.app_s_key.key`, …): reading or writing one needs the key rights. */
  material: readonly string[];
  /** Paths naming the keys in use (`session.keys.session_key_id`, `…kek_label`): writing one needs the write-keys right. */
  references: readonly string[];
  /** Paths of the messages holding key material (`session.keys.app_s_key`, …): what a store seals at rest. */
  envelopes: readonly string[];
  /** Repeated or map fields whose items hold key material: selecting one selects its keys. */
  collections: readonly string[];
}

const MAX_DEPTH = 16;

/**
 * Walks a contract class's fields the way field masks address them (embedded messages by
 * `a.b.c`; repeated and map fields are leaves), collecting the paths of every field marked as
 * key material or key reference (`@KeyMaterial`, `@KeyReference`) wherever its message nests.
 * A repeated or map field whose items hold key material is itself a key-material path, since a
 * mask can only select it whole.
 */
export function keyPathsOf(cls: ClassConstructor<object>): KeyPaths {
  const out = { material: [] as string[], references: [] as string[], envelopes: new Set<string>(), collections: [] as string[] };
  walk(cls, '', 0, out);
  return { material: out.material, references: out.references, envelopes: [...out.envelopes], collections: out.collections };
}

interface Collected {
  material: string[];
  references: string[];
  envelopes: Set<string>;
  collections: string[];
}

function walk(cls: ClassConstructor<object>, prefix: string, depth: number, out: Collected): void {
  if (depth > MAX_DEPTH) throw new Error(`contract nests too deep at ${prefix}`);
  const parent = prefix.slice(0, -1);
  for (const { name, type, embedded } of messageFields(cls)) {
    const path = `${prefix}${name}`;
    const role = keyRoleOf(cls, name);
    if (role === 'material') {
      out.material.push(path);
      out.envelopes.add(parent);
    } else if (role === 'reference') out.references.push(path);
    if (!type) continue;
    if (embedded) walk(type, `${path}.`, depth + 1, out);
    else if (holdsKeyMaterial(type)) out.collections.push(path);
  }
}

/** Whether a message, or any message nested in it (embedded, repeated or map), holds key material. */
function holdsKeyMaterial(cls: ClassConstructor<object>, seen = new Set<ClassConstructor<object>>()): boolean {
  if (seen.has(cls)) return false;
  seen.add(cls);
  return messageFields(cls).some(({ name, type }) => keyRoleOf(cls, name) === 'material' || (type !== undefined && holdsKeyMaterial(type, seen)));
}
/** The paths a mask must not name without the read-keys right: key material, and collections holding it. */
export function readKeyPaths(paths: KeyPaths): string[] {
  return [...paths.material, ...paths.collections];
}

/** The paths a mask must not name without the write-keys right: the read-keys paths and the key references. */
export function writeKeyPaths(paths: KeyPaths): string[] {
  return [...readKeyPaths(paths), ...paths.references];
}

/** The envelopes (see `KeyPaths.envelopes`) at or below any of `roots` (`session` → `session.keys.app_s_key`, …). */
export function envelopesUnder(paths: KeyPaths, roots: readonly string[]): string[] {
  return paths.envelopes.filter((e) => roots.some((r) => e === r || e.startsWith(`${r}.`)));
}
