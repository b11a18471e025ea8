import ttsPaths from './tts-fieldmask-paths.json';

/**
 * Allowed field-mask paths per RPC: the subset of TTS's lists (`tts-fieldmask-paths.json`, copied
 * from the spec) that covers the fields the seed defines for that registry. A path outside its
 * RPC's set is rejected with `field_mask_paths`.
 */
type TtsRpc = keyof typeof ttsPaths;

function subset(rpc: TtsRpc, keep: (path: string) => boolean): ReadonlySet<string> {
  return new Set((ttsPaths[rpc] as string[]).filter(keep));
}

/** EndDevice fields the Identity Server stores (the seed's "Registries" table) plus server times. */
export const IS_END_DEVICE_FIELDS = [
  'ids',
  'created_at',
  'updated_at',
  'name',
  'description',
  'attributes',
  'version_ids',
  'network_server_address',
  'application_server_address',
  'join_server_address',
  'service_profile_id',
  'locations',
  'picture',
] as const;

const IS_VERSION_ID_SUBFIELDS = new Set(['brand_id', 'model_id', 'hardware_version', 'firmware_version']);

function isField(path: string): boolean {
  const [top, sub] = path.split('.');
  if (!(IS_END_DEVICE_FIELDS as readonly string[]).includes(top)) return false;
  return top !== 'version_ids' || sub === undefined || IS_VERSION_ID_SUBFIELDS.has(sub);
}

export const ALLOWED_PATHS = {
  'EndDeviceRegistry.Get': subset('/ttn.lorawan.v3.EndDeviceRegistry/Get', isField),
  'EndDeviceRegistry.List': subset('/ttn.lorawan.v3.EndDeviceRegistry/List', isField),
  'EndDeviceRegistry.Update': subset('/ttn.lorawan.v3.EndDeviceRegistry/Update', isField),
} as const;

export { ttsPaths as TTS_FIELD_MASK_PATHS };
