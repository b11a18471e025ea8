import { type CallerIdentity, type EntityRef, Right } from '@lorawan/api';
import { Code, type ErrorDetails, isErrorDetails, StackError } from '@lorawan/errors';
import { ErrGatewayKeyRefused, ErrGatewayLinkRights, ErrIdentityServerUnavailable, ErrNoAuthProvided } from '../errors';
import type { GatewayLookupResult } from './gateway-lookup';

/** Asks the Identity Server for a credential's rights on an entity (`EntityAccess.Authorize`). */
export type Authorize = (authorization: string, entity: EntityRef) => Promise<CallerIdentity>;

/** The credential answers the IS gives for a bad key (unknown, wrong secret, malformed, expired, revoked): refusals, not outages. */
const REFUSALS = new Set<Code>([Code.Unauthenticated, Code.InvalidArgument, Code.PermissionDenied, Code.NotFound]);

/**
 * Whether a gateway may link (TTS `semtechws` `withForwardedAuth` and `AssertGatewayRights`):
 * with an `Authorization` header (`Bearer <key>`, or the bare key as TTS accepts it) the key must
 * hold RIGHT_GATEWAY_LINK on the gateway, as the Identity Server resolves it, whoever owns it (the
 * gateway's own key, or a user's or organization's with rights on it); without one, only a gateway
 * whose `require_authenticated_connection` is false. Resolves when it may, rejects with the
 * refusal (`no_auth_provided`, `unauthenticated`, `insufficient_rights`: 401, 401, 403) or
 * `identity_server_unavailable` when the IS could not answer. The key is never logged, nor put in
 * an error.
 */
export async function assertGatewayLink(
  gateway: Extract<GatewayLookupResult, { status: 'found' }>['gateway'],
  authorization: string | undefined,
  authorize: Authorize,
): Promise<void> {
  const uid = gateway.ids.gateway_id;
  const header = authorization?.trim();
  if (!header) {
    if (gateway.require_authenticated_connection) throw ErrNoAuthProvided.with({ uid });
    return;
  }
  // `Bearer <key>` in any case of the scheme, or the bare key (TTS prefixes it): the IS gets `Bearer <key>`.
  const bearer = `Bearer ${header.replace(/^bearer\s+/i, '')}`;
  let caller: CallerIdentity;
  try {
    caller = await authorize(bearer, { kind: 'gateway', id: uid });
  } catch (err) {
    const details: ErrorDetails | undefined = err instanceof StackError ? err.toDetails() : isErrorDetails(err) ? err : undefined;
    if (details && REFUSALS.has(details.code)) throw ErrGatewayKeyRefused.with({ uid }, details);
    throw ErrIdentityServerUnavailable.with();
  }
  if (!caller.rights.includes(Right.RIGHT_GATEWAY_LINK)) throw ErrGatewayLinkRights.with({ uid });
}
