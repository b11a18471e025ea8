import { Code, defineError } from '@lorawan/errors';

/** Join Server errors (TTS `pkg/joinserver` names, so clients match them). */
export const ErrDeviceNotFound = defineError('pkg/joinserver', 'device_not_found', 'device `{device_uid}` not found', Code.NotFound);
export const ErrReadOnlyField = defineError('pkg/joinserver', 'read_only_field', 'read-only field `{field}`', Code.InvalidArgument);
export const ErrNoJoinEUI = defineError('pkg/joinserver', 'no_join_eui', 'no JoinEUI specified', Code.InvalidArgument);
export const ErrNoDevEUI = defineError('pkg/joinserver', 'no_dev_eui', 'no DevEUI specified', Code.InvalidArgument);
export const ErrFieldValue = defineError('pkg/joinserver', 'field_value', 'invalid value of field `{field}`', Code.InvalidArgument);
export const ErrFieldIsZero = defineError('pkg/joinserver', 'field_is_zero', 'field `{name}` is zero', Code.InvalidArgument);

// Join handling (TTS `pkg/joinserver/errors.go` names).
export const ErrMICMismatch = defineError('pkg/joinserver', 'mic_mismatch', 'MIC mismatch', Code.InvalidArgument);
export const ErrDevNonceTooSmall = defineError('pkg/joinserver', 'dev_nonce_too_small', 'DevNonce is too small', Code.InvalidArgument);
export const ErrReuseDevNonce = defineError('pkg/joinserver', 'reuse_dev_nonce', 'DevNonce has already been used', Code.InvalidArgument);
export const ErrJoinNonceTooHigh = defineError('pkg/joinserver', 'join_nonce_too_high', 'JoinNonce is too high', Code.Internal);
export const ErrNoAppKey = defineError('pkg/joinserver', 'no_app_key', 'no AppKey specified', Code.FailedPrecondition);
export const ErrNoNwkKey = defineError('pkg/joinserver', 'no_nwk_key', 'no NwkKey specified', Code.FailedPrecondition);
export const ErrUnsupportedMACVersion = defineError('pkg/joinserver', 'mac_version', 'unsupported MAC version: `{version}`', Code.InvalidArgument);
export const ErrWrongPayloadType = defineError('pkg/joinserver', 'payload_type', 'wrong payload type: {type}', Code.InvalidArgument);
export const ErrDecodePayload = defineError('pkg/joinserver', 'decode_payload', 'failed to decode payload', Code.InvalidArgument);
export const ErrWrapKey = defineError('pkg/joinserver', 'wrap_key', 'failed to wrap key with KEK label `{label}`', Code.FailedPrecondition);
export const ErrSessionKeysNotFound = defineError('pkg/joinserver', 'session_keys_not_found', 'session keys `{session_key_id}` not found', Code.NotFound);
