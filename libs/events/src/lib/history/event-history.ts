import type { PreparedEvent } from '../prepared-event';
import type { StreamFilter } from '../stream-filter';

/** What a stream asked to replay before its live events (`after` and/or `tail`; neither: nothing). */
export interface HistoryQuery {
  /** Events with a time after this (microseconds since the epoch). */
  afterMicros?: number;
  /** The last `tail` matching events. */
  tail?: number;
}

/**
 * The events kept for `tail`/`after`: a SQLite table of the events service in embedded mode (an
 * in-memory ring in the specs), NATS JetStream in distributed mode. Both look at most at the last
 * `EVENTS_HISTORY_MAX` events within `EVENTS_RETENTION_MS`, so a query's work is bounded.
 */
export interface EventHistory {
  /** Whether `record` keeps events (false: every event need not even be parsed when no stream is open). */
  readonly recordsEvents: boolean;
  /** Every event this replica receives (the ring keeps it; JetStream keeps events by itself). */
  record(event: PreparedEvent): void;
  /**
   * The events matching `filter` and `query`, oldest first. Without `tail` at most `limit + 1`
   * (more than `limit` means the stream could not take them anyway).
   */
  query(filter: StreamFilter, query: HistoryQuery, limit: number): Promise<PreparedEvent[]>;
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Collects matching events in the order they are offered: with `tail` the last `tail` of them
 * (a ring), else all of them up to `limit + 1`. `full` tells when offering more is useless.
 */
export class HistoryCollector {
  private readonly ring: PreparedEvent[] = [];
  private next = 0;
  private count = 0;
  /** An event published twice (a retried publish) is replayed once. */
  private readonly seen = new Set<string>();

  constructor(
    private readonly filter: StreamFilter,
    private readonly query: HistoryQuery,
    private readonly limit: number,
  ) {}

  offer(event: PreparedEvent): void {
    if (this.query.afterMicros !== undefined && event.timeMicros <= this.query.afterMicros) return;
    if (this.seen.has(event.uniqueId) || !this.filter.matches(event)) return;
    this.seen.add(event.uniqueId);
    this.count++;
    const tail = this.query.tail;
    if (tail) {
      this.ring[this.next] = event;
      this.next = (this.next + 1) % tail;
    } else {
      this.ring.push(event);
    }
  }

  /** No tail and more than `limit` collected: the stream will end with `buffer_full` anyway. */
  get full(): boolean {
    return !this.query.tail && this.ring.length > this.limit;
  }

  /** Oldest first by event time (stable: ties keep the order offered). */
  result(): PreparedEvent[] {
    const tail = this.query.tail;
    const ordered = tail && this.count > tail ? [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)] : this.ring.slice();
    return ordered.sort((a, b) => a.timeMicros - b.timeMicros);
  }
}

/**
 * A tail without `after`, scanning the history newest first: keeps the first `tail` matching
 * events offered that are newer than `afterMicros` (the retention's cut), one copy of an event
 * published twice. `full` tells when the scan can stop; `result` is oldest first by event time.
 */
export class TailCollector {
  private readonly found: PreparedEvent[] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly filter: StreamFilter,
    private readonly afterMicros: number,
    private readonly tail: number,
  ) {}

  offer(event: PreparedEvent): void {
    if (this.full || event.timeMicros <= this.afterMicros || this.seen.has(event.uniqueId) || !this.filter.matches(event)) return;
    this.seen.add(event.uniqueId);
    this.found.push(event);
  }

  get full(): boolean {
    return this.found.length >= this.tail;
  }

  result(): PreparedEvent[] {
    return this.found
      .slice()
      .reverse()
      .sort((a, b) => a.timeMicros - b.timeMicros);
  }
}
