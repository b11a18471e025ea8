import type { HistoryQuery } from './history/event-history';
import type { PreparedEvent } from './prepared-event';
import type { StreamFilter } from './stream-filter';

/**
 * `opening`: registered, its start reply on its way (live events wait); `history`: reading history
 * (live events wait); `live`: what is queued is handed on; `closed`: gone from every index.
 */
export type SessionState = 'opening' | 'history' | 'live' | 'closed';

/** One stream on this replica: its filter, its bounded queue of messages not yet handed on. */
export class StreamSession {
  state: SessionState = 'opening';
  lastSeen: number;
  /** The fan-out pass that last looked at this session (an event with several matching identifiers is queued once). */
  pass = 0;
  /** Unique IDs of the history sent: the same events arriving live are not sent twice. */
  historyIds?: Set<string>;
  /** Handed-on entries are cleared (`undefined`) so that the queue does not hold them until it empties. */
  private queue: (PreparedEvent | undefined)[] = [];
  private head = 0;

  constructor(
    readonly id: string,
    readonly filter: StreamFilter,
    readonly history: HistoryQuery | undefined,
    now: number,
  ) {
    this.lastSeen = now;
  }

  get queued(): number {
    return this.queue.length - this.head;
  }

  push(event: PreparedEvent): void {
    this.queue.push(event);
  }

  /** History first, then what arrived live meanwhile (without what the history holds already). */
  prependHistory(history: PreparedEvent[]): void {
    if (history.length === 0) return;
    this.historyIds = new Set(history.map((e) => e.uniqueId));
    const ids = this.historyIds;
    const live = this.queue.slice(this.head).filter((e): e is PreparedEvent => e !== undefined && !ids.has(e.uniqueId));
    this.queue = [...history, ...live];
    this.head = 0;
  }

  shift(): PreparedEvent | undefined {
    if (this.head >= this.queue.length) return undefined;
    const event = this.queue[this.head];
    this.queue[this.head++] = undefined;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    }
    return event;
  }

  clear(): void {
    this.queue = [];
    this.head = 0;
    this.historyIds = undefined;
  }
}
