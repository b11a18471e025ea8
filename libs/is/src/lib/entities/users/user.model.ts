import type { USER_ORDERS } from '@lorawan/api';
import type { EntityListQuery } from '../common/entity-list';
import type { CreateResult, DescribedEntity, EntityStore } from '../registry/entity.model';

/**
 * The Identity Server's view of a user: the contract's `User` without its write-only `password`
 * (kept as a hash, apart). Zero values are absent, as on the wire: no `admin` is `false`, no
 * `state` is `STATE_REQUESTED`.
 */
export interface IsUser extends DescribedEntity<'user'> {
  primary_email_address?: string;
  primary_email_address_validated_at?: string;
  password_updated_at?: string;
  require_password_update?: boolean;
  /** `State` name. */
  state?: string;
  state_description?: string;
  admin?: boolean;
}

export type UserOrder = (typeof USER_ORDERS)[number];

export type UserCreateResult = CreateResult;

/** Storage of users; TypeORM on MySQL and SQLite, held to `identity.store.conformance.ts`. */
export interface UserStore extends EntityStore<IsUser> {
  /** Stores a new user; its ID must never have been used (soft-deleted users keep theirs). */
  create(user: IsUser, passwordHash?: string): Promise<UserCreateResult>;
  passwordHash(userId: string): Promise<string | undefined>;
  list(query: EntityListQuery<UserOrder>): Promise<{ users: IsUser[]; total: number }>;
  /** Replaces the live user if it still has `expectedUpdatedAt`; false when it changed meanwhile or is gone. The password stays. */
  replace(user: IsUser, expectedUpdatedAt: string): Promise<boolean>;
  /** Soft-deletes the live user; false when there is none. */
  softDelete(userId: string, deletedAt: string): Promise<boolean>;
}

export const USER_STORE = Symbol('USER_STORE');
