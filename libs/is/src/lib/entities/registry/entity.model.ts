import type { EntityKind } from '@lorawan/api';
import type { Contact } from '../common/contacts';
import type { Scope } from '../common/entity-list';

/** `application_id`, `gateway_id`, …: the field that names an entity of the kind. */
export type IdKey<K extends EntityKind> = `${K}_id`;
export type IdsOf<K extends EntityKind> = { [P in IdKey<K>]: string };

/** An entity as the IS stores it: the contract's message, zero values absent. */
export interface StoredEntity<K extends EntityKind> {
  ids: IdsOf<K>;
  created_at: string;
  updated_at: string;
  deleted_at?: string;
}

/** An entity with a name, a description and attributes (every kind). */
export interface DescribedEntity<K extends EntityKind> extends StoredEntity<K> {
  name?: string;
  description?: string;
  attributes?: Record<string, string>;
}

/** An entity with collaborators, and contacts among them. */
export interface CollaboratedEntity<K extends EntityKind> extends DescribedEntity<K> {
  administrative_contact?: Contact;
  technical_contact?: Contact;
}

/** What every entity store answers (TypeORM on MySQL and SQLite: `TypeOrmEntityStore`). */
export interface EntityStore<M> {
  get(id: string, scope?: Scope): Promise<M | undefined>;
  /** Whether a live (not deleted) entity has the ID. */
  exists(id: string): Promise<boolean>;
}

/** A Create the store refused because the ID is taken (soft-deleted entities keep theirs; users and organizations share theirs). */
export type IdConflict = { ok: false; conflict: 'id' };
export type CreateResult = { ok: true } | IdConflict;
