import type { ORGANIZATION_ORDERS } from '@lorawan/api';
import type { Collaborator } from '../collaborators/collaborator.model';
import type { EntityListQuery } from '../common/entity-list';
import type { CollaboratedEntity, CreateResult, EntityStore } from '../registry/entity.model';

/** The Identity Server's view of an organization: the contract's `Organization` as stored, zero values absent. */
export interface IsOrganization extends CollaboratedEntity<'organization'> {
  fanout_notifications?: boolean;
}

export type OrganizationOrder = (typeof ORGANIZATION_ORDERS)[number];

/** `id`: the ID is taken by a user or an organization (live or soft-deleted): accounts share one namespace. */
export type OrganizationCreateResult = CreateResult;

/**
 * Why a soft delete did not happen: no such live organization, or it still collaborates on live
 * applications, gateways or clients (`count` of them).
 */
export type OrganizationDeleteResult = { ok: true } | { ok: false; reason: 'not_found' } | { ok: false; reason: 'has_entities'; count: number };

/** Storage of organizations; TypeORM on MySQL and SQLite, held to `organization.store.conformance.ts`. */
export interface OrganizationStore extends EntityStore<IsOrganization> {
  /**
   * Stores a new organization, claims its ID among the accounts and adds its first member, all or
   * nothing. IDs of users and of organizations (soft-deleted ones too) are taken.
   */
  create(organization: IsOrganization, member: Collaborator): Promise<OrganizationCreateResult>;
  /** `collaborator`: the organizations that user is a member of. */
  list(query: EntityListQuery<OrganizationOrder>): Promise<{ organizations: IsOrganization[]; total: number }>;
  /** Replaces the live organization if it still has `expectedUpdatedAt`; false when it changed meanwhile or is gone. */
  replace(organization: IsOrganization, expectedUpdatedAt: string): Promise<boolean>;
  /** The live applications, gateways and clients the organization collaborates on. */
  collaborationCount(organizationId: string): Promise<number>;
  /** Soft-deletes the live organization unless it collaborates on live entities (checked in the same statement). */
  softDelete(organizationId: string, deletedAt: string): Promise<OrganizationDeleteResult>;
  /** Un-deletes a soft-deleted organization; false when there is none. */
  restore(organizationId: string): Promise<boolean>;
  /**
   * Removes the organization (live or soft-deleted) with its members and its collaborations, and
   * frees its ID; false when there is none.
   */
  purge(organizationId: string): Promise<boolean>;
}

export const ORGANIZATION_STORE = Symbol('ORGANIZATION_STORE');
