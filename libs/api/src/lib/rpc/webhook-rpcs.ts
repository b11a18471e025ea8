import type { RpcDefinition } from './rpc-table';

/** The AS's ApplicationWebhookRegistry (`/as/webhooks…`, `/as/webhook-formats`): filled by the webhook registry. */
export function webhookRpcs(): Record<string, RpcDefinition> {
  return {};
}
