import { Transform, Type, type ClassConstructor } from 'class-transformer';
import { IsDefined, ValidateBy, ValidateNested, validateSync } from 'class-validator';
import { decodeInstance } from '../validation/instance-decoder';
import { VALIDATOR_OPTIONS } from '../validation/validator-options';
import { isJsonObject } from './json-object';
import { keyProblem, MapCheck, type MapKeyRules } from './map-fields';

function compose(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((d) => d(target, key));
}

/** A field that must be present (the seed's "required"). */
export function Required(): PropertyDecorator {
  return IsDefined({ message: 'value is required' });
}

/** An embedded message. */
export function Message(cls: () => ClassConstructor<object>): PropertyDecorator {
  return compose(
    ValidateBy({
      name: 'message',
      validator: { validate: (v) => v === undefined || v === null || isJsonObject(v), defaultMessage: () => 'value must be an object' },
    }),
    Type(cls),
    ValidateNested(),
  );
}

/** A repeated embedded message. */
export function Messages(cls: () => ClassConstructor<object>, rules: { minItems?: number; maxItems?: number } = {}): PropertyDecorator {
  return compose(
    ValidateBy({
      name: 'messages',
      // The limits, for readers of the metadata (`field-rules.ts`); the check uses its closure.
      constraints: [{ minItems: rules.minItems, maxItems: rules.maxItems }],
      validator: {
        validate: (v) =>
          v === undefined ||
          (Array.isArray(v) && (rules.minItems === undefined || v.length >= rules.minItems) && (rules.maxItems === undefined || v.length <= rules.maxItems)),
        defaultMessage: (args) =>
          !Array.isArray(args?.value)
            ? 'value must be a list'
            : rules.minItems !== undefined && args.value.length < rules.minItems
              ? `value must contain at least ${rules.minItems} item(s)`
              : `value must contain no more than ${rules.maxItems} item(s)`,
      },
    }),
    Type(cls),
    ValidateNested({ each: true }),
  );
}

const MAP_ITEMS = new WeakMap<object, Map<string, () => ClassConstructor<object>>>();

/** The class of a `MessageMap` field's values (maps carry no class-transformer type), if `field` is one. */
export function mapItemClassOf(cls: { prototype: object }, field: string): ClassConstructor<object> | undefined {
  return MAP_ITEMS.get(cls.prototype)?.get(field)?.();
}

/**
 * map<string, Message>: each value is decoded into `cls` and validated; keys follow `rules` (TTS's
 * `map.keys` rules). The decoded map is a new object holding every own key of the given one
 * (`Object.fromEntries` defines each as an own property, `__proto__` included).
 */
export function MessageMap(cls: () => ClassConstructor<object>, rules: MapKeyRules = {}): PropertyDecorator {
  return compose(
    (target, key) => MAP_ITEMS.set(target, new Map(MAP_ITEMS.get(target)).set(String(key), cls)),
    Transform(
      ({ value }) => {
        if (!isJsonObject(value)) return value;
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isJsonObject(v) ? decodeInstance(cls(), v) : v]));
      },
      { toClassOnly: true },
    ),
    MapCheck('message_map', (map) => {
      for (const key of Object.keys(map)) {
        const badKey = keyProblem(key, rules);
        if (badKey !== undefined) return { key, reason: badKey };
        const item = map[key];
        if (!isJsonObject(item)) return { key, reason: 'value must be an object' };
        const cause = validateSync(item, VALIDATOR_OPTIONS)[0];
        if (cause) return { key, reason: 'embedded message failed validation', cause };
      }
      return undefined;
    }),
  );
}
