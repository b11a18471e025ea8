import type { Logger } from '@nestjs/common';
import type { ApplicationWebhook } from '@lorawan/api';
import type { WebhookStore } from '../webhook.store';
import type { DeliveryErrorDetails } from './delivery.errors';
import { webhookKey } from './webhook-job';

type HealthStatus = Record<string, unknown>;
interface Known {
  healthy: boolean;
  failedAttempts: number;
}

/**
 * Keeps each webhook's `health_status` (wire contract §8.1): every failed attempt writes
 * `unhealthy` with the failure count (continued from what this replica last knew, else from the
 * webhook as it was when the message was published), and the first success after that writes
 * `healthy` once. Writes are never awaited by delivery: one per webhook at a time, later ones
 * collapse into the latest, and a failing write is logged and forgotten.
 */
export class WebhookHealthRecorder {
  private readonly known = new Map<string, Known>();
  private readonly writing = new Map<string, { next?: HealthStatus }>();

  constructor(
    private readonly store: WebhookStore,
    private readonly logger: Logger,
  ) {}

  failed(webhook: ApplicationWebhook, details: DeliveryErrorDetails, now = new Date()): void {
    const key = webhookKey(webhook.ids);
    const failedAttempts = (this.known.get(key) ?? fromSnapshot(webhook.health_status)).failedAttempts + 1;
    this.known.set(key, { healthy: false, failedAttempts });
    this.write(webhook, {
      unhealthy: { failed_attempts: String(failedAttempts), last_failed_attempt_at: now.toISOString(), last_failed_attempt_details: details },
    });
  }

  succeeded(webhook: ApplicationWebhook): void {
    const key = webhookKey(webhook.ids);
    const before = this.known.get(key) ?? fromSnapshot(webhook.health_status);
    this.known.set(key, { healthy: true, failedAttempts: 0 });
    if (!before.healthy) this.write(webhook, { healthy: {} });
  }

  /** Resolves once no write is pending (shutdown, tests). */
  async flush(): Promise<void> {
    while (this.writing.size > 0) await new Promise((res) => setTimeout(res, 10));
  }

  private write(webhook: ApplicationWebhook, status: HealthStatus): void {
    const key = webhookKey(webhook.ids);
    const pending = this.writing.get(key);
    if (pending) {
      pending.next = status;
      return;
    }
    const state: { next?: HealthStatus } = {};
    this.writing.set(key, state);
    void (async () => {
      let current: HealthStatus | undefined = status;
      while (current) {
        try {
          await this.store.setHealthStatus(webhook.ids.application_ids.application_id, webhook.ids.webhook_id, current);
        } catch (err) {
          this.logger.warn(`webhook ${key}: health status not stored: ${(err as Error).message}`);
        }
        current = state.next;
        state.next = undefined;
      }
      this.writing.delete(key);
    })();
  }
}

function fromSnapshot(status: HealthStatus | undefined): Known {
  const unhealthy = status?.unhealthy as { failed_attempts?: string | number } | undefined;
  if (!unhealthy || typeof unhealthy !== 'object') return { healthy: true, failedAttempts: 0 };
  const n = Number(unhealthy.failed_attempts ?? 0);
  return { healthy: false, failedAttempts: Number.isFinite(n) && n > 0 ? Math.floor(n) : 0 };
}
