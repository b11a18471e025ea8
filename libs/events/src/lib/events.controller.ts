import { hostname } from 'node:os';
import { Controller } from '@nestjs/common';
import {
  type CallerIdentity,
  type EntityIdentifiers,
  type EntityIdentifiersJson,
  EVENTS_EVENTS,
  type EventJson,
  impliedRights,
  nowTimestamp,
  type Right,
  RPCS,
  rpcCorrelationId,
  rightsEntityOf,
  type RpcContext,
  type StreamEventsRequest,
  type StreamStartReply,
  valueData,
  newUlid,
  rpcPattern,
} from '@lorawan/api';
import { RpcCallContext, RpcRequest, rightsErrors } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { ErrValidation } from '@lorawan/errors';
import { ErrNoIdentifiers } from './errors';
import { EventsHub } from './events-hub';
import type { HistoryQuery } from './history/event-history';
import { resolveNames } from './names';
import { timestampMicros } from './prepared-event';
import { type SessionRights, StreamFilter } from './stream-filter';

const ORIGIN = hostname();
const STREAM = RPCS['Events.Stream'];
const ID_KEYS = ['application_ids', 'device_ids', 'gateway_ids', 'user_ids', 'organization_ids', 'client_ids'] as const;

/**
 * `Events.Stream` (TTS `pkg/events/grpc` `Stream`): checks the request and the caller's rights on
 * every requested entity, registers the session with the hub, and answers the `events.stream.start`
 * event; history and live events follow on the session's subject.
 */
@Controller()
export class EventsController {
  constructor(private readonly hub: EventsHub) {}

  @MessagePattern(rpcPattern('Events.Stream'))
  async stream(@RpcRequest() req: StreamEventsRequest, @RpcCallContext() ctx: RpcContext): Promise<StreamStartReply> {
    const identifiers = requestedIdentifiers(req.identifiers);
    const names = resolveNames(req.names);
    if (!req.session_id) throw ErrValidation.with({ field: 'session_id', name: 'StreamEventsRequestValidationError', reason: 'value is required' });
    const rights = sessionRights(ctx.caller, identifiers);
    const history = historyQuery(req);
    const start = startEvent(identifiers, names, ctx);
    this.hub.open({ id: req.session_id, filter: new StreamFilter({ identifiers, names, rights }), history });
    return { start, replica: this.hub.replicaId };
  }
}

/** The request's identifiers: at least one (`no_identifiers`), each with exactly one kind of IDs set. */
export function requestedIdentifiers(identifiers: EntityIdentifiers[] | undefined): EntityIdentifiersJson[] {
  if (!identifiers || identifiers.length === 0) throw ErrNoIdentifiers.with();
  return identifiers.map((ids, i) => {
    const set = ID_KEYS.filter((key) => ids?.[key] !== undefined && ids?.[key] !== null);
    if (set.length !== 1) {
      const reason = set.length === 0 ? 'value is required' : 'only one of the identifiers may be set';
      throw ErrValidation.with(
        { field: `identifiers[${i}]`, name: 'StreamEventsRequestValidationError', reason: 'embedded message failed validation' },
        ErrValidation.with({ field: 'ids', name: 'EntityIdentifiersValidationError', reason }),
      );
    }
    // A plain JSON copy: the decoded message's classes do not travel, and the start event echoes it.
    return JSON.parse(JSON.stringify({ [set[0]]: ids[set[0]] })) as EntityIdentifiersJson;
  });
}

/**
 * The caller's rights on each requested entity (devices: their application), as the gateway
 * resolved them into `entity_rights`. No right at all on one of them: `no_<kind>_rights` (TTS
 * `rights.RequireAny`). An internal caller holds every right.
 */
export function sessionRights(caller: CallerIdentity | undefined, identifiers: readonly EntityIdentifiersJson[]): SessionRights {
  if (caller?.universal) return 'universal';
  const out = new Map<string, ReadonlySet<Right>>();
  for (const ids of identifiers) {
    const ref = rightsEntityOf(ids);
    const key = `${ref.kind}:${ref.id}`;
    if (out.has(key)) continue;
    const held =
      caller?.entity_rights?.find((e) => e.entity.kind === ref.kind && e.entity.id === ref.id)?.rights ??
      (caller?.entity?.kind === ref.kind && caller.entity.id === ref.id ? caller.rights : []);
    if (held.length === 0) throw rightsErrors(ref.kind).none.with({ uid: ref.id });
    out.set(key, impliedRights(held));
  }
  return out;
}

/** `after` and/or `tail`; neither: no history (live from now, as TTS without a store). */
export function historyQuery(req: Pick<StreamEventsRequest, 'after' | 'tail'>): HistoryQuery | undefined {
  const tail = req.tail && req.tail > 0 ? req.tail : undefined;
  const afterMicros = req.after ? timestampMicros(req.after) : undefined;
  if (tail === undefined && afterMicros === undefined) return undefined;
  return { ...(tail !== undefined ? { tail } : {}), ...(afterMicros !== undefined ? { afterMicros } : {}) };
}

/** The first message of every stream: identifiers as requested, the resolved names as data, no visibility. */
export function startEvent(identifiers: EntityIdentifiersJson[], names: string[] | undefined, ctx: RpcContext): EventJson {
  const correlation = rpcCorrelationId(STREAM, ctx.request_id);
  // TTS's start event has no visibility, so the field is absent on the wire.
  const event: Omit<EventJson, 'visibility'> = {
    name: EVENTS_EVENTS.streamStart.name,
    time: nowTimestamp(),
    identifiers,
    ...(names ? { data: valueData(names) } : {}),
    correlation_ids: [correlation, ...ctx.correlation_ids.filter((id) => id !== correlation)],
    origin: ORIGIN,
    unique_id: newUlid(),
  };
  return event as EventJson;
}
