import { Str, Timestamp, Uint32, StringList } from '../json/fields';

const SESSION_ID_PATTERN_SOURCE = /^[0-9A-Za-z]{10,40}$/;
import type { ErrorDetails } from '@lorawan/errors';
import type { EventJson } from './event';
import { Message, Messages } from '../json/nested';
import {
  ApplicationIdentifiers,
  ClientIdentifiers,
  EndDeviceIdentifiers,
  GatewayIdentifiers,
  OrganizationIdentifiers,
  UserIdentifiers,
} from '../messages/identifiers';

/** `ttn.lorawan.v3.EntityIdentifiers`: exactly one of its fields is set (checked by the events service). */
export class EntityIdentifiers {
  @Message(() => ApplicationIdentifiers) application_ids?: ApplicationIdentifiers;
  @Message(() => EndDeviceIdentifiers) device_ids?: EndDeviceIdentifiers;
  @Message(() => GatewayIdentifiers) gateway_ids?: GatewayIdentifiers;
  @Message(() => UserIdentifiers) user_ids?: UserIdentifiers;
  @Message(() => OrganizationIdentifiers) organization_ids?: OrganizationIdentifiers;
  @Message(() => ClientIdentifiers) client_ids?: ClientIdentifiers;
}

/** `POST /api/v3/events` (`Events.Stream`). */
export class StreamEventsRequest {
  /** Required and non-empty: the events service answers `pkg/events/grpc:no_identifiers` otherwise (TTS). */
  @Messages(() => EntityIdentifiers, { maxItems: 100 }) identifiers?: EntityIdentifiers[];
  /** History: the last `tail` matching events. */
  @Uint32({ max: 10000 }) tail?: number;
  /** History: events after this time. */
  @Timestamp() after?: string;
  /** Exact event names, or regular expressions between slashes (`/^as\.up\./`). */
  @StringList({ maxItems: 100, maxLength: 200 }) names?: string[];
  /** Set by the gateway (whatever the client sent): the stream's session, see below. */
  @Str({ pattern: SESSION_ID_PATTERN_SOURCE }) session_id?: string;
}

/**
 * The gateway ⇄ events service protocol of one stream (both modes, over the transport):
 * 1. The gateway picks a session ID, subscribes to `streamSubject(id)`, and sends `Events.Stream`
 *    (the request with `session_id` set by the gateway, the caller with `entity_rights`) to one
 *    events replica (queue group).
 * 2. The replica checks the request and the rights, answers `StreamStartReply` (the
 *    `events.stream.start` event, always the first message), then publishes history and live
 *    events as `StreamMessage`s on `streamSubject(id)`.
 * 3. While the client is connected the gateway publishes `{ping:true}` on `streamControlSubject(id)`
 *    every STREAM_PING_MS; on disconnect `{close:true}`. A replica drops a session that missed
 *    pings for STREAM_SESSION_TIMEOUT_MS, or whose messages it cannot hand on (bounded buffer),
 *    ending it with an error message.
 * 4. The other way round: every replica publishes a heartbeat on `replicaHeartbeatSubject(replica)`
 *    every STREAM_REPLICA_HEARTBEAT_MS (one message per replica, however many sessions it serves),
 *    and names itself in the start reply. A gateway that has not heard a session's replica for
 *    STREAM_REPLICA_TIMEOUT_MS (it died, froze, or lost the broker) ends the stream with
 *    `unavailable`, so that the client opens a new one (on a live replica) instead of waiting on a
 *    silent stream for ever. A start reply without `replica` (an older replica) is not watched.
 */
export const streamSubject = (sessionId: string) => `stream.${sessionId}`;
export const streamControlSubject = (sessionId: string) => `stream-control.${sessionId}`;
/** What an events replica subscribes to once for every session's control messages. */
export const STREAM_CONTROL_SUBJECTS = 'stream-control.*';
export const STREAM_PING_MS = 10_000;
export const STREAM_SESSION_TIMEOUT_MS = 35_000;
export const replicaHeartbeatSubject = (replica: string) => `stream-replica.${replica}`;
/** What a gateway subscribes to once for every replica's heartbeats. */
export const STREAM_REPLICA_SUBJECTS = 'stream-replica.*';
export const STREAM_REPLICA_HEARTBEAT_MS = 1_000;
export const STREAM_REPLICA_TIMEOUT_MS = 4_000;

/**
 * What a replica's heartbeat carries (JSON): the lookup keys its sessions are indexed under
 * (`watch`: `identifierKey`s, see `eventLookupKeys`), so that publishers write a traffic event's
 * data only while some stream watches it (EVENTS_DATA=watched); `watch_all` when they are more
 * than `HEARTBEAT_WATCH_MAX` (a large deployment then gets every event's data, as before). An
 * empty heartbeat (an older replica) says nothing about what it watches: publishers treat it as
 * `watch_all`. A replica that opens a session on a key it did not watch sends a heartbeat at once.
 */
export interface ReplicaHeartbeat {
  watch?: string[];
  watch_all?: boolean;
}
export const HEARTBEAT_WATCH_MAX = 2_000;
export const SESSION_ID_PATTERN = SESSION_ID_PATTERN_SOURCE;

export type StreamControl = { ping: true } | { close: true };
export type StreamMessage = { event: EventJson } | { error: ErrorDetails } | { end: true };
export interface StreamStartReply {
  start: EventJson;
  /** The replica serving the session (its heartbeat subject's token); absent from older replicas. */
  replica?: string;
}
