import { entityEventSubjects, type EventJson, IS_EVENTS } from '@lorawan/api';
import { decode, type PubSub, type Subscription } from '@lorawan/transport';

/** The Identity Server's events after which a gateway EUI may belong to a gateway. */
const REGISTRATIONS = new Set([IS_EVENTS.gateway.create.name, IS_EVENTS.gateway.update.name, IS_EVENTS.gateway.restore.name]);

/**
 * Calls `registered(eui)` for every gateway EUI the Identity Server registers (its `gateway.create`,
 * `gateway.update` and `gateway.restore` events name the gateway with its EUI), so that a Gateway
 * Server replica looks an EUI it refused up again at its next datagram rather than after
 * GS_UNKNOWN_EUI_CACHE_TTL_MS. Events reach every replica; one lost only delays the gateway until
 * the TTL.
 */
export function watchGatewayRegistrations(pubsub: PubSub, registered: (eui: string) => void): Subscription {
  return pubsub.subscribe(entityEventSubjects('gateway'), (payload) => {
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
  });
}
