import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { type EntityIdentifiersJson, type EventDefinition, eventSubject, nowTimestamp, type RpcContext, VALUE_TYPE, newUlid } from '@lorawan/api';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { eventsDataOmitted, eventsPublished } from '@lorawan/observability';
import { DEFERRED_WRITE_MS, type PubSub, PUBSUB } from '@lorawan/transport';
import { EventBatcher } from './event-batcher';
import { EventWatch } from './event-watch';

const ORIGIN = hostname();

/**
 * Publishes a component's events (TTS `events.Publish`). Fire and forget: the transport's publish
 * does not wait for a broker acknowledgement, so publishing never blocks or fails the call that
 * caused the event; an event that cannot be encoded or sent is logged (by name, never its data)
 * and dropped. In distributed mode NATS JetStream keeps what is published on `events.>`.
 *
 * Over NATS the events of `DEFERRED_WRITE_MS` go out as one message of several events
 * (`EventBatcher`, `splitEventBatch`): the same few milliseconds an event used to wait for the
 * connection's next socket write, now spent collecting the events of every turn in that window
 * (a data uplink's events come from several turns) into one message for the NATS server to route
 * and JetStream to store. The batch is then published like any message, so an event still waits
 * no longer than before; and it is published before the process's next RPC reply, so a call's
 * events still precede its answer. In process there is no message to save: each event is
 * delivered at once.
 *
 * Over NATS, a traffic event (`trafficData`: a frame, an ApplicationUp, a downlink) carries its
 * data only while an events stream watches one of its entities (EVENTS_DATA=watched,
 * `EventWatch`): the frame of every gateway's copy is the bulk of a data uplink's events, and
 * nobody reads it when nobody watches. Under EVENTS_DATA=always, and in process (no wire, and the
 * embedded history keeps every event's data for a newcomer's console), every event carries it.
 *
 * Every event's JSON is the `EventJson` (`ttn.lorawan.v3.Event`) of `encodeEvent`, written
 * directly rather than built as an object and stringified: the parts that depend only on the
 * definition are written once per definition, and the data's fields are not copied into a
 * wrapper for its `@type` (a data uplink's events carry every gateway's metadata).
 */
@Injectable()
export class EventPublisher implements OnApplicationShutdown {
  private readonly logger = new Logger('Events');
  /** Undefined: each event is published at once (in process, and once shutting down). */
  private batcher?: EventBatcher;

  /** Which traffic events get their data: EVENTS_DATA over NATS; in process (and without a configuration) every event. */
  private readonly watch: EventWatch;

  constructor(
    @Inject(PUBSUB) private readonly pubsub: PubSub,
    @Optional() @Inject(STACK_CONFIG) config?: StackConfig,
  ) {
    this.watch = new EventWatch(pubsub, { mode: pubsub.kind === 'nats' ? (config?.eventsData ?? 'always') : 'always' });
    if (pubsub.kind === 'nats') {
      this.batcher = new EventBatcher(
        (subject, payload) => pubsub.publish(subject, payload),
        (name, err) => this.logger.warn({ event: name, error: err.message }, 'event not published'),
        { windowMs: DEFERRED_WRITE_MS, beforeNextReply: pubsub.beforeNextReply?.bind(pubsub) },
      );
    }
  }

  /**
   * Publishes `definition` about `identifiers` with the request's correlation IDs. `data` is the
   * raw value (a path list for `google.protobuf.Value`, or a message's fields); it must never hold
   * secrets: callers pass what the event may show.
   */
  publish(
    definition: EventDefinition,
    identifiers: EntityIdentifiersJson | EntityIdentifiersJson[],
    options: { ctx?: RpcContext | Pick<RpcContext, 'correlation_ids'>; data?: unknown } = {},
  ): void {
    const ids = Array.isArray(identifiers) ? identifiers : [identifiers];
    try {
      let data = options.data;
      if (data !== undefined && !this.watch.withData(definition, ids)) {
        data = undefined;
        eventsDataOmitted.with(definition.name).inc();
      }
      const json = Buffer.from(encodeEvent(definition, ids, options.ctx?.correlation_ids ?? [], data));
      const subject = eventSubject({ identifiers: ids });
      // Events may wait a few milliseconds (none waits on them).
      if (this.batcher) this.batcher.add(subject, definition.name, json);
      else this.pubsub.publish(subject, json, { deferrable: true });
      eventsPublished.with(definition.name).inc();
    } catch (err) {
      this.logger.warn({ event: definition.name, error: (err as Error).message }, 'event not published');
    }
  }

  /** Publishes the events that wait, before the transport closes; later ones go at once. */
  onApplicationShutdown(): void {
    this.watch.close();
    const batcher = this.batcher;
    this.batcher = undefined;
    batcher?.flush();
  }
}

/** The JSON of an event's fields that depend on its definition only (and the process): before and after its time. */
interface EnvelopeParts {
  /** `{"name":…,"time":"` */
  head: string;
  /** `","origin":…,"visibility":…,"unique_id":"` with the identifiers and correlation IDs before it. */
  visibility: string;
  /** `{"@type":"type.googleapis.com/…"` of its data; undefined: it has none. */
  type?: string;
}

const envelopes = new WeakMap<EventDefinition, EnvelopeParts>();

function envelopeOf(definition: EventDefinition): EnvelopeParts {
  let parts = envelopes.get(definition);
  if (!parts) {
    const type = definition.dataType?.replace(/^ttn\.lorawan\.v3\./, '');
    parts = {
      head: `{"name":${JSON.stringify(definition.name)},"time":"`,
      visibility: `,"origin":${JSON.stringify(ORIGIN)},"visibility":${JSON.stringify({ rights: definition.visibility })},"unique_id":"`,
      type:
        type === undefined
          ? undefined
          : `{"@type":${JSON.stringify(definition.dataType === VALUE_TYPE ? `type.googleapis.com/${VALUE_TYPE}` : `type.googleapis.com/ttn.lorawan.v3.${type}`)}`,
    };
    envelopes.set(definition, parts);
  }
  return parts;
}

/**
 * An event's JSON: the same text as `JSON.stringify` of the `EventJson` with the fields in the
 * order `name`, `time`, `identifiers`, `correlation_ids`, `origin`, `visibility`, `unique_id`,
 * `data`; `data` is `{"@type": …, "value": data}` for `google.protobuf.Value` and the message's
 * fields after `@type` otherwise (absent without a data type or data). A fresh time and ULID.
 */
export function encodeEvent(definition: EventDefinition, identifiers: EntityIdentifiersJson[], correlationIds: string[], data: unknown): string {
  const parts = envelopeOf(definition);
  // Timestamps and ULIDs never need escaping.
  const envelope = `${parts.head}${nowTimestamp()}","identifiers":${JSON.stringify(identifiers)},"correlation_ids":${JSON.stringify(correlationIds)}${parts.visibility}${newUlid()}"`;
  const json = parts.type === undefined || data === undefined ? undefined : dataJson(parts.type, definition.dataType === VALUE_TYPE, data);
  return json === undefined ? `${envelope}}` : `${envelope},"data":${json}}`;
}

/** `{"@type":…,"value":…}` or `{"@type":…,<the message's fields>}`, as `JSON.stringify` writes the wrapped object. */
function dataJson(type: string, isValue: boolean, data: unknown): string {
  if (isValue) {
    const value = JSON.stringify(data);
    return value === undefined ? `${type}}` : `${type},"value":${value}}`;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data) || typeof (data as { toJSON?: unknown }).toJSON === 'function' || '@type' in data) {
    // What the wrapper's spread would make of anything but a plain message (none is passed today).
    return JSON.stringify({ '@type': JSON.parse(`${type}}`)['@type'], ...(data as object) });
  }
  const fields = JSON.stringify(data);
  return fields === '{}' ? `${type}}` : `${type},${fields.slice(1)}`;
}
