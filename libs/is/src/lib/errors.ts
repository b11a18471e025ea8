import { Code, defineError } from '@lorawan/errors';

/** Identity Server errors (TTS namespaces and names, so clients match them). */
export const ErrEndDeviceNotFound = defineError(
  'pkg/identityserver/store',
  'end_device_not_found',
  'end device with id `{device_id}` not found in application with id `{application_id}`',
  Code.NotFound,
);
export const ErrIdTaken = defineError('pkg/util/store', 'id_taken', 'ID already taken, choose a different one and try again', Code.AlreadyExists);
export const ErrAlreadyExists = defineError('pkg/util/store', 'already_exists', 'already exists', Code.AlreadyExists);
export const ErrEndDeviceEUIsTaken = defineError(
  'pkg/identityserver',
  'end_device_euis_taken',
  'an end device with JoinEUI `{join_eui}` and DevEUI `{dev_eui}` is already registered as `{device_id}` in application `{application_id}`',
  Code.AlreadyExists,
);
export const ErrOrderNotInMask = defineError('pkg/identityserver', 'order_not_in_field_mask', 'order field `{field}` must be in the field mask', Code.InvalidArgument);
export const ErrConcurrentUpdate = defineError('pkg/identityserver/store', 'concurrent_update', 'end device `{device_id}` was changed concurrently; try again', Code.Aborted);
