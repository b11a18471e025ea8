import { EndDevice } from '../messages/end-device';
import { type KeyPaths, keyPathsOf, readKeyPaths, writeKeyPaths } from './key-paths';
import { endDeviceAllowedPaths } from './end-device-paths';
import { entityAllowedPaths } from './entity-paths';

export {
  AS_END_DEVICE_FIELDS,
  canonicalEndDevicePaths,
  END_DEVICE_PATHS,
  IS_END_DEVICE_FIELDS,
  JS_END_DEVICE_FIELDS,
  NS_END_DEVICE_FIELDS,
} from './end-device-paths';
export { TTS_FIELD_MASK_PATHS } from './tts-paths';

/**
 * Allowed field-mask paths per RPC: the subset of TTS's lists (`tts-fieldmask-paths.json`, copied
 * from the spec) that covers the fields the seed defines for that registry. A path outside its
 * RPC's set is rejected with `field_mask_paths`. They are the wire contract (what a TTS client may
 * send, as TTS's `ttnpb/field_mask_validation.go`), so they stay in the contract: the end devices'
 * in `end-device-paths.ts`, the other entities' in `entity-paths.ts`.
 */
export const ALLOWED_PATHS = {
  ...endDeviceAllowedPaths(),
  ...entityAllowedPaths(),
} as const;

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
