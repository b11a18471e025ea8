import { Code, defineError } from '@lorawan/errors';

/** Join Server errors (TTS `pkg/joinserver` names, so clients match them). */
export const ErrDeviceNotFound = defineError('pkg/joinserver', 'device_not_found', 'device `{device_uid}` not found', Code.NotFound);
export const ErrReadOnlyField = defineError('pkg/joinserver', 'read_only_field', 'read-only field `{field}`', Code.InvalidArgument);
export const ErrNoJoinEUI = defineError('pkg/joinserver', 'no_join_eui', 'no JoinEUI specified', Code.InvalidArgument);
export const ErrNoDevEUI = defineError('pkg/joinserver', 'no_dev_eui', 'no DevEUI specified', Code.InvalidArgument);
export const ErrFieldValue = defineError('pkg/joinserver', 'field_value', 'invalid value of field `{field}`', Code.InvalidArgument);
export const ErrFieldIsZero = defineError('pkg/joinserver', 'field_is_zero', 'field `{name}` is zero', Code.InvalidArgument);
