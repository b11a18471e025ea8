import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { storageRetentionDeletes } from '@lorawan/observability';
import { STORED_UP_STORE, type StoredUpStore } from './stored-up.store';

/** The rows one DELETE takes at most (so a run never holds the table long). */
export const RETENTION_BATCH = 1000;
/** Batches of one run at most; the rest waits for the next run. */
const RETENTION_MAX_BATCHES = 100;

/**
 * The Storage Integration's retention (`AS_STORAGE_RETENTION_DAYS`): at start and every
 * `AS_STORAGE_RETENTION_INTERVAL_MS`, stored messages
 * received before now − retention are deleted in bounded batches (oldest first). Every AS replica
 * runs it; the deletes are idempotent, so replicas only share the work.
 */
@Injectable()
export class StorageRetentionService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('StorageIntegration');
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    @Inject(STORED_UP_STORE) private readonly store: Pick<StoredUpStore, 'deleteReceivedBefore'>,
    @Inject(STACK_CONFIG) private readonly config: Pick<StackConfig, 'as'>,
  ) {}

  onModuleInit(): void {
    const { retentionMs, retentionIntervalMs } = this.config.as.storage;
    if (retentionMs <= 0) return;
    void this.runOnce();
    this.timer = setInterval(() => void this.runOnce(), retentionIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One run: deletes what is older than the retention, a batch at a time; returns how many went. */
  runOnce(now = Date.now()): Promise<number> {
    this.running ??= this.deleteExpired(now).finally(() => (this.running = undefined));
    return this.running;
  }

  private async deleteExpired(now: number): Promise<number> {
    const retention = this.config.as.storage.retentionMs;
    if (retention <= 0) return 0;
    let total = 0;
    try {
      for (let i = 0; i < RETENTION_MAX_BATCHES; i++) {
        const deleted = await this.store.deleteReceivedBefore(now - retention, RETENTION_BATCH);
        total += deleted;
        if (deleted < RETENTION_BATCH) break;
      }
    } catch (err) {
      this.logger.warn({ error: (err as Error)?.message ?? String(err) }, 'stored messages past their retention not deleted; trying again next run');
    }
    if (total > 0) storageRetentionDeletes.inc(total);
    return total;
  }
}
