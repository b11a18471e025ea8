import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { type ComponentDataSourceOptions, DatabaseHealthIndicator, openDataSource, runAtomically, runStatement, type Statement } from '@lorawan/persistence';
import { PreparedEvent } from '../prepared-event';
import type { StreamFilter } from '../stream-filter';
import { type EventHistory, HistoryCollector, type HistoryQuery, TailCollector } from './event-history';

export interface SqlEventHistoryOptions {
  /** EVENTS_HISTORY_MAX: the last this many events received are kept. */
  max: number;
  /** EVENTS_RETENTION_MS: none received longer ago than this. */
  retentionMs: number;
  /** Events that may wait for their write (the database away or slow): beyond it the oldest waiting is dropped. */
  bufferMax?: number;
  now?: () => number;
}

/** Events recorded within this many ms go into one write. */
const WRITE_DELAY_MS = 25;
/** Events per INSERT (3 parameters each). */
const WRITE_BATCH = 250;
/** After a failed write, the next attempt. */
const RETRY_DELAY_MS = 1_000;
/** Rows one prune deletes at most (it runs with every write and every PRUNE_INTERVAL_MS). */
const PRUNE_BATCH = 1_000;
const PRUNE_INTERVAL_MS = 60_000;
/** Rows a query reads per statement. */
const READ_PAGE = 500;
const DEFAULT_BUFFER_MAX = 10_000;

interface Recorded {
  event: PreparedEvent;
  receivedAt: number;
}

/** What a query looks at: rows `low < seq <= high` received at or after `cutoff`, then `pending` (newer). */
interface Window {
  low: number;
  high: number;
  cutoff: number;
  pending: PreparedEvent[];
}

const MAX_SEQ = 'SELECT MAX(seq) AS seq FROM event_history';
/** Beyond the last `max` rows (received order), a bounded range from the oldest. */
const PRUNE_OVERFLOW = `DELETE FROM event_history WHERE seq <= (${MAX_SEQ}) - ? AND seq < (SELECT MIN(seq) FROM event_history) + ?`;
/** Received before the retention's cut, in a bounded range from the oldest. */
const PRUNE_EXPIRED = 'DELETE FROM event_history WHERE seq < (SELECT MIN(seq) FROM event_history) + ? AND received_at < ?';

/**
 * Embedded mode: the history in the events service's own SQLite file (`events.sqlite` under
 * DATA_DIR, table `event_history`), so it survives a restart. `record` stays synchronous: events
 * wait in a bounded buffer and are written a batch per transaction a moment later, pruning the rows
 * beyond `max` or older than `retentionMs` as it goes (and every minute), a bounded range each time;
 * a failed write is logged and tried again, never thrown. A query first writes what waits, then
 * reads the last `max` events received within the retention (a failed write's events from the
 * buffer), with the same collectors as the memory ring, so it answers what the ring would.
 * The statements are SQLite's (this history has no MySQL mode: distributed mode keeps JetStream).
 */
export class SqlEventHistory implements EventHistory {
  readonly recordsEvents = true;
  private readonly logger = new Logger('EventHistory');
  private readonly now: () => number;
  private readonly bufferMax: number;
  private pending: Recorded[] = [];
  private writeTimer?: NodeJS.Timeout;
  private readonly pruneTimer: NodeJS.Timeout;
  /** Writes, prunes and a query's snapshot run one at a time. */
  private lock: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Events dropped from a full buffer since the last successful write (logged when it starts and when writes resume). */
  private dropped = 0;
  private readonly health: DatabaseHealthIndicator;

  constructor(
    private readonly ds: DataSource,
    private readonly o: SqlEventHistoryOptions,
  ) {
    this.now = o.now ?? Date.now;
    this.bufferMax = Math.max(1, o.bufferMax ?? DEFAULT_BUFFER_MAX);
    this.health = new DatabaseHealthIndicator(ds);
    this.pruneTimer = setInterval(() => void this.exclusive(() => this.pruneExpired()), PRUNE_INTERVAL_MS);
    this.pruneTimer.unref();
  }

  /** Opens (and, with `migrate`, migrates) the database; the history owns it and closes it with `close`. */
  static async open(dataSource: ComponentDataSourceOptions, migrate: boolean, o: SqlEventHistoryOptions): Promise<SqlEventHistory> {
    const ds = await openDataSource(dataSource, migrate);
    return new SqlEventHistory(ds, o);
  }

  record(event: PreparedEvent): void {
    if (this.o.max === 0 || this.closed) return;
    if (this.pending.length >= this.bufferMax) {
      this.pending.shift();
      if (this.dropped++ === 0) this.logger.warn({ buffered: this.pending.length }, 'event history: write buffer full, dropping the oldest unwritten events');
    }
    this.pending.push({ event, receivedAt: this.now() });
    this.scheduleWrite(WRITE_DELAY_MS);
  }

  async query(filter: StreamFilter, query: HistoryQuery, limit: number): Promise<PreparedEvent[]> {
    if (this.o.max === 0) return [];
    const window = await this.exclusive(() => this.snapshot());
    const after = Math.max(query.afterMicros ?? -Infinity, window.cutoff * 1000 - 1);
    if (query.tail && query.afterMicros === undefined) {
      // Newest first (the buffer, then the table), until `tail` matched.
      const tail = new TailCollector(filter, after, query.tail);
      for (let i = window.pending.length - 1; i >= 0 && !tail.full; i--) tail.offer(window.pending[i]);
      await this.scan(window, after, 'DESC', tail);
      return tail.result();
    }
    const collector = new HistoryCollector(filter, { ...query, afterMicros: after }, limit);
    await this.scan(window, after, 'ASC', collector);
    for (const event of window.pending) {
      if (collector.full) break;
      collector.offer(event);
    }
    return collector.result();
  }

  /** Events a query looks at now (the last `max` received within the retention), written or not. */
  async count(): Promise<number> {
    if (this.o.max === 0) return 0;
    const window = await this.exclusive(() => this.snapshot());
    const { rows } = await runStatement<{ n: number }>(this.ds, 'SELECT COUNT(*) AS n FROM event_history WHERE seq > ? AND seq <= ? AND received_at >= ?', [
      window.low,
      window.high,
      window.cutoff,
    ]);
    return Number(rows[0]?.n ?? 0) + window.pending.length;
  }

  async healthy(): Promise<boolean> {
    return !this.closed && this.ds.isInitialized && this.health.isHealthy();
  }

  /** Writes what waits (once), stops the timers and closes the database. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.writeTimer);
    clearInterval(this.pruneTimer);
    await this.exclusive(() => this.writePending());
    if (this.pending.length > 0) this.logger.warn({ lost: this.pending.length }, 'event history: events not written at close');
    this.pending = [];
    if (this.ds.isInitialized) await this.ds.destroy();
  }

  private scheduleWrite(delayMs: number): void {
    if (this.writeTimer || this.closed) return;
    this.writeTimer = setTimeout(() => {
      this.writeTimer = undefined;
      void this.exclusive(() => this.writePending());
    }, delayMs);
    this.writeTimer.unref();
  }

  /**
   * Writes the buffer a batch per transaction, each with its prune. A failure is logged, its batch
   * stays first in the buffer and the next attempt is scheduled; answers whether the buffer is empty.
   */
  private async writePending(): Promise<boolean> {
    while (this.pending.length > 0) {
      const batch = this.pending.slice(0, WRITE_BATCH);
      try {
        await runAtomically(this.ds, [insertStatement(batch), ...this.pruneStatements()]);
      } catch (err) {
        this.logger.error({ buffered: this.pending.length, error: (err as Error)?.message ?? String(err) }, 'event history: write failed, retrying');
        this.scheduleWrite(RETRY_DELAY_MS);
        return false;
      }
      // `record` may have dropped buffered events (the oldest first) while the write waited.
      const last = this.pending.indexOf(batch[batch.length - 1]);
      if (last >= 0) this.pending.splice(0, last + 1);
      if (this.dropped > 0) {
        this.logger.warn({ dropped: this.dropped }, 'event history: writing again; events dropped meanwhile');
        this.dropped = 0;
      }
    }
    return true;
  }

  private async pruneExpired(): Promise<void> {
    try {
      await runAtomically(this.ds, this.pruneStatements());
    } catch (err) {
      this.logger.warn({ error: (err as Error)?.message ?? String(err) }, 'event history: prune failed');
    }
  }

  private pruneStatements(): Statement[] {
    return [
      { sql: PRUNE_OVERFLOW, params: [this.o.max, PRUNE_BATCH] },
      { sql: PRUNE_EXPIRED, params: [PRUNE_BATCH, this.now() - this.o.retentionMs] },
    ];
  }

  /** Writes what waits, then fixes what a query reads: the table up to its last row, and the buffer (whatever could not be written). */
  private async snapshot(): Promise<Window> {
    await this.writePending();
    const { rows } = await runStatement<{ seq: number | null }>(this.ds, MAX_SEQ, []);
    const high = Number(rows[0]?.seq ?? 0);
    const cutoff = this.now() - this.o.retentionMs;
    const buffered = this.pending.slice(-this.o.max);
    const inTable = this.o.max - buffered.length;
    return {
      low: high - inTable,
      high,
      cutoff,
      pending: buffered.filter((r) => r.receivedAt >= cutoff).map((r) => r.event),
    };
  }

  /** Offers the window's rows newer than `after` (event time) in received order (ASC) or newest first (DESC), a page at a time, until `full`. */
  private async scan(window: Window, after: number, order: 'ASC' | 'DESC', into: { offer(event: PreparedEvent): void; readonly full: boolean }): Promise<void> {
    let low = window.low;
    let high = window.high;
    while (low < high && !into.full) {
      const { rows } = await runStatement<{ seq: number; event: string }>(
        this.ds,
        `SELECT seq, event FROM event_history WHERE seq > ? AND seq <= ? AND received_at >= ? AND time_micros > ? ORDER BY seq ${order} LIMIT ?`,
        [low, high, window.cutoff, after, READ_PAGE],
      );
      for (const row of rows) {
        const event = PreparedEvent.fromBytes(Buffer.from(row.event));
        if (event) into.offer(event);
        if (into.full) return;
      }
      if (rows.length < READ_PAGE) return;
      if (order === 'ASC') low = Number(rows[rows.length - 1].seq);
      else high = Number(rows[rows.length - 1].seq) - 1;
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }
}

function insertStatement(batch: readonly Recorded[]): Statement {
  return {
    sql: `INSERT INTO event_history (received_at, time_micros, event) VALUES ${batch.map(() => '(?, ?, ?)').join(', ')}`,
    params: batch.flatMap(({ event, receivedAt }) => [receivedAt, event.timeMicros, Buffer.from(event.bytes).toString('utf8')]),
  };
}
