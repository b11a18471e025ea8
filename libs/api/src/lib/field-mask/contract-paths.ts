import type { ClassConstructor } from 'class-transformer';
import { wrapperFieldsOf } from '../json/fields';
import { messageFields } from '../json/message-fields';

interface ContractPath {
  path: string;
  wrapper: boolean;
}

function walk(cls: ClassConstructor<object>, prefix: string, depth: number, out: ContractPath[]): ContractPath[] {
  if (depth > 12) throw new Error(`contract paths nest too deep at ${prefix}`);
  const wrappers = wrapperFieldsOf(cls);
  for (const { name, type, embedded } of messageFields(cls)) {
    const path = `${prefix}${name}`;
    out.push({ path, wrapper: wrappers.has(name) });
    if (embedded && type) walk(type, `${path}.`, depth + 1, out);
  }
  return out;
}

/**
 * Every field-mask path a contract class defines: each field, the fields of embedded messages
 * below it, and `<field>.value` for wrapper fields (TTS masks may name the wrapper's `value`).
 * Repeated and map fields are leaves, as in TTS's path lists.
 */
export function contractPaths(cls: ClassConstructor<object>): string[] {
  return walk(cls, '', 0, []).flatMap(({ path, wrapper }) => (wrapper ? [path, `${path}.value`] : [path]));
}

/**
 * Maps the `.value` paths of wrapper fields to the field itself: the contract holds wrappers as
 * bare values, so `mac_settings.rx1_delay.value` and `mac_settings.rx1_delay` select the same data.
 */
export function wrapperPathCanonicaliser(cls: ClassConstructor<object>): (paths: readonly string[]) => string[] {
  const wrapperValuePaths = new Set(
    walk(cls, '', 0, [])
      .filter((p) => p.wrapper)
      .map((p) => `${p.path}.value`),
  );
  return (paths) => [...new Set(paths.map((p) => (wrapperValuePaths.has(p) ? p.slice(0, -'.value'.length) : p)))];
}
