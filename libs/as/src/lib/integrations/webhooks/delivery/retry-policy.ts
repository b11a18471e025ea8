import type { WebhookDeliveryConfig } from '@lorawan/config';

/**
 * Backoff before retry `n` (after the n-th attempt failed): exponential with full-half jitter, a
 * random delay in [d/2, d] with d = min(retryMaxMs, retryBaseMs × 2^(n−1)), so retries of many
 * jobs to one endpoint spread out instead of arriving together.
 */
export function retryBackoffMs(n: number, config: Pick<WebhookDeliveryConfig, 'retryBaseMs' | 'retryMaxMs'>, random: () => number = Math.random): number {
  const d = Math.min(config.retryMaxMs, config.retryBaseMs * 2 ** Math.max(0, n - 1));
  return Math.round(d / 2 + random() * (d / 2));
}

/** Response statuses worth another attempt: server errors, request timeout, too early, too many requests. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 425 || status === 429;
}
