import { Code, defineError } from '@lorawan/errors';

/** MAC layer errors (TTS `pkg/networkserver/mac/errors.go` names). */
export const ErrRequestNotFound = defineError(
  'pkg/networkserver/mac',
  'request_not_found',
  'MAC response received, but corresponding request not found',
  Code.InvalidArgument,
);
export const ErrInvalidMacPayload = defineError('pkg/networkserver/mac', 'invalid_payload', 'invalid MAC command payload: {reason}', Code.InvalidArgument);
export const ErrTruncatedMacCommand = defineError(
  'pkg/networkserver/mac',
  'truncated_command',
  'MAC command `{cid}` at offset {offset} is cut short',
  Code.InvalidArgument,
);
/** LoRaWAN 1.1: the first uplink of a session a join set up must carry RekeyInd (TTS drops it otherwise). */
export const ErrRekeyIndMissing = defineError(
  'pkg/networkserver',
  'rekey_ind_missing',
  'the first uplink of a LoRaWAN 1.1 session has no RekeyInd',
  Code.FailedPrecondition,
);
