import 'reflect-metadata';
import type { ClassConstructor } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { ErrValidation, type StackError } from '@lorawan/errors';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../json/depth';
import { mapEntryFailure } from '../json/map-fields';
import { decodeInstance } from './instance-decoder';
import { installValidationMetadataCache } from './metadata-cache';
import { VALIDATOR_OPTIONS } from './validator-options';

installValidationMetadataCache();

const EMBEDDED = 'embedded message failed validation';

/**
 * Decodes a JSON request into a validated contract instance, the one way messages enter a
 * component. Unknown keys are dropped (as TTS discards them). A failure is `pkg/errors:validation`
 * with a cause chain down to the offending field, as TTS's protoc-gen-validate errors are.
 */
export function decodeMessage<T extends object>(cls: ClassConstructor<T>, plain: unknown): T {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    throw ErrValidation.with({ field: 'body', name: `${cls.name}ValidationError`, reason: 'value must be a JSON object' });
  }
  checkDepth(cls, plain);
  const instance = decodeInstance(cls, plain);
  // Every check of the contract accepts an undefined value except the presence checks (`Required`
  // and the formatters' "set together" rules), which are `isDefined` checks and run regardless, so
  // the checks of the (many) absent fields are skipped rather than run to pass.
  const errors = validateSync(instance, VALIDATOR_OPTIONS);
  if (errors.length > 0) throw toValidationError(errors[0]);
  return instance;
}

/**
 * The depth bound (`MAX_JSON_DEPTH`) for senders other than the gateway, which refuses deeper
 * bodies itself: checked before anything walks the message, naming the top-level field that nests
 * too deep.
 */
function checkDepth(cls: ClassConstructor<object>, plain: object): void {
  for (const [field, value] of Object.entries(plain)) {
    if (exceedsJsonDepth(value, MAX_JSON_DEPTH - 1)) {
      throw ErrValidation.with({
        field,
        name: `${cls.name}ValidationError`,
        reason: `value nests too deep: a message may have at most ${MAX_JSON_DEPTH} levels of objects and arrays`,
      });
    }
  }
}

function toValidationError(error: ValidationError, field = error.property): StackError {
  const attributes = { field, name: `${error.target?.constructor?.name ?? 'Message'}ValidationError` };
  const constraints = error.constraints ? Object.values(error.constraints) : [];
  // A map field that failed at one entry names the entry, as protoc-gen-validate does (`attributes[key]`).
  const entry = constraints.length > 0 ? mapEntryFailure(error.value) : undefined;
  if (entry) {
    const entryAttributes = { ...attributes, field: `${field}[${entry.key}]` };
    if (entry.cause) return ErrValidation.with({ ...entryAttributes, reason: EMBEDDED }, toValidationError(entry.cause));
    return ErrValidation.with({ ...entryAttributes, reason: entry.reason });
  }
  if (constraints.length > 0) return ErrValidation.with({ ...attributes, reason: constraints[0] });
  const child = error.children?.[0];
  if (!child) return ErrValidation.with({ ...attributes, reason: 'invalid value' });
  // Repeated fields of messages add a level keyed by index: fold it into the field name
  // (`channels[0]`) rather than inventing a message for it.
  if (Array.isArray(error.value) || (child.target && child.target.constructor === Object) || Array.isArray(child.target)) {
    return toValidationError(child, `${field}[${child.property}]`);
  }
  return ErrValidation.with({ ...attributes, reason: EMBEDDED }, toValidationError(child));
}
