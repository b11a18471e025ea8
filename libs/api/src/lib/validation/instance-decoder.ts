import { type ClassConstructor, type ClassTransformOptions, type TransformFnParams, TransformationType } from 'class-transformer';
// class-transformer keeps @Type and @Transform metadata in this storage; it has no public accessor for it.
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { getMetadataStorage } from 'class-validator';

/**
 * Builds contract instances from JSON: the walk `decodeMessage` does instead of class-transformer's
 * `plainToInstance`, reading the same decorators (`@Type` for embedded messages, `@Transform` for
 * the JSON conventions of `json/fields.ts`).
 *
 * Why not `plainToInstance`: its walk (`TransformOperationExecutor.transform`, 0.5.1) treats every
 * JSON object as a possible class instance. For an object with no `@Type` (a map, a Struct, a
 * field of the wrong type, an unknown field) it takes `value.constructor` as the target class, so
 * a key `constructor` makes it call the user's value as a class (TypeError, a 500); it skips the
 * keys `__proto__` and `constructor`, and every key the new object inherits a method for
 * (`toString`, `valueOf`, `hasOwnProperty`, …), so those map entries vanish; and it recurses into
 * all of it, unknown fields included, one stack frame group per level.
 *
 * This walk visits only the fields a class declares (those with validation metadata, which are
 * the ones class-validator's whitelist keeps), decodes `@Type` fields as embedded messages (each
 * item of an array), runs the `@Transform`s on the value as given, and leaves everything else
 * as given: map and Struct values keep every own key, since JSON.parse makes each key an own
 * property (`__proto__` included) and JSON.stringify writes them all. Unknown fields are never
 * read. Recursion follows the message nesting, which `decodeMessage` bounds beforehand.
 */

type TransformFn = (params: TransformFnParams) => unknown;

interface FieldPlan {
  /** The embedded message class (`@Type`), resolved at use: contract modules reference each other lazily. */
  type?: () => ClassConstructor<object>;
  transforms: readonly TransformFn[];
}

interface ClassPlan {
  /** The validation metadata the plan was built from: a new list means metadata was added. */
  metadatas: readonly unknown[];
  fields: ReadonlyMap<string, FieldPlan>;
}

/** What the transforms receive as class-transformer's options (none of the contract's reads them). */
const TRANSFORM_OPTIONS: ClassTransformOptions = Object.freeze({ exposeUnsetFields: false });

let plans = new Map<unknown, ClassPlan>();

// A @Type or @Transform added to a class later (a decorator applied at run time) is seen by the
// next decode; validation metadata added later changes the list the plan is checked against.
// Boundary: class-transformer's storage methods wrapped here are internal (not in its typings).
const transformerStorage = defaultMetadataStorage as unknown as Record<'addTypeMetadata' | 'addTransformMetadata', (metadata: unknown) => void>;
for (const method of ['addTypeMetadata', 'addTransformMetadata'] as const) {
  const original = transformerStorage[method].bind(defaultMetadataStorage);
  transformerStorage[method] = (metadata: unknown) => {
    original(metadata);
    plans = new Map();
  };
}

/**
 * The class's plan. The metadata lookup uses the arguments `validateSync` uses, so with the
 * metadata cache (`metadata-cache.ts`) it is the same cached list every time until metadata is
 * added, and the identity check is all a lookup costs.
 */
function planOf(cls: ClassConstructor<object>): ClassPlan {
  // Boundary: class-validator reads an undefined schema as "no schema"; its typings ask for a string.
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(cls, undefined as unknown as string, false, false, undefined);
  const cached = plans.get(cls);
  if (cached && cached.metadatas === metadatas) return cached;
  const fields = new Map<string, FieldPlan>();
  for (const { propertyName } of metadatas) {
    if (fields.has(propertyName)) continue;
    const type = defaultMetadataStorage.findTypeMetadata(cls, propertyName)?.typeFunction as (() => ClassConstructor<object>) | undefined;
    const transforms = defaultMetadataStorage
      .findTransformMetadatas(cls, propertyName, TransformationType.PLAIN_TO_CLASS)
      // As plainToInstance without groups or version: transforms limited to either do not apply.
      .filter(({ options }) => !options?.groups?.length && options?.since === undefined && options?.until === undefined)
      .map(({ transformFn }) => transformFn);
    fields.set(propertyName, { type, transforms });
  }
  const plan = { metadatas, fields };
  plans.set(cls, plan);
  return plan;
}

/**
 * A new instance of `cls` with the declared fields of `plain` decoded (see above). Made on the
 * class's prototype without running its constructor, so it holds the fields the message sets and
 * nothing else: `new cls()` would define every declared field (undefined) as an own property,
 * which every later walk of the message (validation, JSON, copies) visits. Contract classes have
 * no constructor logic and no field initialisers (checked by the spec).
 */
export function decodeInstance<T extends object>(cls: ClassConstructor<T>, plain: object): T {
  const { fields } = planOf(cls);
  const instance = Object.create(cls.prototype) as Record<string, unknown>;
  const source = plain as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const field = fields.get(key);
    if (field === undefined) continue;
    let value = source[key];
    if (field.type !== undefined) value = decodeEmbedded(field.type(), value);
    for (const transformFn of field.transforms)
      value = transformFn({ value, key, obj: source, type: TransformationType.PLAIN_TO_CLASS, options: TRANSFORM_OPTIONS });
    if (value !== undefined) instance[key] = value;
  }
  return instance as T;
}

/** An embedded message field's value: an object becomes an instance, a list is decoded item by item, anything else stays (validation refuses it). */
function decodeEmbedded(cls: ClassConstructor<object>, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => decodeEmbedded(cls, item));
  if (typeof value === 'object' && value !== null) return decodeInstance(cls, value);
  return value;
}
