import type { EntityKind, EntityRef, Right } from '../rpc/rights';

/**
 * An event as TTS writes it (`ttn.lorawan.v3.Event`, wire contract §7.1): what components publish,
 * what the events service keeps and streams.
 */

/** `EntityIdentifiers`: an object with exactly one of these keys. */
export type EntityIdentifiersJson =
  | { application_ids: { application_id: string } }
  | { device_ids: { device_id: string; application_ids: { application_id: string }; dev_eui?: string; join_eui?: string; dev_addr?: string } }
  | { gateway_ids: { gateway_id: string; eui?: string } }
  | { user_ids: { user_id: string; email?: string } }
  | { organization_ids: { organization_id: string } }
  | { client_ids: { client_id: string } };

export interface EventJson {
  name: string;
  /** RFC 3339 UTC with microseconds. */
  time: string;
  identifiers: EntityIdentifiersJson[];
  /** An `Any`: `@type` plus the message's fields, or `google.protobuf.Value` with `value`. Absent when none. */
  data?: Record<string, unknown>;
  correlation_ids: string[];
  /** The host that produced the event. */
  origin: string;
  /** Rights that let a subscriber see the event (any one of them, on the event's entity). */
  visibility: { rights: Right[] };
  /** ULID. */
  unique_id: string;
}

/** The entity whose rights govern an identifier: a device's application, else the entity itself. */
export function rightsEntityOf(ids: EntityIdentifiersJson): EntityRef {
  if ('device_ids' in ids) return { kind: 'application', id: ids.device_ids.application_ids.application_id };
  if ('application_ids' in ids) return { kind: 'application', id: ids.application_ids.application_id };
  if ('gateway_ids' in ids) return { kind: 'gateway', id: ids.gateway_ids.gateway_id };
  if ('user_ids' in ids) return { kind: 'user', id: ids.user_ids.user_id };
  if ('organization_ids' in ids) return { kind: 'organization', id: ids.organization_ids.organization_id };
  return { kind: 'client', id: ids.client_ids.client_id };
}

/** `application:app1`, `device:app1.dev1`, `gateway:gw1`, …: one key per identifier, for indexes. */
export function identifierKey(ids: EntityIdentifiersJson): string {
  if ('device_ids' in ids) return `device:${ids.device_ids.application_ids.application_id}.${ids.device_ids.device_id}`;
  const ref = rightsEntityOf(ids);
  return `${ref.kind}:${ref.id}`;
}

/**
 * The keys an events stream finds an event under: `keyOf` (`identifierKey`) of each identifier,
 * and `application:<id>` of each device when the event propagates to its parent (TTS
 * `WithPropagateToParent`). `keyOf` may refuse identifiers it cannot read (undefined).
 */
export function eventLookupKeys(
  propagateToParent: boolean,
  identifiers: readonly EntityIdentifiersJson[],
  keyOf: (ids: EntityIdentifiersJson) => string | undefined = identifierKey,
): Set<string> {
  const keys = new Set<string>();
  for (const ids of identifiers) {
    const key = keyOf(ids);
    if (!key) continue;
    keys.add(key);
    if (propagateToParent && 'device_ids' in ids) keys.add(`application:${ids.device_ids.application_ids.application_id}`);
  }
  return keys;
}

/** The identifiers of an entity, in their JSON form. */
export function entityIdentifiers(ref: EntityRef): EntityIdentifiersJson {
  const byKind: Record<EntityKind, () => EntityIdentifiersJson> = {
    application: () => ({ application_ids: { application_id: ref.id } }),
    gateway: () => ({ gateway_ids: { gateway_id: ref.id } }),
    user: () => ({ user_ids: { user_id: ref.id } }),
    organization: () => ({ organization_ids: { organization_id: ref.id } }),
    client: () => ({ client_ids: { client_id: ref.id } }),
  };
  return byKind[ref.kind]();
}

/** The identifiers of a device as a registry keeps them (device_id, application_ids, dev_eui, join_eui, dev_addr when set). */
export function deviceIdentifiers(ids: {
  device_id: string;
  application_ids: { application_id: string };
  dev_eui?: string;
  join_eui?: string;
  dev_addr?: string;
}): EntityIdentifiersJson {
  return {
    device_ids: {
      device_id: ids.device_id,
      application_ids: { application_id: ids.application_ids.application_id },
      ...(ids.dev_eui ? { dev_eui: ids.dev_eui } : {}),
      ...(ids.join_eui ? { join_eui: ids.join_eui } : {}),
      ...(ids.dev_addr ? { dev_addr: ids.dev_addr } : {}),
    },
  };
}

/**
 * Subject an event is published on: `events.<kind>.<id>` of its first identifier's rights entity
 * (devices under their application). In distributed mode a JetStream stream keeps `events.>`.
 */
export function eventSubject(event: Pick<EventJson, 'identifiers'>): string {
  const first = event.identifiers[0];
  if (!first) return 'events.none';
  const ref = rightsEntityOf(first);
  return `events.${ref.kind}.${subjectToken(ref.id)}`;
}

/** Every event subject (what the events service and the JetStream stream listen to). */
export const EVENT_SUBJECTS = 'events.>';

/** The subjects of the events about entities of one kind (`events.gateway.*`: what the GS listens to for registrations). */
export function entityEventSubjects(kind: EntityKind): string {
  return `events.${kind}.*`;
}

/** IDs are `[a-z0-9-]`; anything else (never produced by a valid request) is escaped so it stays one token. */
function subjectToken(id: string): string {
  return /^[a-z0-9-]+$/.test(id) ? id : encodeURIComponent(id).replace(/[.*>%]/g, '_');
}

/** `google.protobuf.Value` data (a list of field paths for updates, as TTS). */
export function valueData(value: unknown): Record<string, unknown> {
  return { '@type': 'type.googleapis.com/google.protobuf.Value', value };
}

/** Data of a `ttn.lorawan.v3.<type>` message. */
export function messageData(type: string, message: object): Record<string, unknown> {
  return { '@type': `type.googleapis.com/ttn.lorawan.v3.${type}`, ...message };
}
