import { getMetadataStorage, type MetadataStorage } from 'class-validator';

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

export function installValidationMetadataCache(storage: MetadataStorage = getMetadataStorage()): void {
  const marked = storage as MetadataStorage & { [INSTALLED]?: true };
  if (marked[INSTALLED]) return;
  Object.defineProperty(marked, INSTALLED, { value: true });

  const internals = storage as unknown as StorageInternals;
  const originalGet = storage.getTargetValidationMetadatas.bind(storage);
  const originalGroup = storage.groupByPropertyName.bind(storage);
  const originalAddValidation = storage.addValidationMetadata.bind(storage);
  const originalAddConstraint = storage.addConstraintMetadata.bind(storage);

  let targets = new Map<unknown, Map<string, readonly ValidationMetadata[]>>();
  let cached = new WeakSet<readonly ValidationMetadata[]>();
  let grouped = new WeakMap<readonly ValidationMetadata[], Grouped>();
  // Besides the add methods, the sizes of the storage's maps: a guard against metadata that
  // reaches the storage some other way (the cache is then dropped rather than served stale).
  let validationTargets = -1;
  let constraintTargets = -1;

  const invalidate = () => {
    targets = new Map();
    cached = new WeakSet();
    grouped = new WeakMap();
    validationTargets = internals.validationMetadatas?.size ?? -1;
    constraintTargets = internals.constraintMetadatas?.size ?? -1;
  };
  const fresh = () => internals.validationMetadatas?.size === validationTargets && internals.constraintMetadatas?.size === constraintTargets;
  invalidate();

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
    const key = `${typeof targetSchema}:${String(targetSchema)}\u0000${always ? 1 : 0}${strictGroups ? 1 : 0}\u0000${groups === undefined ? '-' : `${groups.length}:${groups.join('\u0000')}`}`;
    let byKey = targets.get(targetConstructor);
    if (!byKey) targets.set(targetConstructor, (byKey = new Map()));
    let metadatas = byKey.get(key);
    if (!metadatas) {
      metadatas = Object.freeze(originalGet(targetConstructor, targetSchema, always, strictGroups, groups));
      byKey.set(key, metadatas);
      cached.add(metadatas);
    }
    return metadatas as ValidationMetadata[];
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
