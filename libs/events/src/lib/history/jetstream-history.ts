import {
  AckPolicy,
  connect,
  type ConsumerConfig,
  type ConsumerInfo,
  DeliverPolicy,
  DiscardPolicy,
  type JetStreamClient,
  type JetStreamManager,
  nanos,
  type NatsConnection,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from 'nats';
import { EVENT_SUBJECTS, splitEventBatch } from '@lorawan/api';
import { ensureStream, type NatsSecurity, natsSecurityOptions } from '@lorawan/transport';
import { PreparedEvent } from '../prepared-event';
import type { StreamFilter } from '../stream-filter';
import { type EventHistory, HistoryCollector, type HistoryQuery } from './event-history';

export interface JetStreamHistoryOptions {
  url: string;
  /** TLS and credentials (NATS_TLS_*, NATS_USER). */
  security?: NatsSecurity;
  /** NATS_SUBJECT_PREFIX: the stream keeps `<prefix>.events.>` and is named `EVENTS_<prefix>`. */
  subjectPrefix?: string;
  /** EVENTS_RETENTION_MS: the stream's `max_age`. */
  retentionMs: number;
  /** EVENTS_HISTORY_MAX: a query reads at most this many of the stream's last messages (each one event or a batch of them). */
  scanMax: number;
  /** EVENTS_HISTORY_MAX_BYTES: the stream's `max_bytes` (oldest events dropped beyond it); default `DEFAULT_HISTORY_MAX_BYTES`. */
  maxBytes?: number;
  /** Connection name (shown by the NATS server). */
  name?: string;
}

/** JetStream API error codes (nats-server `server/errors.json`). */
/** Event times come from the publishing hosts' clocks, stream times from the NATS server's. */
const CLOCK_SKEW_MS = 5_000;
const FETCH_BATCH = 500;
const FETCH_EXPIRES_MS = 2_000;
/** Ephemeral consumers the server removes by itself should this replica die mid-query. */
const CONSUMER_INACTIVE_MS = 30_000;

/** `EVENTS`, or `EVENTS_<prefix>` when the stack runs under a subject prefix. */
export function eventStreamName(subjectPrefix?: string): string {
  return subjectPrefix ? `EVENTS_${subjectPrefix}` : 'EVENTS';
}

/** The stream's configuration: every event subject, kept `retentionMs` and within `maxBytes` (the oldest go first), on file, one replica. */
/** The events stream's size bound when none is configured (EVENTS_HISTORY_MAX_BYTES). */
export const DEFAULT_HISTORY_MAX_BYTES = 1024 ** 3;

export function eventStreamConfig(
  subjectPrefix: string | undefined,
  retentionMs: number,
  maxBytes = DEFAULT_HISTORY_MAX_BYTES,
): Partial<StreamConfig> & { name: string; subjects: string[] } {
  return {
    name: eventStreamName(subjectPrefix),
    description: 'LoRaWAN stack events (tail/after of Events.Stream)',
    subjects: [`${subjectPrefix ? `${subjectPrefix}.` : ''}${EVENT_SUBJECTS}`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    num_replicas: 1,
    max_age: nanos(retentionMs),
    max_bytes: maxBytes,
    discard: DiscardPolicy.Old,
    // Deduplication by message ID is not used; its window may not exceed max_age.
    duplicate_window: nanos(Math.min(120_000, retentionMs)),
  };
}

/** Creates the events stream, or updates its subjects, max age, max bytes, deduplication window and description (see `ensureStream`). */
export function ensureEventStream(jsm: JetStreamManager, config: ReturnType<typeof eventStreamConfig>): Promise<'created' | 'updated' | 'unchanged'> {
  return ensureStream(jsm, config, ['subjects', 'max_age', 'max_bytes', 'duplicate_window', 'description']);
}

/**
 * Distributed mode: history from the JetStream stream every component's events land in. A query
 * reads, through an ephemeral consumer, the stream's messages from `after` (less a clock-skew
 * margin; the exact cut is on the event's own time) or, for a tail only, from the start of the
 * retention window, but never more than the stream's last `scanMax` messages; it stops at the
 * stream's last message when it began (later ones come live). It keeps the last `tail` matches in
 * a ring, or without a tail stops once more than the stream's buffer matched.
 */
export class JetStreamEventHistory implements EventHistory {
  readonly recordsEvents = false;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly js: JetStreamClient,
    readonly streamName: string,
    private readonly o: JetStreamHistoryOptions,
  ) {}

  /** Connects (its own connection) and makes sure the stream exists with the configured retention. */
  static async open(o: JetStreamHistoryOptions): Promise<JetStreamEventHistory> {
    // nats.js's own write schedule, not connectNats: with coalesced writes the spec "leaves no consumer behind" failed (a query's
    // ephemeral consumer outlived it; not yet understood), and this connection carries a query's few requests, not a hot path.
    const nc = await connect({
      servers: o.url,
      name: o.name ?? 'events-history',
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      ...natsSecurityOptions(o.security),
    });
    try {
      const jsm = await nc.jetstreamManager();
      const config = eventStreamConfig(o.subjectPrefix, o.retentionMs, o.maxBytes);
      await ensureEventStream(jsm, config);
      return new JetStreamEventHistory(nc, jsm, nc.jetstream(), config.name, o);
    } catch (err) {
      await nc.close();
      throw err;
    }
  }

  record(): void {
    // JetStream keeps what components publish on the event subjects.
  }

  async query(filter: StreamFilter, query: HistoryQuery, limit: number): Promise<PreparedEvent[]> {
    const collector = new HistoryCollector(filter, query, limit);
    if (this.o.scanMax <= 0) return collector.result();
    const { state } = await this.jsm.streams.info(this.streamName);
    if (state.messages === 0) return collector.result();
    const last = state.last_seq;
    let start = Math.max(state.first_seq, last - this.o.scanMax + 1);
    if (query.afterMicros !== undefined) {
      const fromTime = await this.sequenceAt(Math.floor(query.afterMicros / 1000) - CLOCK_SKEW_MS);
      start = Math.max(start, fromTime);
    }
    if (start > last) return collector.result();
    await this.read(
      start,
      last,
      (event) => collector.offer(event),
      () => collector.full,
    );
    return collector.result();
  }

  async healthy(): Promise<boolean> {
    return !this.nc.isClosed();
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.close();
  }

  /** The first stream sequence stored at or after `ms` (the last sequence + 1 when none is). */
  private async sequenceAt(ms: number): Promise<number> {
    const info = await this.addConsumer({ deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(Math.max(0, ms)).toISOString() });
    void this.deleteConsumer(info.name);
    return info.delivered.stream_seq + 1;
  }

  /** Reads sequences `start`…`last` in order (fewer if some expired meanwhile), until `stop()`. */
  private async read(start: number, last: number, offer: (event: PreparedEvent) => void, stop: () => boolean): Promise<void> {
    const info = await this.addConsumer({ deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: start });
    try {
      const consumer = await this.js.consumers.get(this.streamName, info.name);
      let remaining = Math.min(info.num_pending, last - start + 1);
      while (remaining > 0 && !stop()) {
        const messages = await consumer.fetch({ max_messages: Math.min(FETCH_BATCH, remaining), expires: FETCH_EXPIRES_MS });
        let got = 0;
        let done = false;
        for await (const m of messages) {
          got++;
          remaining--;
          if (m.seq > last) {
            done = true;
            break;
          }
          // A message holds one event or a publisher's batch of them, in order.
          for (const bytes of splitEventBatch(m.data)) {
            const event = PreparedEvent.fromBytes(bytes);
            if (event) offer(event);
          }
          if (m.seq === last || remaining === 0 || stop()) {
            done = true;
            break;
          }
        }
        if (done) messages.stop();
        if (done || got === 0) break;
      }
    } finally {
      void this.deleteConsumer(info.name);
    }
  }

  private addConsumer(config: Partial<ConsumerConfig>): Promise<ConsumerInfo> {
    return this.jsm.consumers.add(this.streamName, {
      ack_policy: AckPolicy.None,
      mem_storage: true,
      num_replicas: 1,
      inactive_threshold: nanos(CONSUMER_INACTIVE_MS),
      ...config,
    });
  }

  private async deleteConsumer(name: string): Promise<void> {
    await this.jsm.consumers.delete(this.streamName, name).catch(() => undefined);
  }
}
