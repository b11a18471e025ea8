import type { EntityRef, Right } from '@lorawan/api';
import type { AccountRef } from '../common/accounts';

/**
 * An account collaborating on an entity, with the rights granted to it (as stored, not implied): a
 * user or an organization on an application, gateway or client; a user on an organization (its
 * members).
 */
export interface Collaborator {
  ids: AccountRef;
  rights: Right[];
}

/** Entities that have collaborators (an organization's are its members). */
export type CollaboratedKind = 'application' | 'gateway' | 'client' | 'organization';

/** An entity that has collaborators. */
export type CollaboratedRef = EntityRef & { kind: CollaboratedKind };

export type CollaboratorOrderField = 'id' | 'rights';

export interface CollaboratorPage {
  order: CollaboratorOrderField;
  descending: boolean;
  limit: number;
  offset: number;
}

/** What a change of one collaborator is decided on, read in the transaction that writes it. */
export interface CollaboratorState {
  /** The account's stored rights on the entity; undefined when it is no collaborator. */
  current?: Right[];
  /** Every collaborator of the entity, the account included. */
  collaborators: Collaborator[];
  /** The account IDs of the entity's administrative and technical contacts. */
  contacts: string[];
  /**
   * When the change names an organization and an `actor`: the actor's own grant on that
   * organization as stored (its membership; [] for none), read and locked with the rest, so that a
   * decision on the actor's rights there (consent) cannot race a change of them.
   */
  actorGrant?: Right[];
}

export interface CollaboratorChangeOptions {
  /** The account acting (the caller's user, or the organization of an organization key): see `CollaboratorState.actorGrant`. */
  actor?: string;
}

/**
 * How a change went: `changed` with the rights the account held before (undefined: it was no
 * collaborator); or nothing written because the entity or the account does not exist (live).
 */
export type CollaboratorChange = { outcome: 'changed'; previous?: Right[] } | { outcome: 'entity_not_found' } | { outcome: 'account_not_found' };

/**
 * The collaborators table. Collaborators are created with their entity, in the entity store's
 * transactions (an application and its first collaborator are created together, a purge removes
 * both); afterwards `change` sets or removes one.
 */
export interface CollaboratorStore {
  /**
   * The account's own stored rights on the entity (user and organization IDs are one namespace); []
   * when it has none, or the entity is missing or soft-deleted.
   */
  rightsOf(accountId: string, entity: EntityRef): Promise<Right[]>;
  /**
   * What the account holds on the entity as TTS's membership chains give it (`MembershipChain`):
   * its own grant as stored, and through each live organization it is a member of, the
   * organization's grant on the entity intersected with the member's grant on the organization
   * (both implied). Only the own grant: as stored; with chains: their union, sorted. [] for none.
   */
  membershipRights(accountId: string, entity: EntityRef): Promise<Right[]>;
  /** `membershipRights` on each of the given entities of a kind the account reaches (soft-deleted ones too, for Lists of them), by entity ID. */
  rightsOn(accountId: string, kind: CollaboratedKind, entityIds: readonly string[]): Promise<Map<string, Right[]>>;
  /** The collaborators of a live entity in the given order (ties by account ID), a page of them, with the total. */
  list(entity: CollaboratedRef, page: CollaboratorPage): Promise<{ collaborators: Collaborator[]; total: number }>;
  /**
   * Sets (non-empty) or removes (`[]`) the account's rights on the entity as `decide` answers, given
   * the state read in the same transaction; nothing is written when `decide` throws (the error
   * propagates). Concurrent changes of the same entity's collaborators run one after the other, so
   * a rule over all of them (one must keep `*_ALL`) holds. With an `actor`, an organization named as
   * the account is changed on the actor's grant on it read in the same transaction.
   */
  change(
    entity: CollaboratedRef,
    account: AccountRef,
    decide: (state: CollaboratorState) => Right[],
    now: string,
    options?: CollaboratorChangeOptions,
  ): Promise<CollaboratorChange>;
}

export const COLLABORATOR_STORE = Symbol('COLLABORATOR_STORE');
