import type { EntityRef, Right } from '@lorawan/api';

/** A user collaborating on an entity, with the rights granted to it (as stored, not implied). */
export interface Collaborator {
  user_id: string;
  rights: Right[];
}

/** Entities that have collaborators. */
export type CollaboratedKind = 'application' | 'gateway' | 'client';

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
  /** The user's stored rights on the entity; undefined when it is no collaborator. */
  current?: Right[];
  /** Every collaborator of the entity, the user included. */
  collaborators: Collaborator[];
  /** The user IDs of the entity's administrative and technical contacts. */
  contacts: string[];
}

/**
 * How a change went: `changed` with the rights the user held before (undefined: it was no
 * collaborator); or nothing written because the entity or the user does not exist (live).
 */
export type CollaboratorChange = { outcome: 'changed'; previous?: Right[] } | { outcome: 'entity_not_found' } | { outcome: 'user_not_found' };

/**
 * The collaborators table. Collaborators are created with their entity, in the entity store's
 * transactions (an application and its first collaborator are created together, a purge removes
 * both); afterwards `change` sets or removes one.
 */
export interface CollaboratorStore {
  /** The user's stored rights on the entity; [] when it has none, or the entity is missing or soft-deleted. */
  rightsOf(userId: string, entity: EntityRef): Promise<Right[]>;
  /** The user's stored rights on each of the given entities it collaborates on, by entity ID. */
  rightsOn(userId: string, kind: CollaboratedKind, entityIds: readonly string[]): Promise<Map<string, Right[]>>;
  /** The collaborators of a live entity in the given order (ties by user ID), a page of them, with the total. */
  list(entity: CollaboratedRef, page: CollaboratorPage): Promise<{ collaborators: Collaborator[]; total: number }>;
  /**
   * Sets (non-empty) or removes (`[]`) the user's rights on the entity as `decide` answers, given
   * the state read in the same transaction; nothing is written when `decide` throws (the error
   * propagates). Concurrent changes of the same entity's
   * collaborators run one after the other, so a rule over all of them (one must keep `*_ALL`) holds.
   */
  change(entity: CollaboratedRef, userId: string, decide: (state: CollaboratorState) => Right[], now: string): Promise<CollaboratorChange>;
}

export const COLLABORATOR_STORE = Symbol('COLLABORATOR_STORE');
