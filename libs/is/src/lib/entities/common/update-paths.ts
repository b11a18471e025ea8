import { normalizePaths } from '@lorawan/api';
import { ErrReadOnlyField } from '../../errors';

export interface UpdatePathRules {
  /** Paths that can not change (the identifiers): naming one is `read_only_field`. */
  readOnly: readonly string[];
  /** Paths the server manages (timestamps): dropped from the mask, as TTS's `cleanFieldMaskPaths` does. */
  ignored: readonly string[];
  /** Messages updated whole: a path below one stands for the message (TTS `FlattenPaths` for contacts). */
  whole?: readonly string[];
}

/** The paths an Update applies: read-only paths refused, server-managed ones dropped, whole messages flattened. */
export function effectiveUpdatePaths(paths: readonly string[], rules: UpdatePathRules): string[] {
  const out: string[] = [];
  for (const path of paths) {
    if (rules.readOnly.includes(path)) throw ErrReadOnlyField.with({ field: path });
    if (rules.ignored.includes(path)) continue;
    out.push(rules.whole?.find((w) => path.startsWith(`${w}.`)) ?? path);
  }
  return normalizePaths(out);
}
