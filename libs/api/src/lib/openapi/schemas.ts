import type { ClassConstructor } from 'class-transformer';
import type { ProtoEnum } from '../enums/enum';
import { type FieldRule, fieldsOf, hasRule, isRequiredField, nestedClass, ruleConstraint } from '../json/field-rules';
import { wrapperFieldsOf } from '../json/fields';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

const FIXED_BYTES: Record<string, string> = { eui64: 'EUI-64', dev_addr: 'DevAddr', net_id: 'NetID', aes_key: 'AES-128 key' };

const INTEGERS: Record<string, { format: string; min: number; max: number }> = {
  uint32: { format: 'uint32', min: 0, max: 0xffffffff },
  int32: { format: 'int32', min: -0x80000000, max: 0x7fffffff },
};

interface Limits {
  min?: number;
  max?: number;
  minItems?: number;
  maxItems?: number;
}

const defined = (schema: JsonSchema): JsonSchema => Object.fromEntries(Object.entries(schema).filter(([, v]) => v !== undefined));

/**
 * The `components/schemas` of an OpenAPI document, built from the contract's classes: one schema
 * per class (named by the class, `$ref` for embedded messages), each property's schema from its
 * field rules (`field-rules.ts`): patterns and lengths, numeric ranges, enums by name, item limits,
 * required fields. Schemas describe the canonical JSON (what the API answers); inputs the rules
 * normalise (an enum's number, hex in any case or base64 for an EUI, a wrapper's `{"value": …}`)
 * are noted in the descriptions.
 */
export class SchemaRegistry {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly names = new Map<ClassConstructor<object>, string>();

  /** A `$ref` to the schema of `cls`, added (with the classes it embeds) on first use. */
  ref(cls: ClassConstructor<object>): JsonSchema {
    return { $ref: `#/components/schemas/${this.nameOf(cls)}` };
  }

  private nameOf(cls: ClassConstructor<object>): string {
    const known = this.names.get(cls);
    if (known !== undefined) return known;
    let name = cls.name;
    for (let i = 2; name in this.schemas; i++) name = `${cls.name}${i}`;
    this.names.set(cls, name);
    this.schemas[name] = {}; // reserved before its fields are walked: messages may embed themselves
    this.schemas[name] = this.messageSchema(cls);
    return name;
  }

  private messageSchema(cls: ClassConstructor<object>): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    const wrappers = wrapperFieldsOf(cls);
    for (const [property, rules] of fieldsOf(cls)) {
      const schema = this.propertySchema(cls, property, rules);
      properties[property] = wrappers.has(property) ? { ...schema, description: 'Also accepted as `{"value": …}`.' } : schema;
      if (isRequiredField(rules)) required.push(property);
    }
    return defined({ type: 'object', properties, required: required.length > 0 ? required : undefined });
  }

  /** The schema of one property from its rules. */
  propertySchema(cls: ClassConstructor<object>, property: string, rules: FieldRule[]): JsonSchema {
    const limits = (name: string) => (ruleConstraint(rules, name) ?? {}) as Limits;
    const nested = nestedClass(cls, property);
    if (hasRule(rules, 'field_mask')) return { $ref: '#/components/schemas/FieldMask' };
    if (nested && hasRule(rules, 'messages')) {
      const { minItems, maxItems } = limits('messages');
      return defined({ type: 'array', items: this.ref(nested), minItems, maxItems });
    }
    if (nested && hasRule(rules, 'message')) return this.ref(nested);
    const enumRule = ruleConstraint(rules, 'enum') as { protoEnum: ProtoEnum; list?: boolean; maxItems?: number } | undefined;
    if (enumRule) {
      const one = enumSchema(enumRule.protoEnum);
      return enumRule.list ? defined({ type: 'array', items: one, maxItems: enumRule.maxItems ?? limits('list').maxItems }) : one;
    }
    if (hasRule(rules, 'string_rules') || hasRule(rules, 'string')) {
      const { maxLength, pattern } = limits('string_rules') as { maxLength?: number; pattern?: RegExp };
      return defined({ type: 'string', maxLength, pattern: pattern?.source });
    }
    for (const [name, { format, min, max }] of Object.entries(INTEGERS)) {
      if (hasRule(rules, name)) {
        const range = limits(`${name}_range`);
        return { type: 'integer', format, minimum: range.min ?? min, maximum: range.max ?? max };
      }
    }
    if (hasRule(rules, 'uint64')) {
      const range = limits('uint64_range');
      const bounds = [range.min !== undefined ? `at least ${range.min}` : '', range.max !== undefined ? `at most ${range.max}` : ''].filter(Boolean).join(', ');
      return {
        type: 'string',
        format: 'uint64',
        pattern: '^[0-9]{1,20}$',
        description: `A 64-bit unsigned integer as a decimal string (a JSON number is also accepted)${bounds ? `; ${bounds}` : ''}.`,
      };
    }
    if (hasRule(rules, 'float')) {
      const range = limits('float_range');
      return defined({ type: 'number', minimum: range.min, maximum: range.max });
    }
    if (hasRule(rules, 'bool')) return { type: 'boolean' };
    for (const [name, what] of Object.entries(FIXED_BYTES)) {
      const fixed = ruleConstraint(rules, name) as { length: number } | undefined;
      if (fixed) {
        return {
          type: 'string',
          pattern: `^[0-9A-Fa-f]{${fixed.length * 2}}$`,
          description: `${what}: ${fixed.length} bytes as upper-case hex (input: hex in any case, or base64).`,
        };
      }
    }
    if (hasRule(rules, 'bytes')) {
      const { maxBytes, minBytes } = limits('bytes') as { maxBytes?: number; minBytes?: number };
      const size = [minBytes !== undefined ? `at least ${minBytes}` : '', maxBytes !== undefined ? `at most ${maxBytes}` : ''].filter(Boolean).join(' and ');
      return defined({
        type: 'string',
        format: 'byte',
        maxLength: maxBytes === undefined ? undefined : Math.ceil(maxBytes / 3) * 4,
        description: `Base64${size ? `, ${size} bytes` : ''}.`,
      });
    }
    if (hasRule(rules, 'timestamp')) return { type: 'string', format: 'date-time' };
    if (hasRule(rules, 'duration')) return { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$', description: 'A duration such as `"1.5s"`.' };
    if (hasRule(rules, 'struct')) return { type: 'object', additionalProperties: true };
    if (hasRule(rules, 'string_map')) return { type: 'object', additionalProperties: { type: 'string' } };
    if (hasRule(rules, 'message_map')) return { type: 'object', additionalProperties: { type: 'object' } };
    if (hasRule(rules, 'uint64_list')) return { type: 'array', items: { type: 'string', format: 'uint64', pattern: '^[0-9]{1,20}$' } };
    if (hasRule(rules, 'integer_list')) {
      const { minItems, maxItems, min, max } = limits('list');
      return defined({ type: 'array', items: defined({ type: 'integer', minimum: min ?? 0, maximum: max }), minItems, maxItems });
    }
    if (hasRule(rules, 'list')) {
      const { minItems, maxItems } = limits('list');
      return defined({ type: 'array', items: { type: 'string' }, minItems, maxItems });
    }
    // A rule of its own (a TX acknowledgment's result, …): any JSON value.
    return {};
  }
}

/** An enum by name (TTS's JSON), or by number for the enums TTS writes as numbers; the number is accepted on input either way. */
function enumSchema(protoEnum: ProtoEnum): JsonSchema {
  if (protoEnum.marshalAsNumber) {
    return {
      type: 'integer',
      enum: [...new Set(protoEnum.names.map((n) => protoEnum.values[n]))],
      description: `${protoEnum.typeName}, by number (its name is also accepted: ${protoEnum.names.join(', ')}).`,
    };
  }
  return { type: 'string', enum: [...protoEnum.names], description: `${protoEnum.typeName} (its number is also accepted).` };
}

/** `google.protobuf.FieldMask`. */
export const FIELD_MASK_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { paths: { type: 'array', items: { type: 'string' } } },
  description: 'The fields to read or write: `{"paths": ["name", "ids.dev_eui"]}`, or the paths as one comma-separated string.',
};
