import { ALLOWED_PATHS, hasAnyField, JS_END_DEVICE_FIELDS, JS_EVENTS } from '@lorawan/api';
import { copyFieldsOf } from '@lorawan/lorawan';
import type { CompleteContext, RegistryPolicy } from '@lorawan/registry';
import type { JsDevice } from './js-device';
import { ErrDeviceNotFound, ErrFieldIsZero, ErrFieldValue, ErrNoDevEUI, ErrNoJoinEUI, ErrReadOnlyField } from '../errors';

const ZERO_EUI = '0000000000000000';
const ZERO_KEY = '0'.repeat(32);
const ROOT_KEYS = ['app_key', 'nwk_key'] as const;

/**
 * The Join Server's registry rules (TTS `pkg/joinserver/grpc_deviceregistry.go`): a device is
 * known by its JoinEUI (zero allowed) and a non-zero DevEUI; root keys are optional (an OTAA join
 * needs them) but never all zeros.
 */
export function completeJsDevice(device: JsDevice, { paths, request }: CompleteContext<JsDevice>): JsDevice {
  const ids = (request.ids ?? {}) as { join_eui?: string; dev_eui?: string };
  if (ids.join_eui === undefined) throw ErrNoJoinEUI.with();
  if (ids.dev_eui === undefined || ids.dev_eui === ZERO_EUI) throw ErrNoDevEUI.with();
  for (const name of ROOT_KEYS) {
    const field = `root_keys.${name}.key`;
    // As TTS: a masked root key that is absent counts as zero (a key is removed by masking its envelope).
    const stored = device.root_keys?.[name];
    const zero = stored?.key === ZERO_KEY || (paths.includes(field) && !stored?.key && !stored?.encrypted_key);
    if (hasAnyField(paths, field) && zero) throw ErrFieldValue.with({ field }, ErrFieldIsZero.with({ name: field }));
  }
  return device;
}

export const JS_REGISTRY_POLICY: RegistryPolicy<JsDevice> = {
  allowedGetPaths: ALLOWED_PATHS['JsEndDeviceRegistry.Get'],
  allowedSetPaths: ALLOWED_PATHS['JsEndDeviceRegistry.Set'],
  storedPaths: JS_END_DEVICE_FIELDS.filter((f) => f !== 'ids'),
  copyFields: copyFieldsOf(JS_END_DEVICE_FIELDS),
  errors: { notFound: ErrDeviceNotFound, readOnlyField: ErrReadOnlyField },
  events: JS_EVENTS.endDevice,
  complete: completeJsDevice,
};
