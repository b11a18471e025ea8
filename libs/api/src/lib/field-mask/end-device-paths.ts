import ttsPaths from './tts-fieldmask-paths.json';
import { EndDevice } from '../messages/end-device';
import { contractPaths, wrapperPathCanonicaliser } from './contract-paths';
import { type TtsRpc, subset } from './tts-paths';

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

/** Every path the EndDevice contract defines (wrapper fields also with `.value`). */
export const END_DEVICE_PATHS: ReadonlySet<string> = new Set(contractPaths(EndDevice));

/** `mac_settings.rx1_delay.value` → `mac_settings.rx1_delay` (wrappers are bare values). */
export const canonicalEndDevicePaths = wrapperPathCanonicaliser(EndDevice);

const under = (tops: readonly string[]) => (path: string) => tops.includes(path.split('.')[0]);

/**
 * A JS/NS/AS registry's allowed paths: TTS's list for the RPC, restricted to the fields our contract
 * defines and the registry stores, plus `extras`: fields the seed gives the registry that TTS's
 * list lacks (e.g. `recent_adr_uplinks`, the deprecated MACParameters fields).
 */
function registryPaths(rpc: TtsRpc, owned: readonly string[], extras: readonly string[] = []): ReadonlySet<string> {
  const unknown = extras.filter((p) => !END_DEVICE_PATHS.has(p));
  if (unknown.length > 0) throw new Error(`extra paths not in the EndDevice contract: ${unknown.join(', ')}`);
  const keep = under(owned);
  return new Set([...(ttsPaths[rpc] as string[]).filter((p) => keep(p) && END_DEVICE_PATHS.has(p)), ...extras]);
}

/** Top-level EndDevice fields the Join Server stores (the seed's "Registries" table and "Stored in" column). */
export const JS_END_DEVICE_FIELDS = [
  'ids',
  'provisioner_id',
  'provisioning_data',
  'resets_join_nonces',
  'root_keys',
  'net_id',
  'network_server_address',
  'network_server_kek_label',
  'application_server_address',
  'application_server_id',
  'application_server_kek_label',
  'claim_authentication_code',
  'last_dev_nonce',
  'used_dev_nonces',
  'last_join_nonce',
  'last_rj_count_0',
  'last_rj_count_1',
] as const;

/** Top-level EndDevice fields the Network Server stores (`session` only with its NS sub-fields). */
export const NS_END_DEVICE_FIELDS = [
  'ids',
  'created_at',
  'updated_at',
  'version_ids',
  'frequency_plan_id',
  'lorawan_phy_version',
  'lorawan_version',
  'min_frequency',
  'max_frequency',
  'supports_join',
  'supports_class_b',
  'supports_class_c',
  'multicast',
  'mac_settings',
  'mac_state',
  'pending_mac_state',
  'session',
  'pending_session',
  'last_dev_status_received_at',
  'power_state',
  'battery_percentage',
  'downlink_margin',
  'recent_adr_uplinks',
  'recent_uplinks',
  'recent_downlinks',
] as const;

/** Top-level EndDevice fields the Application Server stores (`session` only with its AS sub-fields). */
export const AS_END_DEVICE_FIELDS = [
  'ids',
  'version_ids',
  'formatters',
  'session',
  'pending_session',
  'skip_payload_crypto',
  'queued_application_downlinks',
] as const;

const CLAIM_CODE_PATHS = [
  'claim_authentication_code',
  'claim_authentication_code.value',
  'claim_authentication_code.valid_from',
  'claim_authentication_code.valid_to',
];
const DEPRECATED_MAC_PARAMETER_PATHS = ['mac_state', 'pending_mac_state'].flatMap((state) =>
  ['current_parameters', 'desired_parameters'].flatMap((params) =>
    ['adr_ack_limit', 'adr_ack_delay', 'ping_slot_data_rate_index'].map((f) => `${state}.${params}.${f}`),
  ),
);
const NS_EXTRAS = [
  'recent_adr_uplinks',
  'recent_uplinks',
  'recent_downlinks',
  'session.queued_application_downlinks',
  'pending_session.queued_application_downlinks',
  ...DEPRECATED_MAC_PARAMETER_PATHS,
];
/** The AS keeps the application downlink queue; the deprecated top-level field mirrors the session's. */
const AS_QUEUE_PATHS = ['queued_application_downlinks', 'session.queued_application_downlinks'];

/** The allowed field-mask paths of the end-device registries' RPCs (IS, JS, NS, AS). */
export function endDeviceAllowedPaths() {
  return {
    'EndDeviceRegistry.Get': subset('/ttn.lorawan.v3.EndDeviceRegistry/Get', isField),
    'EndDeviceRegistry.List': subset('/ttn.lorawan.v3.EndDeviceRegistry/List', isField),
    /** TTS's search takes any EndDevice path; the IS answers those it holds, as its List. */
    'EndDeviceRegistrySearch.SearchEndDevices': subset('/ttn.lorawan.v3.EndDeviceRegistry/List', isField),
    'EndDeviceRegistry.Update': subset('/ttn.lorawan.v3.EndDeviceRegistry/Update', isField),
    'JsEndDeviceRegistry.Get': registryPaths('/ttn.lorawan.v3.JsEndDeviceRegistry/Get', JS_END_DEVICE_FIELDS, CLAIM_CODE_PATHS),
    'JsEndDeviceRegistry.Set': registryPaths('/ttn.lorawan.v3.JsEndDeviceRegistry/Set', JS_END_DEVICE_FIELDS, CLAIM_CODE_PATHS),
    'NsEndDeviceRegistry.Get': registryPaths('/ttn.lorawan.v3.NsEndDeviceRegistry/Get', NS_END_DEVICE_FIELDS, NS_EXTRAS),
    'NsEndDeviceRegistry.Set': registryPaths('/ttn.lorawan.v3.NsEndDeviceRegistry/Set', NS_END_DEVICE_FIELDS, NS_EXTRAS),
    'AsEndDeviceRegistry.Get': registryPaths('/ttn.lorawan.v3.AsEndDeviceRegistry/Get', AS_END_DEVICE_FIELDS, [
      ...AS_QUEUE_PATHS,
      'pending_session.queued_application_downlinks',
    ]),
    'AsEndDeviceRegistry.Set': registryPaths('/ttn.lorawan.v3.AsEndDeviceRegistry/Set', AS_END_DEVICE_FIELDS, AS_QUEUE_PATHS),
  } as const;
}
