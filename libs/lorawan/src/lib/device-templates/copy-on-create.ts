import { cloneJson } from '@lorawan/api';

/** Formatters belong to a device model's template; a network-wide profile has no say in them. */
const TEMPLATE_ONLY_FIELDS: readonly string[] = ['formatters'];

const isAbsent = (v: unknown) => v === undefined || v === null;

/**
 * The seed's "Copy on create": for each of `copyFields` absent from the request (undefined, or null
 * as JSON's "unset"), the template's value if it has one, else the profile's (never for
 * `formatters`). Returns only the fields to add; objects are copied, so the result may be changed
 * without touching the template or profile.
 */
export function copyOnCreate(request: Record<string, unknown>, copyFields: readonly string[], template?: object, profile?: object): Record<string, unknown> {
  const fromTemplate = (template ?? {}) as Record<string, unknown>;
  const fromProfile = (profile ?? {}) as Record<string, unknown>;
  const added: Record<string, unknown> = {};
  for (const field of copyFields) {
    if (!isAbsent(request[field])) continue;
    let value = fromTemplate[field];
    if (isAbsent(value) && !TEMPLATE_ONLY_FIELDS.includes(field)) value = fromProfile[field];
    if (!isAbsent(value)) added[field] = cloneJson(value);
  }
  return added;
}
