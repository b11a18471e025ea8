import { entityEventSubjects, type EventJson, IS_EVENTS, splitEventBatch } from '@lorawan/api';
import { decode, type PubSub, type Subscription } from '@lorawan/transport';

/** The Identity Server's events after which a gateway EUI may belong to a gateway. */
const REGISTRATIONS = new Set([IS_EVENTS.gateway.create.name, IS_EVENTS.gateway.update.name, IS_EVENTS.gateway.restore.name]);

/**
 * Calls `registered(eui)` for every gateway EUI the Identity Server registers (its `gateway.create`,
 * `gateway.update` and `gateway.restore` events name the gateway with its EUI), so that a Gateway
 * Server replica looks an EUI it refused up again at its next datagram rather than after
 * GS_UNKNOWN_EUI_CACHE_TTL_MS. Events reach every replica; one lost only delays the gateway until
 * the TTL.
 *
 * The subjects are those of every gateway's events, this Gateway Server's own included (a received
 * copy's `gs.up.receive` carries the whole message): an event whose name (the first field of what
 * EventPublisher writes) is not one of these is passed over without decoding it.
 */
export function watchGatewayRegistrations(pubsub: PubSub, registered: (eui: string) => void): Subscription {
  return pubsub.subscribe(entityEventSubjects('gateway'), (payload) => {
    // A message holds one event or a publisher's batch of them (`splitEventBatch`).
    for (const bytes of splitEventBatch(payload)) watch(bytes, registered);
  });
}

function watch(payload: Uint8Array, registered: (eui: string) => void): void {
  if (otherEvent(payload)) return;
  let event: EventJson;
  try {
    event = decode<EventJson>(payload);
  } catch {
    return;
  }
  if (!REGISTRATIONS.has(event.name) || !Array.isArray(event.identifiers)) return;
  for (const ids of event.identifiers) {
    const eui = 'gateway_ids' in ids ? ids.gateway_ids?.eui : undefined;
    if (typeof eui === 'string') registered(eui);
  }
}

const NAME_FIELD = /^\{"name":"([a-z0-9._]*)"/;
/** Long enough for the `name` field of every event. */
const HEAD_BYTES = 96;

/** Whether the payload names, in its first field, an event that is not a registration (anything else is decoded). */
function otherEvent(payload: Uint8Array): boolean {
  const head = Buffer.from(payload.buffer, payload.byteOffset, Math.min(payload.length, HEAD_BYTES)).toString('latin1');
  const name = NAME_FIELD.exec(head)?.[1];
  return name !== undefined && !REGISTRATIONS.has(name);
}
