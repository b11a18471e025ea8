import type { ClassConstructor } from 'class-transformer';
import { messageFields } from '../json/message-fields';
import { Secret } from '../messages/secret';
import { contractPaths } from './contract-paths';

/**
 * The field-mask paths of a message that reach a secret (a field of type `Secret`, at any depth of
 * embedded messages), with the paths below each (`lbs_lns_secret`, `lbs_lns_secret.key_id`,
 * `lbs_lns_secret.value`), derived from the contract: a new `Secret` field is guarded the day it
 * is added.
 */
export function secretPathsOf(cls: ClassConstructor<object>): string[] {
  const roots = secretFieldsOf(cls, '', 0);
  const below = contractPaths(Secret);
  return roots.flatMap((root) => [root, ...below.map((p) => `${root}.${p}`)]);
}

/** The top paths of the `Secret` fields (what a store seals), without the paths below them. */
export function secretFieldsOf(cls: ClassConstructor<object>, prefix = '', depth = 0): string[] {
  if (depth > 12) throw new Error(`contract nests too deep at ${prefix}`);
  return messageFields(cls).flatMap(({ name, type, embedded }) => {
    if (type === Secret) return [`${prefix}${name}`];
    return embedded && type ? secretFieldsOf(type, `${prefix}${name}.`, depth + 1) : [];
  });
}
