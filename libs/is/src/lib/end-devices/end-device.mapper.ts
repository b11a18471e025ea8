import { DESCRIPTION_KEY_LENGTH, type EndDeviceDocument, EndDeviceEntity } from './end-device.entity';
import type { IsEndDevice } from './end-device.model';

const DOCUMENT_FIELDS = [
  'attributes',
  'version_ids',
  'service_profile_id',
  'network_server_address',
  'application_server_address',
  'join_server_address',
  'locations',
  'picture',
] as const;

/** Row → domain. Empty values are left out, as the wire format omits zero values. */
export function toDomain(row: EndDeviceEntity): IsEndDevice {
  const device: IsEndDevice = {
    ids: { device_id: row.device_id, application_ids: { application_id: row.application_id } },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
  if (row.dev_eui) device.ids.dev_eui = row.dev_eui;
  if (row.join_eui) device.ids.join_eui = row.join_eui;
  if (row.name) device.name = row.name;
  if (row.description) device.description = row.description;
  const doc = JSON.parse(row.fields || '{}') as EndDeviceDocument;
  for (const field of DOCUMENT_FIELDS) copyDefined(device, doc, field);
  return device;
}

/** Domain → row. */
export function toEntity(device: IsEndDevice): EndDeviceEntity {
  const row = new EndDeviceEntity();
  row.application_id = device.ids.application_ids.application_id;
  row.device_id = device.ids.device_id;
  row.dev_eui = device.ids.dev_eui ?? null;
  row.join_eui = device.ids.join_eui ?? null;
  row.name = device.name ?? '';
  row.description = device.description ?? '';
  row.description_key = [...row.description].slice(0, DESCRIPTION_KEY_LENGTH).join('');
  row.created_at = device.created_at;
  row.updated_at = device.updated_at;
  const doc: EndDeviceDocument = {};
  for (const field of DOCUMENT_FIELDS) if (!isEmpty(device[field])) copyDefined(doc, device, field);
  row.fields = JSON.stringify(doc);
  return row;
}

type DocumentField = (typeof DOCUMENT_FIELDS)[number];

/** Copies one document field when the source has it (document and domain type it alike). */
function copyDefined<F extends DocumentField>(target: EndDeviceDocument, source: EndDeviceDocument, field: F): void {
  const value = source[field];
  if (value !== undefined) target[field] = value;
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}
