import ttsPaths from './tts-fieldmask-paths.json';
import { EndDevice } from '../messages/end-device';
import { Application, Gateway, User } from '../messages/identity';
import { Client } from '../messages/client';
import { Organization } from '../messages/organization';
import { contractPaths, wrapperPathCanonicaliser } from './contract-paths';
import { type KeyPaths, keyPathsOf, readKeyPaths, writeKeyPaths } from './key-paths';
import { APPLICATION_LINK_PATHS, DEPRECATED_APPLICATION_LINK_PATHS } from '../messages/application-link';

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

/**
 * The Identity Server's entities: TTS's list where the spec has one (applications), restricted to
 * the contract's fields; the contract's fields otherwise (gateways, users). Contacts are selected
 * whole, as in TTS's lists (whose sub-paths name the proto oneof, `administrative_contact.ids.…`,
 * which the contract does not have). A user's `password` is write-only: set on Create, never read
 * or updated through a field mask.
 */
const isContactSubPath = (p: string) => /^(administrative|technical)_contact\./.test(p);
const APPLICATION_PATHS: ReadonlySet<string> = new Set(contractPaths(Application));
const GATEWAY_PATHS: ReadonlySet<string> = new Set(contractPaths(Gateway).filter((p) => !isContactSubPath(p)));
const USER_PATHS: ReadonlySet<string> = new Set(contractPaths(User).filter((p) => p !== 'password'));
const applicationPaths = (rpc: TtsRpc) => subset(rpc, (p) => APPLICATION_PATHS.has(p));
/** TTS `field_mask_validation.go`: a client's `secret` may be set by Update, never selected by Get or List. */
const CLIENT_UPDATE_PATHS: ReadonlySet<string> = new Set(contractPaths(Client).filter((p) => !isContactSubPath(p)));
const CLIENT_READ_PATHS: ReadonlySet<string> = new Set([...CLIENT_UPDATE_PATHS].filter((p) => p !== 'secret'));
/** TTS `OrganizationFieldPathsNested` (Get, List and Update alike), as the contract has them. */
const ORGANIZATION_PATHS: ReadonlySet<string> = new Set(contractPaths(Organization).filter((p) => !isContactSubPath(p)));

export const ALLOWED_PATHS = {
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
  'ApplicationRegistry.Get': applicationPaths('/ttn.lorawan.v3.ApplicationRegistry/Get'),
  'ApplicationRegistry.List': applicationPaths('/ttn.lorawan.v3.ApplicationRegistry/List'),
  'ApplicationRegistry.Update': applicationPaths('/ttn.lorawan.v3.ApplicationRegistry/Update'),
  'GatewayRegistry.Get': GATEWAY_PATHS,
  'GatewayRegistry.List': GATEWAY_PATHS,
  'GatewayRegistry.Update': GATEWAY_PATHS,
  'UserRegistry.Get': USER_PATHS,
  'UserRegistry.List': USER_PATHS,
  'UserRegistry.Update': USER_PATHS,
  'ClientRegistry.Get': CLIENT_READ_PATHS,
  'ClientRegistry.List': CLIENT_READ_PATHS,
  'ClientRegistry.Update': CLIENT_UPDATE_PATHS,
  'OrganizationRegistry.Get': ORGANIZATION_PATHS,
  'OrganizationRegistry.List': ORGANIZATION_PATHS,
  'OrganizationRegistry.Update': ORGANIZATION_PATHS,
  'ApplicationWebhookRegistry.Get': subset('/ttn.lorawan.v3.ApplicationWebhookRegistry/Get', isWebhookField),
  'ApplicationWebhookRegistry.List': subset('/ttn.lorawan.v3.ApplicationWebhookRegistry/List', isWebhookField),
  'ApplicationWebhookRegistry.Set': subset('/ttn.lorawan.v3.ApplicationWebhookRegistry/Set', isWebhookField),
  /** TTS `asApplicationLinkFieldPaths` (not in the spec's list): the link's fields plus the removed ones, which are ignored. */
  'As.GetLink': new Set<string>([...APPLICATION_LINK_PATHS, ...DEPRECATED_APPLICATION_LINK_PATHS]),
  'As.SetLink': new Set<string>([...APPLICATION_LINK_PATHS, ...DEPRECATED_APPLICATION_LINK_PATHS]),
} as const;

/**
 * Webhook paths of our contract: TTS's list without the `health_status.status.*` sub-paths
 * (`health_status` is one JSON value here, `{"healthy":{}}` or `{"unhealthy":{…}}`, set or read whole).
 */
function isWebhookField(path: string): boolean {
  return !path.startsWith('health_status.');
}

/**
 * Every EndDevice path that reaches key material, wherever it nests (`root_keys.app_key.key`,
 * `session.keys.nwk_s_enc_key.encrypted_key`, `pending_mac_state.queued_join_accept.keys.…`, …),
 * derived from the contract's `@KeyMaterial` / `@KeyReference` marks, never listed by hand.
 */
export const END_DEVICE_KEY_PATHS: KeyPaths = keyPathsOf(EndDevice);

/**
 * Paths whose presence in a field mask needs the key rights on every device registry (TTS
 * `grpc_deviceregistry.go` of each server): reading key material needs `*_READ_KEYS`, writing it or
 * a key reference `*_WRITE_KEYS`. A requested path that equals one of these or is a parent of it
 * (`session` covers `session.keys.app_s_key.key`) triggers the right.
 */
export const KEY_PATHS = {
  read: readKeyPaths(END_DEVICE_KEY_PATHS),
  write: writeKeyPaths(END_DEVICE_KEY_PATHS),
} as const;

/** The NS/AS downlink queue: reading it needs `RIGHT_APPLICATION_TRAFFIC_READ`. */
export const QUEUE_PATHS = ['queued_application_downlinks', 'session.queued_application_downlinks', 'pending_session.queued_application_downlinks'] as const;

export { ttsPaths as TTS_FIELD_MASK_PATHS };
