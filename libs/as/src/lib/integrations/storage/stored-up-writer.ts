import { Logger } from '@nestjs/common';
import { storedUps } from '@lorawan/observability';
import type { StoredUpRow, StoredUpStore } from './stored-up.store';

export interface StoredUpWriterOptions {
  /** Rows waiting at most; beyond, new rows are dropped. */
  bufferMax: number;
  /** How long the first row of a batch waits for others. */
  flushMs: number;
  /** Rows of one INSERT at most. */
  batchMax: number;
  /** The wait before a failed batch is tried again (doubled per failure, up to 16×). */
  retryMs: number;
  /** Attempts of one batch before it is dropped. */
  maxAttempts: number;
}

export const DEFAULT_WRITER_OPTIONS: Omit<StoredUpWriterOptions, 'bufferMax'> = { flushMs: 5, batchMax: 500, retryMs: 250, maxAttempts: 8 };

/**
 * The Storage Integration's writes, off the message path: `add` puts a row in a bounded buffer and
 * returns at once; one batch at a time is written as one multi-row INSERT, `flushMs` after its
 * first row (rows that come while a batch is written make the next one). A failed batch is logged
 * and tried again after a backoff, ahead of newer rows, and dropped (logged, counted) after
 * `maxAttempts`; a full buffer drops new rows. Nothing here ever throws to the caller.
 */
export class StoredUpWriter {
  private readonly logger = new Logger('StorageIntegration');
  private buffer: StoredUpRow[] = [];
  private timer?: NodeJS.Timeout;
  private writing?: Promise<void>;
  private failures = 0;
  private closed = false;

  constructor(
    private readonly store: Pick<StoredUpStore, 'insert'>,
    private readonly options: StoredUpWriterOptions,
  ) {}

  /** False when the row was dropped (buffer full, or the writer closed). */
  add(row: StoredUpRow): boolean {
    if (this.closed || this.buffer.length >= this.options.bufferMax) {
      storedUps.inc({ outcome: 'dropped' });
      return false;
    }
    this.buffer.push(row);
    this.schedule(this.options.flushMs);
    return true;
  }

  /** Rows waiting (the batch being written included). */
  get pending(): number {
    return this.buffer.length;
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.writing || this.buffer.length === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.writing = this.writeBatch().finally(() => {
        this.writing = undefined;
        this.schedule(this.failures > 0 ? this.retryDelay() : this.options.flushMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  private retryDelay(): number {
    return this.options.retryMs * 2 ** Math.min(this.failures - 1, 4);
  }

  /** Writes the oldest rows; they leave the buffer only once written (or given up). */
  private async writeBatch(): Promise<void> {
    const batch = this.buffer.slice(0, this.options.batchMax);
    try {
      await this.store.insert(batch);
      this.buffer.splice(0, batch.length);
      storedUps.inc({ outcome: 'stored' }, batch.length);
      this.failures = 0;
    } catch (err) {
      this.failures++;
      const giveUp = this.failures >= this.options.maxAttempts;
      storedUps.inc({ outcome: giveUp ? 'dropped' : 'retried' }, batch.length);
      this.logger.warn(
        { rows: batch.length, attempt: this.failures, error: (err as Error)?.message ?? String(err) },
        giveUp ? 'stored messages dropped: their batch could not be written' : 'stored messages not written; trying again',
      );
      if (giveUp) {
        this.buffer.splice(0, batch.length);
        this.failures = 0;
      }
    }
  }

  /** Shutdown: writes what is buffered (each batch once more at most), then takes no more rows. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    // Each round writes rows or counts a failure, and a batch is dropped after maxAttempts: this ends.
    while (this.buffer.length > 0) await this.writeBatch();
  }
}
