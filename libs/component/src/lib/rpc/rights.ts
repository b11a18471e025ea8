import { batchEntityIds, type CallerIdentity, type EntityKind, requiredRights, rightsTarget, type RpcContext, type RpcDefinition } from '@lorawan/api';
import { Code, defineError, type ErrorDefinition } from '@lorawan/errors';

const noRights = (kind: string) => defineError('pkg/auth/rights', `no_${kind}_rights`, `no rights for ${kind} \`{uid}\``, Code.PermissionDenied);
const insufficientRights = (kind: string) =>
  defineError('pkg/auth/rights', `insufficient_${kind}_rights`, `insufficient rights for ${kind} \`{uid}\``, Code.PermissionDenied);

export const ErrNoApplicationRights = noRights('application');
export const ErrInsufficientApplicationRights = insufficientRights('application');
export const ErrNoGatewayRights = noRights('gateway');
export const ErrInsufficientGatewayRights = insufficientRights('gateway');
export const ErrNoUserRights = noRights('user');
export const ErrInsufficientUserRights = insufficientRights('user');
export const ErrNoOrganizationRights = noRights('organization');
export const ErrInsufficientOrganizationRights = insufficientRights('organization');
export const ErrNoClientRights = noRights('client');
export const ErrInsufficientClientRights = insufficientRights('client');
export const ErrNoAdmin = defineError('pkg/auth/rights', 'no_admin', 'no admin rights', Code.PermissionDenied);
export const ErrUnauthenticated = defineError('pkg/rpcmetadata', 'unauthenticated', 'the context is not authenticated', Code.Unauthenticated);

const NO_RIGHTS: Record<EntityKind, ErrorDefinition> = {
  application: ErrNoApplicationRights,
  gateway: ErrNoGatewayRights,
  user: ErrNoUserRights,
  organization: ErrNoOrganizationRights,
  client: ErrNoClientRights,
};
const INSUFFICIENT_RIGHTS: Record<EntityKind, ErrorDefinition> = {
  application: ErrInsufficientApplicationRights,
  gateway: ErrInsufficientGatewayRights,
  user: ErrInsufficientUserRights,
  organization: ErrInsufficientOrganizationRights,
  client: ErrInsufficientClientRights,
};

/** `no_<kind>_rights` / `insufficient_<kind>_rights` for an entity kind. */
export function rightsErrors(kind: EntityKind): { none: ErrorDefinition; insufficient: ErrorDefinition } {
  return { none: NO_RIGHTS[kind], insufficient: INSUFFICIENT_RIGHTS[kind] };
}

/**
 * Components enforce rights themselves from the caller identity the gateway attached (the gateway
 * is not the only line of defence): the caller needs some right on the RPC's entity and every right
 * the RPC (and the request's field mask) calls for. Rights resolved for another entity than the
 * request's count as none.
 */
export function requireRights(ctx: RpcContext, rpc: RpcDefinition, request: object): void {
  if (rpc.unauthenticated || rpc.public) return;
  const caller = ctx.caller;
  if (!caller) throw ErrUnauthenticated.with();
  if (caller.universal) return;
  if (rpc.adminOnly && !caller.is_admin) throw ErrNoAdmin.with();
  if (rpc.entities) return requireBatchRights(caller, rpc, request);
  const entity = rightsTarget(rpc, request);
  if (!entity) return;
  const uid = entity.id;
  if (uid === undefined) {
    if (entity.optional) return;
    throw NO_RIGHTS[entity.kind].with({ uid: '' });
  }
  const held = caller.entity?.kind === entity.kind && caller.entity.id === uid ? caller.rights : [];
  if (held.length === 0) throw NO_RIGHTS[entity.kind].with({ uid });
  const missing = requiredRights(rpc, request).filter((r) => !held.includes(r));
  if (missing.length > 0) throw INSUFFICIENT_RIGHTS[entity.kind].with({ uid, missing });
}

/** A batch (`RpcDefinition.entities`): the RPC's rights on each entity the request lists, as the gateway resolved them into `entity_rights`. */
function requireBatchRights(caller: CallerIdentity, rpc: RpcDefinition, request: object): void {
  const { kind } = rpc.entities as NonNullable<RpcDefinition['entities']>;
  const needed = requiredRights(rpc, request);
  for (const uid of batchEntityIds(rpc, request)) {
    const held = caller.entity_rights?.find((e) => e.entity.kind === kind && e.entity.id === uid)?.rights ?? [];
    if (held.length === 0) throw NO_RIGHTS[kind].with({ uid });
    const missing = needed.filter((r) => !held.includes(r));
    if (missing.length > 0) throw INSUFFICIENT_RIGHTS[kind].with({ uid, missing });
  }
}
