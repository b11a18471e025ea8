import { hostname } from 'node:os';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type EntityIdentifiersJson,
  type EventDefinition,
  type EventJson,
  eventSubject,
  messageData,
  nowTimestamp,
  type RpcContext,
  VALUE_TYPE,
  valueData,
  newUlid,
} from '@lorawan/api';
import { eventsPublished } from '@lorawan/observability';
import { encode, type PubSub, PUBSUB } from '@lorawan/transport';

const ORIGIN = hostname();

/**
 * Publishes a component's events (TTS `events.Publish`). Fire and forget: the transport's publish
 * does not wait for a broker acknowledgement, so publishing never blocks or fails the call that
 * caused the event; an event that cannot be encoded or sent is logged (by name, never its data)
 * and dropped. In distributed mode NATS JetStream keeps what is published on `events.>`.
 */
@Injectable()
export class EventPublisher {
  private readonly logger = new Logger('Events');

  constructor(@Inject(PUBSUB) private readonly pubsub: PubSub) {}

  /**
   * Publishes `definition` about `identifiers` with the request's correlation IDs. `data` is the
   * raw value (a path list for `google.protobuf.Value`, or a message's fields); it must never hold
   * secrets: callers pass what the event may show. Returns the event as published.
   */
  publish(
    definition: EventDefinition,
    identifiers: EntityIdentifiersJson | EntityIdentifiersJson[],
    options: { ctx?: RpcContext; data?: unknown } = {},
  ): EventJson {
    const event: EventJson = {
      name: definition.name,
      time: nowTimestamp(),
      identifiers: Array.isArray(identifiers) ? identifiers : [identifiers],
      correlation_ids: options.ctx?.correlation_ids ?? [],
      origin: ORIGIN,
      visibility: { rights: definition.visibility },
      unique_id: newUlid(),
    };
    const data = wrapData(definition, options.data);
    if (data) event.data = data;
    try {
      this.pubsub.publish(eventSubject(event), encode(event));
      eventsPublished.with(definition.name).inc();
    } catch (err) {
      this.logger.warn({ event: definition.name, error: (err as Error).message }, 'event not published');
    }
    return event;
  }
}

function wrapData(definition: EventDefinition, data: unknown): Record<string, unknown> | undefined {
  if (!definition.dataType || data === undefined) return undefined;
  if (definition.dataType === VALUE_TYPE) return valueData(data);
  return messageData(definition.dataType.replace(/^ttn\.lorawan\.v3\./, ''), data as object);
}
