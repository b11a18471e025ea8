/**
 * Rows keep their rarely-queried fields in one JSON text column (as `end_devices.fields` does).
 * These copy such fields between a domain object and that document, leaving zero values out: the
 * wire format omits them, so a stored entity reads back exactly as it was written.
 */
export function isZeroValue(value: unknown): boolean {
  return value === undefined || value === null || value === '' || value === false || value === 0 || (Array.isArray(value) && value.length === 0);
}

export function toDocument<T extends object>(source: T, fields: readonly (keyof T)[]): string {
  const doc: Record<string, unknown> = {};
  for (const field of fields) {
    const value = source[field];
    if (!isZeroValue(value)) doc[field as string] = value;
  }
  return JSON.stringify(doc);
}

export function fromDocument<T extends object>(target: T, json: string | null | undefined, fields: readonly (keyof T)[]): T {
  const doc = JSON.parse(json || '{}') as Record<string, unknown>;
  for (const field of fields) {
    const value = doc[field as string];
    if (!isZeroValue(value)) (target as Record<string, unknown>)[field as string] = value;
  }
  return target;
}

/** A copy without the zero-valued fields (top level). */
export function withoutZeroValues<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => !isZeroValue(v))) as T;
}
