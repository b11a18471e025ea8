import type { CLIENT_ORDERS } from '@lorawan/api';
import type { Collaborator } from '../collaborators/collaborator.model';
import type { EntityListQuery } from '../common/entity-list';
import type { CollaboratedEntity, CreateResult, EntityStore } from '../registry/entity.model';

/**
 * The Identity Server's view of an OAuth client: the contract's `Client` as stored, zero values
 * absent, without its secret (the store keeps only the secret's hash, beside the client).
 */
export interface IsClient extends CollaboratedEntity<'client'> {
  redirect_uris?: string[];
  logout_redirect_uris?: string[];
  /** `State` name. */
  state?: string;
  state_description?: string;
  skip_authorization?: boolean;
  endorsed?: boolean;
  /** `GrantType` names. */
  grants?: string[];
  /** `Right` names: what the client may ask a user for. */
  rights?: string[];
}

export type ClientOrder = (typeof CLIENT_ORDERS)[number];

export type ClientCreateResult = CreateResult;

/** Storage of OAuth clients; TypeORM on MySQL and SQLite, held to `client.store.conformance.ts`. */
export interface ClientStore extends EntityStore<IsClient> {
  /** Stores a new client, its secret's hash and its first collaborator, all or nothing. Soft-deleted clients keep their IDs taken. */
  create(client: IsClient, secretHash: string | undefined, collaborator: Collaborator): Promise<ClientCreateResult>;
  /** The hash of the live client's secret (`PBKDF2$…`), if it has one. */
  secretHash(clientId: string): Promise<string | undefined>;
  list(query: EntityListQuery<ClientOrder>): Promise<{ clients: IsClient[]; total: number }>;
  /**
   * Replaces the live client if it still has `expectedUpdatedAt`; false when it changed meanwhile or
   * is gone. `secretHash`: a new hash, null to remove the secret, undefined to keep it.
   */
  replace(client: IsClient, expectedUpdatedAt: string, secretHash?: string | null): Promise<boolean>;
  /** Soft-deletes the live client; false when there is none. */
  softDelete(clientId: string, deletedAt: string): Promise<boolean>;
  /** Un-deletes a soft-deleted client; false when there is none. */
  restore(clientId: string): Promise<boolean>;
  /** Removes the client (live or soft-deleted) and its collaborators; false when there is none. */
  purge(clientId: string): Promise<boolean>;
}

export const CLIENT_STORE = Symbol('CLIENT_STORE');
