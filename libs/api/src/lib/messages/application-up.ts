import { Base64Bytes, Bool, Duration, List, StringList, Struct, Timestamp, Uint32 } from '../json/fields';
import { Message, Messages } from '../json/nested';
import { EndDeviceIdentifiers } from './identifiers';
import { ApplicationDownlink } from './traffic';
import { isJsonObject } from '../json/json-object';

/**
 * `ttn.lorawan.v3.ApplicationUp` and the messages it carries (TTS `messages.proto`), as the AS
 * forwards them to integrations (webhooks) and as `AppAs.SimulateUplink` accepts them. The oneof
 * `up` is one of the keys of APPLICATION_UP_KINDS; radio metadata and settings are kept as
 * unvalidated objects.
 */

const CorrelationIds = () => StringList({ maxLength: 100 });

/** The oneof `up` of ApplicationUp, in proto order (also the webhook message fields of the same names). */
export const APPLICATION_UP_KINDS = [
  'uplink_message',
  'uplink_normalized',
  'join_accept',
  'downlink_ack',
  'downlink_nack',
  'downlink_sent',
  'downlink_failed',
  'downlink_queued',
  'downlink_queue_invalidated',
  'location_solved',
  'service_data',
] as const;
export type ApplicationUpKind = (typeof APPLICATION_UP_KINDS)[number];

/** `ttn.lorawan.v3.ApplicationUplink` (subset). `frm_payload` is the plaintext FRMPayload. */
export class ApplicationUplink {
  @Base64Bytes(2048) session_key_id?: string;
  @Uint32({ max: 255 }) f_port?: number;
  @Uint32() f_cnt?: number;
  @Base64Bytes() frm_payload?: string;
  @Struct() decoded_payload?: Record<string, unknown>;
  @List({ item: (v) => typeof v === 'string', itemReason: 'each item must be a string' }) decoded_payload_warnings?: string[];
  @List({ item: isJsonObject, itemReason: 'each item must be an object' }) normalized_payload?: Record<string, unknown>[];
  @List({ item: isJsonObject, itemReason: 'each item must be an object' }) rx_metadata?: Record<string, unknown>[];
  @Struct() settings?: Record<string, unknown>;
  @Timestamp() received_at?: string;
  @Bool() confirmed?: boolean;
  @Duration() consumed_airtime?: string;
  @Struct() locations?: Record<string, unknown>;
  @Struct() version_ids?: Record<string, unknown>;
  @Struct() network_ids?: Record<string, unknown>;
  @Uint32() last_a_f_cnt_down?: number;
}

/** `ttn.lorawan.v3.ApplicationJoinAccept` (without `app_s_key`: a simulated join-accept carries no key). */
export class ApplicationJoinAccept {
  @Base64Bytes(2048) session_key_id?: string;
  @List({ item: isJsonObject, itemReason: 'each item must be an object' }) invalidated_downlinks?: Record<string, unknown>[];
  @Bool() pending_session?: boolean;
  @Timestamp() received_at?: string;
}

/** `ttn.lorawan.v3.ApplicationDownlinkFailed`. */
export class ApplicationDownlinkFailed {
  @Message(() => ApplicationDownlink) downlink?: ApplicationDownlink;
  @Struct() error?: Record<string, unknown>;
}

/**
 * `ttn.lorawan.v3.ApplicationInvalidatedDownlinks`: the NS's queue of a session it can no longer
 * send (the FCnt moved past it), with the last FCnt used, for the AS to encrypt again.
 */
export class ApplicationInvalidatedDownlinks {
  @Messages(() => ApplicationDownlink) downlinks?: ApplicationDownlink[];
  @Uint32() last_f_cnt_down?: number;
  @Base64Bytes(2048) session_key_id?: string;
}

/**
 * `ttn.lorawan.v3.ApplicationUp`: the body of `AppAs.SimulateUplink` (the path's IDs win) and the
 * JSON delivered to webhooks. Exactly one of APPLICATION_UP_KINDS must be set (checked by the AS).
 */
export class ApplicationUp {
  @Message(() => EndDeviceIdentifiers) end_device_ids?: EndDeviceIdentifiers;
  @CorrelationIds() correlation_ids?: string[];
  @Timestamp() received_at?: string;
  @Bool() simulated?: boolean;
  @Message(() => ApplicationUplink) uplink_message?: ApplicationUplink;
  @Struct() uplink_normalized?: Record<string, unknown>;
  @Message(() => ApplicationJoinAccept) join_accept?: ApplicationJoinAccept;
  @Message(() => ApplicationDownlink) downlink_ack?: ApplicationDownlink;
  @Message(() => ApplicationDownlink) downlink_nack?: ApplicationDownlink;
  @Message(() => ApplicationDownlink) downlink_sent?: ApplicationDownlink;
  @Message(() => ApplicationDownlinkFailed) downlink_failed?: ApplicationDownlinkFailed;
  @Message(() => ApplicationDownlink) downlink_queued?: ApplicationDownlink;
  @Message(() => ApplicationInvalidatedDownlinks) downlink_queue_invalidated?: ApplicationInvalidatedDownlinks;
  @Struct() location_solved?: Record<string, unknown>;
  @Struct() service_data?: Record<string, unknown>;
}

/** ApplicationUp as JSON (what the AS publishes to integrations): the TTS shape, zero fields omitted. */
export type ApplicationUpJson = {
  end_device_ids: Record<string, unknown> & { device_id: string; application_ids: { application_id: string } };
  correlation_ids?: string[];
  received_at?: string;
  simulated?: boolean;
} & Partial<Record<ApplicationUpKind, Record<string, unknown>>>;

/** The kind of an ApplicationUp (the key of its `up` oneof), or undefined when none or several are set. */
export function applicationUpKind(up: object): ApplicationUpKind | undefined {
  const set = APPLICATION_UP_KINDS.filter((k) => (up as Record<string, unknown>)[k] !== undefined && (up as Record<string, unknown>)[k] !== null);
  return set.length === 1 ? set[0] : undefined;
}
