import type { EntityRef, Right } from './rights';

/**
 * Who is calling, as the Identity Server resolved the request's credentials for the gateway
 * (`EntityAccess.Authorize`'s answer). Components enforce rights from this (the gateway is not the
 * only line of defence). A class only to name the answer in the RPC table: it is never
 * instantiated, its fields are declared, not emitted.
 */
export class CallerIdentity {
  /**
   * `api-key`: an `NNSXS.` key of an application, gateway or user; `admin-key`: ADMIN_API_KEY,
   * the bootstrap admin user's key with `RIGHT_ALL`; `internal`: a component calling another.
   */
  declare kind: 'api-key' | 'admin-key' | 'internal';
  /** Identifier of the credential (the key ID, never the secret). */
  declare id: string;
  /** The entity the key belongs to (the admin user for the admin key). */
  declare owner?: EntityRef;
  /** The owner is an admin user: universal rights ∩ `ALL_ADMIN_RIGHTS` on every entity. */
  declare is_admin: boolean;
  /** The key's own rights, implications expanded (what it could ever do). */
  declare key_rights: Right[];
  /** Internal calls only: every right on every entity. */
  declare universal: boolean;
  /** The entity `rights` were resolved on: the request's entity of its RPC (see `RpcDefinition.entity`). */
  declare entity?: EntityRef;
  /** The caller's effective rights on `entity`, implications expanded. Empty: none at all. */
  declare rights: Right[];
  /**
   * RPCs about several entities at once (an event stream): the caller's rights on each, resolved
   * by the gateway like `rights` (devices under their application).
   */
  declare entity_rights?: Array<{ entity: EntityRef; rights: Right[] }>;
  /** When the API key expires (RFC 3339), if it does: whoever caches this identity must not use it from then on. */
  declare expires_at?: string;
}

/** Metadata sent with every RPC alongside the request message. */
export interface RpcContext {
  request_id: string;
  correlation_ids: string[];
  caller?: CallerIdentity;
}

/**
 * Broadcast (publish/subscribe, every gateway replica receives it) by the IS when a credential or a
 * membership changes: an API key updated or deleted, an entity deleted. Gateways drop the
 * identities they cached for that key or entity at once instead of waiting for the cache's TTL.
 */
export const ACCESS_INVALIDATION_SUBJECT = 'access.invalidate';

export interface AccessInvalidation {
  api_key_id?: string;
  /** Identities resolved on this entity, or held by its keys (a user's: also its rights through organizations). */
  entity?: EntityRef;
  /** Everything: an organization deleted, restored or purged changes the rights of its members on whatever it reaches. */
  all?: true;
}

/**
 * Whether an invalidation concerns a resolved caller: every one (`all`), its key, or an entity its
 * rights were resolved on (`entity`, each of an event stream's `entity_rights`) or that owns its key.
 */
export function invalidationAffects(msg: AccessInvalidation, caller: CallerIdentity): boolean {
  if (msg.all || (msg.api_key_id !== undefined && caller.id === msg.api_key_id)) return true;
  const entity = msg.entity;
  if (!entity) return false;
  return same(caller.entity, entity) || same(caller.owner, entity) || (caller.entity_rights ?? []).some((r) => same(r.entity, entity));
}

function same(a: EntityRef | undefined, b: EntityRef): boolean {
  return a !== undefined && a.kind === b.kind && a.id === b.id;
}
