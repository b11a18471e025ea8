import { Code, defineError } from '@lorawan/errors';

/** Application Server errors (TTS `pkg/applicationserver` names, so clients match them). */
export const ErrDeviceNotFound = defineError('pkg/applicationserver', 'device_not_found', 'device `{device_uid}` not found', Code.NotFound);
export const ErrReadOnlyField = defineError('pkg/applicationserver', 'read_only_field', 'read-only field `{field}`', Code.InvalidArgument);
export const ErrFieldValue = defineError('pkg/applicationserver', 'field_value', 'invalid value of field `{field}`', Code.InvalidArgument);
export const ErrFieldIsZero = defineError('pkg/applicationserver', 'field_is_zero', 'field `{name}` is zero', Code.InvalidArgument);
