import type { EntityRef, Right } from '@lorawan/api';

/** A user collaborating on an entity, with the rights granted to it (as stored, not implied). */
export interface Collaborator {
  user_id: string;
  rights: Right[];
}

/** Entities that have collaborators. */
export type CollaboratedKind = 'application' | 'gateway';

/**
 * Reads of the collaborators table. Collaborators are written with their entity, in the entity
 * store's transactions (an application and its first collaborator are created together, a purge
 * removes both).
 */
export interface CollaboratorStore {
  /** The user's stored rights on the entity; [] when it has none, or the entity is missing or soft-deleted. */
  rightsOf(userId: string, entity: EntityRef): Promise<Right[]>;
  /** The user's stored rights on each of the given entities it collaborates on, by entity ID. */
  rightsOn(userId: string, kind: CollaboratedKind, entityIds: readonly string[]): Promise<Map<string, Right[]>>;
}

export const COLLABORATOR_STORE = Symbol('COLLABORATOR_STORE');
