import { applicationIdOf, type RpcContext, type Right } from '@lorawan/api';
import { Code, defineError } from '@lorawan/errors';

export const ErrNoApplicationRights = defineError('pkg/auth/rights', 'no_application_rights', 'no rights for application `{uid}`', Code.PermissionDenied);
export const ErrInsufficientApplicationRights = defineError(
  'pkg/auth/rights',
  'insufficient_application_rights',
  'insufficient rights for application `{uid}`',
  Code.PermissionDenied,
);
export const ErrUnauthenticated = defineError('pkg/rpcmetadata', 'unauthenticated', 'the context is not authenticated', Code.Unauthenticated);

/**
 * Components enforce rights themselves from the caller identity the gateway attached: the
 * gateway is not the only line of defence.
 */
export function requireApplicationRights(ctx: RpcContext, request: object, rights: readonly Right[]): void {
  const caller = ctx.caller;
  if (!caller) throw ErrUnauthenticated.with();
  if (caller.universal || rights.length === 0) return;
  const uid = applicationIdOf(request) ?? '';
  if (caller.rights.length === 0) throw ErrNoApplicationRights.with({ uid });
  const missing = rights.filter((r) => !caller.rights.includes(r));
  if (missing.length > 0) throw ErrInsufficientApplicationRights.with({ uid, missing });
}
