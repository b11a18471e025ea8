import { Code, defineError } from '@lorawan/errors';

/**
 * Key-vault errors. A missing KEK is a deployment problem (the KEKS configuration lacks a label that
 * stored keys refer to), not a missing API resource, hence FailedPrecondition rather than NotFound.
 * An envelope that does not unwrap is stored data gone bad: DataLoss, as TTS's `corrupt_key`.
 */
export const ErrKekNotFound = defineError('pkg/crypto', 'kek_not_found', 'KEK with label `{label}` not found', Code.FailedPrecondition);
export const ErrCorruptKey = defineError('pkg/crypto', 'corrupt_key', 'corrupt key data (KEK label `{label}`)', Code.DataLoss);
export const ErrInvalidKey = defineError('pkg/crypto', 'invalid_key', 'key must be 16, 24 or 32 bytes of hex, got {length} characters', Code.InvalidArgument);
