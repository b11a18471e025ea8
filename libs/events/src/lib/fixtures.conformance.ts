import {
  type CallerIdentity,
  type EntityIdentifiersJson,
  type EntityRef,
  type EventDefinition,
  type EventJson,
  impliedRights,
  microsToTimestamp,
  newUlid,
  nowTimestamp,
  type Right,
} from '@lorawan/api';
import { PreparedEvent } from './prepared-event';
import { type SessionRights, StreamFilter } from './stream-filter';

/** Test fixtures of the events specs: identifiers, events as components publish them, filters. */

export const app = (id: string): EntityIdentifiersJson => ({ application_ids: { application_id: id } });
export const dev = (appId: string, devId: string): EntityIdentifiersJson => ({ device_ids: { device_id: devId, application_ids: { application_id: appId } } });
export const gtw = (id: string): EntityIdentifiersJson => ({ gateway_ids: { gateway_id: id } });

/** An event as `EventPublisher` builds it; `at` (ms since the epoch) sets its time. */
export function makeEvent(
  definition: EventDefinition,
  identifiers: EntityIdentifiersJson | EntityIdentifiersJson[],
  o: { at?: number; visibility?: Right[]; data?: unknown } = {},
): EventJson {
  return {
    name: definition.name,
    time: o.at !== undefined ? microsToTimestamp(o.at * 1000) : nowTimestamp(),
    identifiers: Array.isArray(identifiers) ? identifiers : [identifiers],
    ...(o.data !== undefined ? { data: { '@type': 'type.googleapis.com/google.protobuf.Value', value: o.data } } : {}),
    correlation_ids: ['rpc:/ttn.lorawan.v3.Test/Test:1'],
    origin: 'test-host',
    visibility: { rights: o.visibility ?? definition.visibility },
    unique_id: newUlid(),
  };
}

export function prepare(event: EventJson): PreparedEvent {
  const prepared = PreparedEvent.fromBytes(Buffer.from(JSON.stringify(event)));
  if (!prepared) throw new Error(`not an event: ${JSON.stringify(event)}`);
  return prepared;
}

/** Rights per entity, as `sessionRights` builds them (`application:app1` → implied rights). */
export function rightsOn(entries: Record<string, Right[]>): SessionRights {
  return new Map(Object.entries(entries).map(([key, rights]) => [key, impliedRights(rights)]));
}

/** A filter on `identifiers`; rights default to RIGHT_APPLICATION_ALL / RIGHT_GATEWAY_ALL on each requested entity. */
export function filterFor(identifiers: EntityIdentifiersJson[], o: { names?: string[]; rights?: SessionRights } = {}): StreamFilter {
  const rights =
    o.rights ??
    rightsOn(
      Object.fromEntries(
        identifiers.map((ids) => {
          if ('gateway_ids' in ids) return [`gateway:${ids.gateway_ids.gateway_id}`, ['RIGHT_GATEWAY_ALL'] as Right[]];
          const appId =
            'device_ids' in ids
              ? ids.device_ids.application_ids.application_id
              : (ids as { application_ids: { application_id: string } }).application_ids.application_id;
          return [`application:${appId}`, ['RIGHT_APPLICATION_ALL'] as Right[]];
        }),
      ),
    );
  return new StreamFilter({ identifiers, names: o.names, rights });
}

/** A caller as the gateway resolves it for a stream: an API key with rights per requested entity. */
export function streamCaller(entityRights: Array<[EntityRef, Right[]]>, o: Partial<CallerIdentity> = {}): CallerIdentity {
  return {
    kind: 'api-key',
    id: 'KEY1',
    is_admin: false,
    key_rights: [],
    universal: false,
    rights: [],
    entity_rights: entityRights.map(([entity, rights]) => ({ entity, rights })),
    ...o,
  };
}
