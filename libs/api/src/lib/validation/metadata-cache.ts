import { getMetadataStorage, type MetadataStorage, ValidationTypes } from 'class-validator';

/**
 * Memoises class-validator's metadata lookups. For every object it validates, class-validator's
 * `ValidationExecutor` asks the (global) `MetadataStorage` for the class's validation metadata:
 * `getTargetValidationMetadatas` filters the class's entries and scans every registered class for
 * ancestors, and `groupByPropertyName` regroups the result, on each call (for EndDevice, ~87
 * entries, on every request). The answers only depend on the arguments and on the registered
 * metadata, which is complete once the contract modules are loaded, so they are cached per
 * (class, schema, always, strictGroups, groups) and dropped whenever metadata is added.
 *
 * Results are the same arrays and objects each time; the executor and this library's callers only
 * read them. The list of a class is frozen against accidental changes; the grouped lists are not
 * (V8's `filter` on a frozen array, which the executor runs per property, is several times slower).
 * Installed once per storage (a process-wide singleton).
 *
 * Second, an object is only checked on the properties it has. The executor runs, for each
 * property of the class, five filters over its metadata, an error object and the conditional
 * checks, also for the properties the object does not have (for a Set request's EndDevice, dozens
 * per object, most of a request's validation time). When the executor skips undefined values
 * (`skipUndefinedProperties` or `skipMissingProperties`, as `VALIDATOR_OPTIONS` does), the only
 * checks that can fail on an undefined property are the presence checks (`isDefined` type, gated
 * by the property's `ValidateIf`), so for such an executor the lookup of the object being
 * validated answers the metadata of the properties it defines and of every property with a
 * presence check: the same errors. Not with `whitelist`, which strips the own properties the
 * lookup leaves out (undefined ones included); `VALIDATOR_OPTIONS` does without it because the
 * instances it validates hold declared fields only (`decodeInstance`). The subsets are cached per
 * class and set of defined properties (at most `MAX_SUBSETS` per class; beyond that, made per object).
 */
type ValidationMetadata = Parameters<MetadataStorage['addValidationMetadata']>[0];
type ConstraintMetadata = Parameters<MetadataStorage['addConstraintMetadata']>[0];
type GetArgs = Parameters<MetadataStorage['getTargetValidationMetadatas']>;
type Grouped = ReturnType<MetadataStorage['groupByPropertyName']>;

interface StorageInternals {
  validationMetadatas: Map<unknown, ValidationMetadata[]>;
  constraintMetadatas: Map<unknown, ConstraintMetadata[]>;
}

const INSTALLED = Symbol.for('@lorawan/api:class-validator-metadata-cache');
/** Cached property subsets per class list (distinct sets of present properties). */
const MAX_SUBSETS = 256;

/** The part of class-validator's (internal) ValidationExecutor that is wrapped. */
interface Executor {
  validatorOptions?: { skipUndefinedProperties?: boolean; skipMissingProperties?: boolean; whitelist?: boolean };
}
type Execute = (this: Executor, object: object, ...rest: unknown[]) => unknown;

/** The object whose validation is starting (set around the executor's `execute`), when its executor skips undefined values. */
let validating: object | undefined;
let executorWrapped = false;

/**
 * Wraps the executor's `execute` (once per process) so the metadata lookup it starts with knows
 * the object. Without the internal module (another class-validator layout) nothing is wrapped and
 * every lookup answers the whole class.
 */
function wrapExecutor(): void {
  if (executorWrapped) return;
  executorWrapped = true;
  let proto: { execute?: Execute } | undefined;
  try {
    proto = (require('class-validator/cjs/validation/ValidationExecutor') as { ValidationExecutor?: { prototype: { execute?: Execute } } }).ValidationExecutor
      ?.prototype;
  } catch {
    return;
  }
  const original = proto?.execute;
  if (!proto || typeof original !== 'function') return;
  proto.execute = function (this: Executor, object: object, ...rest: unknown[]) {
    const options = this.validatorOptions;
    const previous = validating;
    validating = (options?.skipUndefinedProperties === true || options?.skipMissingProperties === true) && options.whitelist !== true ? object : undefined;
    try {
      return original.call(this, object, ...rest);
    } finally {
      validating = previous;
    }
  };
}

/** A class's metadata list split for `subsetFor`: the properties that may be left out, the subsets made so far. */
interface Subsets {
  optional: string[];
  bySet: Map<string, readonly ValidationMetadata[]>;
}

export function installValidationMetadataCache(storage: MetadataStorage = getMetadataStorage()): void {
  const marked = storage as MetadataStorage & { [INSTALLED]?: true };
  if (marked[INSTALLED]) return;
  Object.defineProperty(marked, INSTALLED, { value: true });

  // Boundary: the storage's internal maps (not in class-validator's typings) are what the cache indexes.
  const internals = storage as unknown as StorageInternals;
  const originalGet = storage.getTargetValidationMetadatas.bind(storage);
  const originalGroup = storage.groupByPropertyName.bind(storage);
  const originalAddValidation = storage.addValidationMetadata.bind(storage);
  const originalAddConstraint = storage.addConstraintMetadata.bind(storage);

  let targets = new Map<unknown, Map<string, readonly ValidationMetadata[]>>();
  let plainTargets = new Map<unknown, readonly ValidationMetadata[]>();
  let cached = new WeakSet<readonly ValidationMetadata[]>();
  let grouped = new WeakMap<readonly ValidationMetadata[], Grouped>();
  let subsets = new WeakMap<readonly ValidationMetadata[], Subsets>();
  // Besides the add methods, the sizes of the storage's maps: a guard against metadata that
  // reaches the storage some other way (the cache is then dropped rather than served stale).
  let validationTargets = -1;
  let constraintTargets = -1;

  const invalidate = () => {
    targets = new Map();
    plainTargets = new Map();
    cached = new WeakSet();
    grouped = new WeakMap();
    subsets = new WeakMap();
    validationTargets = internals.validationMetadatas?.size ?? -1;
    constraintTargets = internals.constraintMetadatas?.size ?? -1;
  };
  const fresh = () => internals.validationMetadatas?.size === validationTargets && internals.constraintMetadatas?.size === constraintTargets;
  invalidate();
  wrapExecutor();

  storage.addValidationMetadata = (metadata: ValidationMetadata) => {
    originalAddValidation(metadata);
    invalidate();
  };
  storage.addConstraintMetadata = (metadata: ConstraintMetadata) => {
    originalAddConstraint(metadata);
    invalidate();
  };

  storage.getTargetValidationMetadatas = (...[targetConstructor, targetSchema, always, strictGroups, groups]: GetArgs) => {
    if (!fresh()) invalidate();
    // The arguments of every validateSync without schema or groups (all of this library's) have a map of their own.
    const plain = targetSchema === undefined && !always && !strictGroups && groups === undefined;
    let metadatas = plain ? plainTargets.get(targetConstructor) : undefined;
    if (!metadatas) {
      const key = `${typeof targetSchema}:${String(targetSchema)}\u0000${always ? 1 : 0}${strictGroups ? 1 : 0}\u0000${groups === undefined ? '-' : `${groups.length}:${groups.join('\u0000')}`}`;
      let byKey = targets.get(targetConstructor);
      if (!byKey) targets.set(targetConstructor, (byKey = new Map()));
      metadatas = byKey.get(key);
      if (!metadatas) {
        metadatas = Object.freeze(originalGet(targetConstructor, targetSchema, always, strictGroups, groups));
        byKey.set(key, metadatas);
        cached.add(metadatas);
      }
      if (plain) plainTargets.set(targetConstructor, metadatas);
    }
    const object = validating;
    validating = undefined;
    if (object && object.constructor === targetConstructor) return subsetFor(metadatas, object) as ValidationMetadata[];
    return metadatas as ValidationMetadata[];
  };

  /** The metadata of the properties `object` has and of every property with a presence check. */
  const subsetFor = (all: readonly ValidationMetadata[], object: object): readonly ValidationMetadata[] => {
    let split = subsets.get(all);
    if (!split) {
      const required = new Set(all.filter((m) => m.type === ValidationTypes.IS_DEFINED || typeof m.propertyName !== 'string').map((m) => m.propertyName));
      split = { optional: [...new Set(all.map((m) => m.propertyName))].filter((p) => !required.has(p)), bySet: new Map() };
      subsets.set(all, split);
    }
    const has = (property: string) => (object as Record<string, unknown>)[property] !== undefined;
    let key = '';
    for (let i = 0; i < split.optional.length; i++) if (has(split.optional[i])) key += `${i},`;
    let subset = split.bySet.get(key);
    if (!subset) {
      const absent = new Set(split.optional.filter((property) => !has(property)));
      subset = Object.freeze(all.filter((m) => !absent.has(m.propertyName)));
      if (split.bySet.size < MAX_SUBSETS) {
        split.bySet.set(key, subset);
        cached.add(subset);
      }
    }
    return subset;
  };

  storage.groupByPropertyName = (metadata: ValidationMetadata[]) => {
    if (!cached.has(metadata) || !fresh()) return originalGroup(metadata);
    let result = grouped.get(metadata);
    if (!result) {
      result = originalGroup(metadata);
      grouped.set(metadata, result);
    }
    return result;
  };
}
