import type { ClassConstructor } from 'class-transformer';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { getMetadataStorage } from 'class-validator';

/**
 * The field rules of a contract class as class-validator's metadata holds them: each check's name
 * and `constraints` (those of `fields.ts`: `string_rules` `{maxLength, pattern}`, `enum`
 * `{protoEnum, list, maxItems}`, `<int>_range` `{min, max}`, fixed-size bytes `{length}`, `bytes`
 * `{maxBytes, minBytes}`, `list`/`messages` `{minItems, maxItems}`, …) and class-transformer's
 * `@Type` for embedded messages. Read by the OpenAPI generator and the fuzz suite's request
 * generator, so the contract's rules are written once.
 */
export interface FieldRule {
  /** The check's name (`string_rules`, `enum`, `uint32_range`, `message`, …); absent for class-validator's own (`isDefined`). */
  name?: string;
  /** class-validator's kind of entry: `customValidation` for the contract's checks, `isDefined` for a required field, … */
  type: string;
  constraints?: Array<Record<string, unknown>>;
}

/** The rules of each property of `cls` (own and inherited), in declaration order. */
export function fieldsOf(cls: ClassConstructor<object>): Map<string, FieldRule[]> {
  // Boundary: class-validator types its stored metadata as ValidationMetadata; the fields read here are its public shape.
  const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false) as unknown as Array<FieldRule & { propertyName: string }>;
  const out = new Map<string, FieldRule[]>();
  for (const m of metas) out.set(m.propertyName, [...(out.get(m.propertyName) ?? []), m]);
  return out;
}

/** The class of an embedded message field (`@Message`, `@Messages`), if it is one. */
export function nestedClass(cls: ClassConstructor<object>, property: string): ClassConstructor<object> | undefined {
  const meta = defaultMetadataStorage.findTypeMetadata(cls, property);
  return meta?.typeFunction() as ClassConstructor<object> | undefined;
}

/** The first constraint object of the check `name`, if the field has that check. */
export const ruleConstraint = (rules: readonly FieldRule[], name: string): Record<string, unknown> | undefined =>
  rules.find((r) => r.name === name)?.constraints?.[0];

/** Whether the field has the check `name`. */
export const hasRule = (rules: readonly FieldRule[], name: string): boolean => rules.some((r) => r.name === name);

/** Whether the field is required (`@Required()`). */
export const isRequiredField = (rules: readonly FieldRule[]): boolean => rules.some((r) => r.type === 'isDefined');
