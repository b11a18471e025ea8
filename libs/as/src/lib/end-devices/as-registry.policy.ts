import { ALLOWED_PATHS, AS_END_DEVICE_FIELDS, AS_EVENTS, hasAnyField } from '@lorawan/api';
import { copyFieldsOf } from '@lorawan/lorawan';
import type { CompleteContext, RegistryPolicy } from '@lorawan/registry';
import { ErrDeviceNotFound, ErrFieldIsZero, ErrFieldValue, ErrReadOnlyField } from '../errors';
import type { AsDevice } from './as-device';

const ZERO_DEV_ADDR = '00000000';
const ZERO_KEY = '0'.repeat(32);
const SESSION_FIELDS = ['dev_addr', 'keys.session_key_id', 'keys.app_s_key', 'last_a_f_cnt_down', 'queued_application_downlinks'];

/** What the AS stores: formatters, its session fields and the version (for template formatters). */
export const AS_STORED_PATHS = [
  'version_ids',
  'formatters',
  'skip_payload_crypto',
  ...SESSION_FIELDS.map((f) => `session.${f}`),
  ...SESSION_FIELDS.map((f) => `pending_session.${f}`),
];

function fieldValue(field: string): never {
  throw ErrFieldValue.with({ field }, ErrFieldIsZero.with({ name: field }));
}

/**
 * The Application Server's registry rules (TTS `pkg/applicationserver/grpc_deviceregistry.go`):
 * a session's DevAddr and AppSKey are never zero; `ids.dev_addr` follows `session.dev_addr`; the
 * deprecated top-level `queued_application_downlinks` is the session's queue.
 */
export function completeAsDevice(out: AsDevice, { paths }: CompleteContext<AsDevice>): AsDevice {
  if (paths.includes('queued_application_downlinks') && !paths.includes('session.queued_application_downlinks')) {
    const queue = out.queued_application_downlinks;
    if (queue !== undefined) out.session = { ...out.session, queued_application_downlinks: queue };
    else if (out.session) delete out.session.queued_application_downlinks;
  }
  delete out.queued_application_downlinks;
  dropEmptyFormatterParameters(out);
  const session = out.session;
  if (hasAnyField(paths, 'session.dev_addr') && (!session?.dev_addr || session.dev_addr === ZERO_DEV_ADDR)) fieldValue('session.dev_addr');
  if (hasAnyField(paths, 'session.keys.app_s_key.key')) {
    const envelope = session?.keys?.app_s_key;
    if (!envelope?.encrypted_key && (!envelope?.key || envelope.key === ZERO_KEY)) fieldValue('session.keys.app_s_key.key');
  }
  if (session?.dev_addr) out.ids = { ...out.ids, dev_addr: session.dev_addr };
  else delete out.ids.dev_addr;
  return out;
}

/** `""` is an unset string on the wire (TTS omits zero values): a formatter without parameter has none. */
function dropEmptyFormatterParameters(device: AsDevice): void {
  const formatters = device.formatters;
  if (!formatters) return;
  for (const key of ['up_formatter_parameter', 'down_formatter_parameter'] as const) if (formatters[key] === '') delete formatters[key];
}

/** Read-time view: the deprecated field always equals the session's queue. */
export function presentAsDevice(device: AsDevice): AsDevice {
  const queue = device.session?.queued_application_downlinks;
  return queue === undefined ? device : { ...device, queued_application_downlinks: queue };
}

export const AS_REGISTRY_POLICY: RegistryPolicy<AsDevice> = {
  allowedGetPaths: ALLOWED_PATHS['AsEndDeviceRegistry.Get'],
  allowedSetPaths: ALLOWED_PATHS['AsEndDeviceRegistry.Set'],
  storedPaths: AS_STORED_PATHS,
  copyFields: copyFieldsOf(AS_END_DEVICE_FIELDS),
  errors: { notFound: ErrDeviceNotFound, readOnlyField: ErrReadOnlyField },
  events: AS_EVENTS.endDevice,
  complete: completeAsDevice,
  present: presentAsDevice,
};
