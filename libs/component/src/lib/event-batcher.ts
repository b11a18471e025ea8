import { EVENT_BATCH_MAX_BYTES, EVENT_BATCH_MAX_EVENTS, eventBatchSubject } from '@lorawan/api';

export interface EventBatcherOptions {
  /** How long the first event of a batch may wait for others (DEFERRED_WRITE_MS over NATS). */
  windowMs: number;
  /** The most bytes of events' JSON in one message (separators not counted). */
  maxBytes?: number;
  /** The most events in one message. */
  maxEvents?: number;
  /** Asks for a call before the process's next RPC reply (`PubSub.beforeNextReply`): what waits is sent before it. */
  beforeNextReply?: (hook: () => void) => void;
}

/** Hands a message on (the transport's publish); may throw. */
export type BatchSink = (subject: string, payload: Uint8Array) => void;
/** Told about each event that could not be handed on, by name. */
export type BatchFailure = (name: string, error: Error) => void;

const SEPARATOR = Buffer.from('\n');

interface Batch {
  subject: string;
  events: Buffer[];
  /** Each event's own subject and name (should the batch be refused). */
  subjects: string[];
  names: string[];
  bytes: number;
  timer?: NodeJS.Timeout;
}

/**
 * Collects the events a process publishes into messages of several events (`splitEventBatch`):
 * the first event of a batch waits at most `windowMs` for others, and no longer than the process's
 * next RPC reply (so the events of a call are published before its answer, as they were when each
 * went at once: a caller that opens a stream after a call does not get them live, and one
 * component's events come before those of the calls it answered); an event whose subject cannot
 * share the batch's (`eventBatchSubject`: another kind of entity), or that would take it past
 * `maxBytes` or `maxEvents`, sends the batch first, so the messages keep the events' order. An
 * event larger than `maxBytes` goes alone. When the sink refuses a batch (NATS: larger than the
 * server's `max_payload`), its events are handed on one by one, each refusal reported.
 */
export class EventBatcher {
  private batch?: Batch;
  /** Whether a hook waits for the next reply (one at a time, however many batches come and go). */
  private hooked = false;
  private readonly maxBytes: number;
  private readonly maxEvents: number;

  constructor(
    private readonly sink: BatchSink,
    private readonly failed: BatchFailure,
    private readonly options: EventBatcherOptions,
  ) {
    this.maxBytes = options.maxBytes ?? EVENT_BATCH_MAX_BYTES;
    this.maxEvents = options.maxEvents ?? EVENT_BATCH_MAX_EVENTS;
  }

  /** Queues an event's JSON published on `subject` (`eventSubject`). */
  add(subject: string, name: string, json: Buffer): void {
    let batch = this.batch;
    if (batch) {
      const shared = eventBatchSubject(batch.subject, subject);
      if (shared !== undefined && batch.events.length < this.maxEvents && batch.bytes + json.length <= this.maxBytes) {
        batch.subject = shared;
        batch.events.push(json);
        batch.subjects.push(subject);
        batch.names.push(name);
        batch.bytes += json.length;
        return;
      }
      this.flush();
    }
    batch = { subject, events: [json], subjects: [subject], names: [name], bytes: json.length };
    if (json.length >= this.maxBytes || this.maxEvents <= 1) {
      this.batch = batch;
      return this.flush();
    }
    batch.timer = setTimeout(() => this.flush(), this.options.windowMs);
    batch.timer.unref();
    this.batch = batch;
    if (!this.hooked && this.options.beforeNextReply) {
      this.hooked = true;
      this.options.beforeNextReply(() => {
        this.hooked = false;
        this.flush();
      });
    }
  }

  /** Sends what waits (at once). */
  flush(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    clearTimeout(batch.timer);
    if (batch.events.length === 1) {
      this.send(batch.subject, batch.events[0], batch.names);
      return;
    }
    const parts: Buffer[] = [];
    for (const json of batch.events) {
      if (parts.length > 0) parts.push(SEPARATOR);
      parts.push(json);
    }
    if (this.send(batch.subject, Buffer.concat(parts, batch.bytes + batch.events.length - 1))) return;
    // Refused as a whole: one by one, each on its own subject.
    batch.events.forEach((json, i) => this.send(batch.subjects[i], json, [batch.names[i]]));
  }

  /** True when the sink took it; `names`: report a refusal of these events (undefined: the caller retries). */
  private send(subject: string, payload: Buffer, names?: string[]): boolean {
    try {
      this.sink(subject, payload);
      return true;
    } catch (err) {
      for (const name of names ?? []) this.failed(name, err as Error);
      return false;
    }
  }
}
