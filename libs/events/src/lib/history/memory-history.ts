import type { PreparedEvent } from '../prepared-event';
import type { StreamFilter } from '../stream-filter';
import { type EventHistory, HistoryCollector, type HistoryQuery, TailCollector } from './event-history';

/**
 * In memory (the specs' reference; embedded mode keeps its history in SQLite, `SqlEventHistory`):
 * the last `max` events received (oldest dropped first), none older than `retentionMs`, in a ring. A query scans it once, newest first when only a tail is asked.
 */
export class MemoryEventHistory implements EventHistory {
  readonly recordsEvents = true;
  private readonly events: Array<{ event: PreparedEvent; receivedAt: number } | undefined>;
  /** Index of the oldest entry. */
  private head = 0;
  private size = 0;

  constructor(
    private readonly max: number,
    private readonly retentionMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.events = new Array(max);
  }

  get length(): number {
    this.prune();
    return this.size;
  }

  record(event: PreparedEvent): void {
    if (this.max === 0) return;
    this.prune();
    if (this.size === this.max) this.dropOldest();
    this.events[(this.head + this.size) % this.max] = { event, receivedAt: this.now() };
    this.size++;
  }

  async query(filter: StreamFilter, query: HistoryQuery, limit: number): Promise<PreparedEvent[]> {
    this.prune();
    const oldest = (this.now() - this.retentionMs) * 1000;
    const after = Math.max(query.afterMicros ?? -Infinity, oldest - 1);
    const collector = new HistoryCollector(filter, { ...query, afterMicros: after }, limit);
    if (query.tail && query.afterMicros === undefined) {
      // Newest first, stop at `tail` matches; the collector then orders them oldest first.
      const tail = new TailCollector(filter, after, query.tail);
      for (let i = this.size - 1; i >= 0 && !tail.full; i--) tail.offer(this.at(i));
      return tail.result();
    }
    for (let i = 0; i < this.size && !collector.full; i++) collector.offer(this.at(i));
    return collector.result();
  }

  async healthy(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    this.events.fill(undefined);
    this.head = 0;
    this.size = 0;
  }

  private at(i: number): PreparedEvent {
    return (this.events[(this.head + i) % this.max] as { event: PreparedEvent }).event;
  }

  private prune(): void {
    const cutoff = this.now() - this.retentionMs;
    while (this.size > 0 && (this.events[this.head] as { receivedAt: number }).receivedAt < cutoff) this.dropOldest();
  }

  private dropOldest(): void {
    this.events[this.head] = undefined;
    this.head = (this.head + 1) % this.max;
    this.size--;
  }
}
