import { getMetadataStorage } from 'class-validator';
// class-transformer keeps @Type metadata in this storage; it has no public accessor for it.
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import type { ClassConstructor } from 'class-transformer';
import { isJsonObject } from '../json/json-object';

interface ClassFields {
  /** lowerCamelCase JSON name → proto (snake_case) name. */
  camel: Map<string, string>;
  /** Message-typed fields (single or repeated) → their class. */
  nested: Map<string, ClassConstructor<object>>;
}

const cache = new Map<ClassConstructor<object>, ClassFields>();

function fieldsOf(cls: ClassConstructor<object>): ClassFields {
  let fields = cache.get(cls);
  if (fields) return fields;
  fields = { camel: new Map(), nested: new Map() };
  const names = new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(cls, '', true, false)
      .map((m) => m.propertyName),
  );
  for (const name of names) {
    const camel = name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    if (camel !== name) fields.camel.set(camel, name);
    const type = defaultMetadataStorage.findTypeMetadata(cls, name)?.typeFunction();
    if (typeof type === 'function' && type !== Object && type !== Array) fields.nested.set(name, type as ClassConstructor<object>);
  }
  cache.set(cls, fields);
  return fields;
}

/**
 * TTS accepts both the proto names (`end_device`) and their lowerCamelCase JSON names
 * (`endDevice`) in requests. Renames the latter in place, message by message, following the
 * contract classes; map keys (attributes, locations) are user data and are never renamed. Where
 * both spellings are present, the proto name wins.
 */
export function normalizeFieldNames<T>(cls: ClassConstructor<object>, input: T): T {
  const value: unknown = input;
  if (!isJsonObject(value)) return input;
  const fields = fieldsOf(cls);
  for (const key of Object.keys(value)) {
    const proto = fields.camel.get(key);
    if (proto === undefined) continue;
    if (!(proto in value)) value[proto] = value[key];
    delete value[key];
  }
  for (const [name, type] of fields.nested) {
    const child = value[name];
    if (Array.isArray(child)) child.forEach((item) => normalizeFieldNames(type, item));
    else normalizeFieldNames(type, child);
  }
  return input;
}
