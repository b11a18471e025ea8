import { Right, type RpcContext } from '@lorawan/api';

/**
 * Whether the caller may read an integration's secrets (a webhook's downlink key and headers, a
 * Pub/Sub's broker password and TLS key): only callers who could Set it (basic settings), never
 * keys that only read traffic.
 */
export function mayReadSettingsSecrets(ctx: RpcContext): boolean {
  const caller = ctx.caller;
  if (!caller) return false;
  return caller.universal || caller.rights.includes(Right.RIGHT_APPLICATION_SETTINGS_BASIC) || caller.rights.includes(Right.RIGHT_APPLICATION_ALL);
}
