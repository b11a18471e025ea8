import type { LoggerService } from '@nestjs/common';

/** At most one give-up line per webhook per this long. */
export const GIVE_UP_LOG_INTERVAL_MS = 10_000;

interface Pending {
  count: number;
  last: string;
  timer?: NodeJS.Timeout;
}

/**
 * Logs given-up deliveries without flooding: a webhook's first give-up is logged at once, the
 * following ones within GIVE_UP_LOG_INTERVAL_MS are counted and logged as one line (with the last
 * reason) when the interval ends. A dead endpoint under heavy traffic gives one line per webhook
 * per interval, not one per message.
 */
export class GiveUpLog {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly logger: Pick<LoggerService, 'warn'>,
    private readonly intervalMs = GIVE_UP_LOG_INTERVAL_MS,
  ) {}

  record(webhook: string, reason: string): void {
    const entry = this.pending.get(webhook);
    if (entry) {
      entry.count++;
      entry.last = reason;
      return;
    }
    this.logger.warn(`webhook ${webhook}: delivery given up: ${reason}`);
    const fresh: Pending = { count: 0, last: reason };
    fresh.timer = setTimeout(() => this.flush(webhook), this.intervalMs);
    fresh.timer.unref();
    this.pending.set(webhook, fresh);
  }

  /** Logs what is counted and forgets every webhook (shutdown). */
  close(): void {
    for (const webhook of [...this.pending.keys()]) this.flush(webhook);
  }

  private flush(webhook: string): void {
    const entry = this.pending.get(webhook);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.pending.delete(webhook);
    if (entry.count > 0)
      this.logger.warn(`webhook ${webhook}: ${entry.count} more deliveries given up in ${this.intervalMs / 1000} s; the last: ${entry.last}`);
  }
}
