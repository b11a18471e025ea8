import { Event } from '../messages/responses';
import { defineRpc, type RpcDefinition } from './define-rpc';
import { StreamEventsRequest } from '../events/stream';

const rpc = defineRpc;

/** The events service: a stream of the events of the entities a caller may see (TTS `events.proto`). */
export function eventsRpcs() {
  return {
    'Events.Stream': rpc({
      service: 'Events',
      method: 'Stream',
      component: 'events',
      http: [{ verb: 'POST', path: '/events', body: '*' }],
      // Rights on each requested entity: resolved by the gateway into `entity_rights`, checked by the events service.
      rights: [],
      request: StreamEventsRequest,
      response: Event,
      stream: true,
    }),
  } satisfies Record<string, RpcDefinition>;
}
