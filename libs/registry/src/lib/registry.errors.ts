import { Code, defineError } from '@lorawan/errors';

/**
 * Errors shared by the JS, NS and AS end-device registries (TTS keeps these in
 * `pkg/internal/registry`). Component-specific errors (not found, field value, read-only field)
 * are defined by each component and handed over in its `RegistryErrors`.
 */
export const ErrEndDeviceEUIsTaken = defineError(
  'pkg/internal/registry',
  'end_device_euis_taken',
  'an end device with JoinEUI `{join_eui}` and DevEUI `{dev_eui}` is already registered as `{device_id}` in application `{application_id}`',
  Code.AlreadyExists,
);

/**
 * The seed's rule: Get and Delete answer an error, rather than picking one, when the identifiers
 * given match more than one device. 400: the request's identifiers are ambiguous.
 */
export const ErrMultipleEndDevices = defineError(
  'pkg/internal/registry',
  'multiple_end_devices',
  '{count} end devices match the identifiers; give identifiers that match exactly one',
  Code.InvalidArgument,
);

export const ErrConcurrentUpdate = defineError(
  'pkg/internal/registry',
  'concurrent_update',
  'end device `{device_id}` was changed concurrently; try again',
  Code.Aborted,
);
