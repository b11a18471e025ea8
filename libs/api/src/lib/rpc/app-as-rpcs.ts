import type { RpcDefinition } from './rpc-table';

/** The AS's AppAs downlink queue and the webhook-scoped push/replace: filled by the downlink queue. */
export function appAsRpcs(): Record<string, RpcDefinition> {
  return {};
}
