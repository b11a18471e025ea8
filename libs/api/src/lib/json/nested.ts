import { plainToInstance, Transform, Type, type ClassConstructor } from 'class-transformer';
import { IsDefined, ValidateBy, ValidateNested, validateSync } from 'class-validator';

function compose(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((d) => d(target, key));
}

/** A field that must be present (the seed's "required"). */
export function Required(): PropertyDecorator {
  return IsDefined({ message: 'value is required' });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An embedded message. */
export function Message(cls: () => ClassConstructor<object>): PropertyDecorator {
  return compose(
    ValidateBy({
      name: 'message',
      validator: { validate: (v) => v === undefined || v === null || isPlainObject(v), defaultMessage: () => 'value must be an object' },
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

/** map<string, Message>: each value is decoded into `cls` and validated. */
export function MessageMap(cls: () => ClassConstructor<object>): PropertyDecorator {
  return compose(
    Transform(
      ({ value }) => {
        if (!isPlainObject(value)) return value;
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(value)) out[k] = isPlainObject(v) ? plainToInstance(cls(), v, { exposeUnsetFields: false }) : v;
        return out;
      },
      { toClassOnly: true },
    ),
    ValidateBy({
      name: 'message_map',
      validator: {
        validate: (v) => v === undefined || (isPlainObject(v) && Object.values(v).every((item) => isPlainObject(item) && validateSync(item).length === 0)),
        defaultMessage: (args) => {
          const v = args?.value;
          if (!isPlainObject(v)) return 'value must be a map of objects';
          for (const [k, item] of Object.entries(v)) {
            if (!isPlainObject(item)) return `value for key "${k}" must be an object`;
            const err = validateSync(item)[0];
            if (err) return `value for key "${k}": invalid \`${err.property}\`: ${Object.values(err.constraints ?? { x: 'embedded message failed validation' })[0]}`;
          }
          return 'invalid map';
        },
      },
    }),
  );
}
