import type { APPLICATION_ORDERS } from '@lorawan/api';
import type { Collaborator } from '../collaborators/collaborator.model';
import type { EntityListQuery } from '../common/entity-list';
import type { CollaboratedEntity, CreateResult, EntityStore } from '../registry/entity.model';

/** The Identity Server's view of an application: the contract's `Application` as stored, zero values absent. */
export interface IsApplication extends CollaboratedEntity<'application'> {
  network_server_address?: string;
  application_server_address?: string;
  join_server_address?: string;
}

export type ApplicationOrder = (typeof APPLICATION_ORDERS)[number];

export type ApplicationCreateResult = CreateResult;

/** Why a delete or purge did not happen: no such application, or it still has end devices. */
export type RemovalResult = { ok: true } | { ok: false; reason: 'not_found' } | { ok: false; reason: 'has_devices'; count: number };

/** Storage of applications; TypeORM on MySQL and SQLite, held to `identity.store.conformance.ts`. */
export interface ApplicationStore extends EntityStore<IsApplication> {
  /** Stores a new application and its first collaborator, both or neither. Soft-deleted applications keep their IDs taken. */
  create(application: IsApplication, collaborator: Collaborator): Promise<ApplicationCreateResult>;
  list(query: EntityListQuery<ApplicationOrder>): Promise<{ applications: IsApplication[]; total: number }>;
  /** Replaces the live application if it still has `expectedUpdatedAt`; false when it changed meanwhile or is gone. */
  replace(application: IsApplication, expectedUpdatedAt: string): Promise<boolean>;
  /** End devices the IS holds for the application. */
  deviceCount(applicationId: string): Promise<number>;
  /** Soft-deletes the live application unless it has end devices (checked in the same statement). */
  softDelete(applicationId: string, deletedAt: string): Promise<RemovalResult>;
  /** Un-deletes a soft-deleted application; false when there is none. */
  restore(applicationId: string): Promise<boolean>;
  /** Removes the application (live or soft-deleted) and its collaborators, unless it has end devices. */
  purge(applicationId: string): Promise<RemovalResult>;
}

export const APPLICATION_STORE = Symbol('APPLICATION_STORE');
