import { type ErrorDetails, isStackError } from '@lorawan/errors';

/**
 * Turns a `pkg/errors:validation` error from `decodeMessage` into `path.to.field: reason`, following
 * its cause chain (each level names one field), so configuration errors read as one line.
 */
export function validationMessage(err: unknown): string {
  if (!isStackError(err)) return err instanceof Error ? err.message : String(err);
  const fields: string[] = [];
  let reason = err.message;
  for (let details: ErrorDetails | undefined = err.toDetails(); details; details = details.cause) {
    const attributes = details.attributes ?? {};
    if (typeof attributes['field'] === 'string') fields.push(attributes['field']);
    if (typeof attributes['reason'] === 'string') reason = attributes['reason'];
  }
  return fields.length > 0 ? `${fields.join('.')}: ${reason}` : reason;
}
