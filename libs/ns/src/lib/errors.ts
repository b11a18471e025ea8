import { Code, defineError } from '@lorawan/errors';

/** Network Server errors (TTS `pkg/networkserver` names, so clients match them). */
export const ErrDeviceNotFound = defineError('pkg/networkserver', 'device_not_found', 'device `{device_uid}` not found', Code.NotFound);
export const ErrReadOnlyField = defineError('pkg/networkserver', 'read_only_field', 'read-only field `{field}`', Code.InvalidArgument);
export const ErrFieldValue = defineError('pkg/networkserver', 'field_value', 'invalid value of field `{field}`', Code.InvalidArgument);
export const ErrFieldIsZero = defineError('pkg/networkserver', 'field_is_zero', 'field `{name}` is zero', Code.InvalidArgument);
export const ErrFieldNotChangeable = defineError(
  'pkg/networkserver',
  'field_not_changeable',
  'field `{name}` cannot change once the device exists',
  Code.InvalidArgument,
);
export const ErrFrequencyPlanNotFound = defineError('pkg/networkserver', 'frequency_plan_not_found', 'frequency plan `{id}` not found', Code.InvalidArgument);
