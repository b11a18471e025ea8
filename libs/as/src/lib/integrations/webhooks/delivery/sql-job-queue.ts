import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { readThenWrite, retryingDeadlocks, runAtomically, runStatement, type TransactionOptions } from '@lorawan/persistence';
import { ErrQueueFull } from './delivery.errors';
import { DEFAULT_QUEUE_MAX_JOBS, type JobMessage, type WebhookJob, type WebhookJobQueue } from './webhook-job';

/** The queue's MySQL transactions: no gap locks, so inserts of new jobs never deadlock with claims (see `TransactionOptions`). */
const QUEUE_TRANSACTIONS: TransactionOptions = { isolation: 'READ COMMITTED' };

/** After a failed read of the due jobs (the database away or busy), the next try comes this much later. */
const PUMP_RETRY_MS = 1000;

export interface SqlJobQueueOptions {
  /** Messages handed out and not settled yet, at most. */
  maxInFlight: number;
  maxJobs?: number;
}

interface JobRow {
  id: number | string;
  job: string;
}

/** A row of `SELECT id, job` as the driver gives it: the id a number (or a string: MySQL's BIGINT), the job its JSON text. */
function jobRow(row: Record<string, unknown>): JobRow {
  return { id: typeof row.id === 'number' ? row.id : String(row.id), job: typeof row.job === 'string' ? row.job : String(row.job) };
}

/**
 * Embedded mode: the delivery queue in the AS's own database (table `webhook_jobs`), with the
 * JetStream queue's behaviour (in-flight bound, nak with a delay, ack) so the worker cannot tell
 * them apart, and jobs that survive a restart of the process. `enqueue` resolves once the jobs are
 * committed (all of a call in one transaction); a job is handed out oldest first among those due
 * (`not_before`: when it was queued, or when its retry or nak delay ends), marked `claimed` while
 * the worker has it, deleted on `ack`, and given its next `not_before` on `nak`. The queue waits
 * for work without polling: it reads the due jobs when jobs are queued or settled, and when the
 * earliest waiting job falls due (one timer). The process is the only user of its database: on
 * open, jobs claimed by a process that is gone are pending again, so a job handed out but not
 * settled when the process died is delivered again (at least once). It holds at most `maxJobs`:
 * while an endpoint is down for long under heavy traffic, new messages are refused (`queue_full`,
 * ResourceExhausted) rather than the disk filling up. Settlements after `close` are not stored
 * (the jobs are handed out again after the restart), as a process that died would not.
 */
export class SqlJobQueue implements WebhookJobQueue {
  private readonly logger = new Logger('WebhookQueue');
  private readonly maxInFlight: number;
  private readonly maxJobs: number;
  private handler?: (message: JobMessage) => void;
  private unsettled = 0;
  private pumpScheduled = false;
  private pumping = false;
  private pumpAgain = false;
  /** The reading of due jobs under way (awaited by `close`, so that no claim outlives the queue). */
  private pumpRun: Promise<void> = Promise.resolve();
  private wakeTimer?: NodeJS.Timeout;
  private closed = false;
  /** Settlements being written, awaited by `close`. */
  private readonly writes = new Set<Promise<void>>();

  private constructor(
    private readonly dataSource: DataSource,
    options: SqlJobQueueOptions,
    /** Jobs stored (queued, handed out, or waiting out a delay), counted at open and kept by this process. */
    private stored: number,
  ) {
    this.maxInFlight = options.maxInFlight;
    this.maxJobs = options.maxJobs ?? DEFAULT_QUEUE_MAX_JOBS;
  }

  /** The queue on a migrated AS database: what a process that is gone had handed out is pending again. */
  static async open(dataSource: DataSource, options: SqlJobQueueOptions): Promise<SqlJobQueue> {
    await runStatement(dataSource, 'UPDATE webhook_jobs SET claimed = 0 WHERE claimed = 1', []);
    const { rows } = await runStatement<{ n: number | string }>(dataSource, 'SELECT COUNT(*) AS n FROM webhook_jobs', []);
    return new SqlJobQueue(dataSource, options, Number(rows[0].n));
  }

  async enqueue(jobs: WebhookJob[]): Promise<void> {
    if (jobs.length === 0) return;
    if (this.stored + jobs.length > this.maxJobs) throw ErrQueueFull.with({ max_jobs: this.maxJobs });
    // Counted before the commit, so concurrent calls cannot pass the bound together.
    this.stored += jobs.length;
    const now = Date.now();
    try {
      await runAtomically(
        this.dataSource,
        jobs.map((job) => ({
          sql: 'INSERT INTO webhook_jobs (not_before, claimed, job) VALUES (?, 0, ?)',
          params: [job.not_before ?? now, JSON.stringify(job)],
        })),
        QUEUE_TRANSACTIONS,
      );
    } catch (err) {
      this.stored -= jobs.length;
      throw err;
    }
    this.schedulePump();
  }

  start(handler: (message: JobMessage) => void): void {
    this.handler = handler;
    this.schedulePump();
  }

  async stop(): Promise<void> {
    this.handler = undefined;
  }

  async close(): Promise<void> {
    this.handler = undefined;
    this.closed = true;
    clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    await this.pumpRun;
    await Promise.all(this.writes);
  }

  /** Jobs not done yet: queued, handed out, or waiting out a delay. */
  get size(): number {
    return this.stored;
  }

  async healthy(): Promise<boolean> {
    return this.dataSource.isInitialized;
  }

  async depth(): Promise<number> {
    return this.stored;
  }

  private schedulePump(): void {
    if (this.pumpScheduled || !this.handler) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      void this.pump();
    });
  }

  /** One reader of the due jobs at a time; a wake-up during a read makes it read again. */
  private pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumpRun;
    }
    this.pumping = true;
    this.pumpRun = this.readDueJobs();
    return this.pumpRun;
  }

  private async readDueJobs(): Promise<void> {
    try {
      do {
        this.pumpAgain = false;
        await this.handOut();
      } while (this.pumpAgain);
    } catch (err) {
      this.logger.warn(`webhook jobs not read, trying again in ${PUMP_RETRY_MS} ms: ${(err as Error).message}`);
      this.wakeAt(Date.now() + PUMP_RETRY_MS);
    } finally {
      this.pumping = false;
    }
  }

  /**
   * Claims the due jobs there is room for, oldest first, and hands them out; sets the timer for
   * the earliest job that is not due yet. Jobs claimed while the handler went away (or the queue
   * closed) are released.
   */
  private async handOut(): Promise<void> {
    const room = this.maxInFlight - this.unsettled;
    if (!this.handler || this.closed || room <= 0) return;
    const now = Date.now();
    const { due, next } = await readThenWrite(
      this.dataSource,
      [
        {
          sql: 'SELECT id, job FROM webhook_jobs WHERE claimed = 0 AND not_before <= ? ORDER BY not_before, id LIMIT ?',
          params: [now, room],
          lock: 'skip-locked',
        },
        { sql: 'SELECT MIN(not_before) AS next FROM webhook_jobs WHERE claimed = 0 AND not_before > ?', params: [now] },
      ],
      ([rows, [min]]) => {
        const due = rows.map(jobRow);
        const next = min?.next === null || min?.next === undefined ? undefined : Number(min.next);
        return {
          result: { due, next },
          writes: due.length > 0 ? [{ sql: `UPDATE webhook_jobs SET claimed = 1 WHERE id IN (${placeholders(due)})`, params: ids(due) }] : [],
        };
      },
      QUEUE_TRANSACTIONS,
    );
    this.wakeAt(next);
    const left: JobRow[] = [];
    for (const row of due) {
      if (!this.handler || this.closed || this.unsettled >= this.maxInFlight) {
        left.push(row);
        continue;
      }
      this.unsettled++;
      this.handler(this.message(Number(row.id), JSON.parse(row.job) as WebhookJob));
    }
    if (left.length > 0) await runStatement(this.dataSource, `UPDATE webhook_jobs SET claimed = 0 WHERE id IN (${placeholders(left)})`, ids(left));
  }

  /** The timer for the earliest waiting job (replacing the previous one); none for undefined. */
  private wakeAt(at: number | undefined): void {
    clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    if (at === undefined || this.closed) return;
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = undefined;
        this.schedulePump();
      },
      Math.max(0, at - Date.now()),
    );
  }

  private message(id: number, job: WebhookJob): JobMessage {
    let settled = false;
    const settle = (what: string, sql: string, params: number[], done?: (affected: number) => void) => {
      if (settled) return;
      settled = true;
      this.unsettled--;
      this.schedulePump();
      if (this.closed) return;
      const write = retryingDeadlocks(() => runStatement(this.dataSource, sql, params)).then(
        ({ affected }) => {
          done?.(affected);
          this.schedulePump();
        },
        (err: Error) => this.logger.warn(`webhook job ${id}: ${what} not stored, it is delivered again after a restart: ${err.message}`),
      );
      this.writes.add(write);
      void write.finally(() => this.writes.delete(write));
    };
    return {
      job,
      ack: () =>
        settle('ack', 'DELETE FROM webhook_jobs WHERE id = ?', [id], (affected) => {
          this.stored -= affected;
        }),
      nak: (delayMs) => settle('nak', 'UPDATE webhook_jobs SET claimed = 0, not_before = ? WHERE id = ?', [Date.now() + Math.max(0, delayMs), id]),
      working: () => undefined,
    };
  }
}

function placeholders(rows: readonly JobRow[]): string {
  return rows.map(() => '?').join(', ');
}

function ids(rows: readonly JobRow[]): number[] {
  return rows.map((row) => Number(row.id));
}
