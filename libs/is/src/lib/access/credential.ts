import type { EntityRef, Right } from '@lorawan/api';
import type { UserEssentials } from '../identity.contracts';

/** A credential whose secret checked out: who holds it and what the key itself allows. */
export interface VerifiedCredential {
  /** `api-key`: an `NNSXS.` key; `admin-key`: ADMIN_API_KEY, a user key of the bootstrap admin with `RIGHT_ALL`. */
  kind: 'api-key' | 'admin-key';
  /** The key ID (`admin-api-key` for the admin key): never the secret. */
  id: string;
  /** The application, gateway or user the key belongs to. */
  owner: EntityRef;
  /** The key's rights, implications expanded. */
  keyRights: ReadonlySet<Right>;
  /** The owning user, for user keys and the admin key. */
  user?: UserEssentials;
  /** When the key expires (RFC 3339), if it does. */
  expiresAt?: string;
}

/** The ID the admin key (ADMIN_API_KEY) goes by in caller identities and `auth_info`. */
export const ADMIN_KEY_ID = 'admin-api-key';

/** Users in other states hold no rights (they may still authenticate). */
export const APPROVED = 'STATE_APPROVED';

export function sameEntity(a: EntityRef | undefined, b: EntityRef | undefined): boolean {
  return a !== undefined && b !== undefined && a.kind === b.kind && a.id === b.id;
}
