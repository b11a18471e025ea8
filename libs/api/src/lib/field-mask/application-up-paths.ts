import ttsApplicationUpPaths from './application-up-paths.json';

/**
 * The field paths of an ApplicationUp, as TTS lists them (`ttnpb.ApplicationUpFieldPathsNested`,
 * `pkg/ttnpb/messages.pb.paths.fm.go`, v3.32.1; copied into `application-up-paths.json`): the
 * identifiers, `correlation_ids`, `received_at`, `simulated`, and the message kinds of the oneof
 * under `up.` (`up.uplink_message.decoded_payload`).
 */
export const APPLICATION_UP_PATHS: readonly string[] = Object.freeze([...ttsApplicationUpPaths]);

/**
 * What a webhook's `field_mask` may name: the ApplicationUp paths, and the oneof's paths without
 * their `up.` prefix (`uplink_message.decoded_payload`), which the delivery reads alike.
 */
export const WEBHOOK_FIELD_MASK_PATHS: ReadonlySet<string> = new Set([
  ...APPLICATION_UP_PATHS,
  ...APPLICATION_UP_PATHS.filter((p) => p.startsWith('up.')).map((p) => p.slice('up.'.length)),
]);

/**
 * The most paths a webhook's `field_mask` may hold: as many as ApplicationUp has (233); a mask
 * needs no more, as a parent path selects its whole subtree. TTS sets no bound (it stores any
 * mask and fails deliveries its paths do not fit).
 */
export const MAX_WEBHOOK_FIELD_MASK_PATHS = APPLICATION_UP_PATHS.length;
