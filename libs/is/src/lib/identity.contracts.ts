import type { EntityRef, Right } from '@lorawan/api';

/**
 * What the IS's access side (API keys, rights resolution: `access/`) needs from its entity side
 * (users, applications, gateways, collaborators: `entities/`), and back. Both live in the IS and
 * share its database; these interfaces keep the two halves apart.
 */

export interface UserEssentials {
  user_id: string;
  admin: boolean;
  /** `State` name, e.g. `STATE_APPROVED`. */
  state: string;
}

export interface IdentityDirectory {
  /** The user, or undefined when it does not exist or is (soft-)deleted. */
  user(userId: string): Promise<UserEssentials | undefined>;
  /** The entity exists and is not (soft-)deleted. */
  exists(entity: EntityRef): Promise<boolean>;
  /**
   * The rights the account (user or organization) holds on the entity as a collaborator: its own
   * grant as stored and, for a user, what it holds through its organizations (TTS membership
   * chains, see `CollaboratorStore.membershipRights`); [] when none or the entity is deleted.
   */
  collaboratorRights(accountId: string, entity: EntityRef): Promise<Right[]>;
}
export const IDENTITY_DIRECTORY = Symbol('IDENTITY_DIRECTORY');

export interface ApiKeyCleanup {
  /** Removes every API key of the entity (its purge). */
  deleteKeysOf(entity: EntityRef): Promise<void>;
}
export const API_KEY_CLEANUP = Symbol('API_KEY_CLEANUP');
