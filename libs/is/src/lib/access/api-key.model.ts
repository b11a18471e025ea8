import type { EntityRef, Right } from '@lorawan/api';

/** An API key as the IS keeps it: the secret only as its hash. */
export interface ApiKeyRecord {
  /** The 39-character base32 ID (public). */
  id: string;
  /** `PBKDF2$sha256$…` of the secret part (see @lorawan/crypto `hashSecret`). */
  secret_hash: string;
  /** '' when unnamed. */
  name: string;
  /** As granted (not implied), in the order given. */
  rights: Right[];
  /** The application, gateway or user the key belongs to. */
  owner: EntityRef;
  created_at: string;
  updated_at: string;
  expires_at?: string;
}

export const API_KEY_ORDER_FIELDS = ['api_key_id', 'name', 'created_at', 'expires_at'] as const;
export type ApiKeyOrderField = (typeof API_KEY_ORDER_FIELDS)[number];

export interface ApiKeyListOptions {
  order: ApiKeyOrderField;
  descending: boolean;
  limit: number;
  offset: number;
}

/**
 * Storage of API keys. One implementation (TypeORM) on two drivers, MySQL and SQLite, both held to
 * `api-key.store.conformance.ts`.
 */
export interface ApiKeyStore {
  /** Inserts a new key (IDs are 24 random bytes: a clash is a bug, not a conflict to report). */
  create(key: ApiKeyRecord): Promise<void>;
  /** The key with this ID, whatever its owner (credential lookup). */
  findById(id: string): Promise<ApiKeyRecord | undefined>;
  /** The key with this ID if it belongs to `owner`. */
  get(owner: EntityRef, id: string): Promise<ApiKeyRecord | undefined>;
  list(owner: EntityRef, options: ApiKeyListOptions): Promise<{ keys: ApiKeyRecord[]; total: number }>;
  /** Replaces name, rights, expiry and updated_at if the key still has `expectedUpdatedAt`; false when it changed meanwhile or is gone. */
  replace(key: ApiKeyRecord, expectedUpdatedAt: string): Promise<boolean>;
  /** Deletes the key (if it still has `expectedUpdatedAt`, when given); false when it is gone or changed meanwhile. */
  delete(owner: EntityRef, id: string, expectedUpdatedAt?: string): Promise<boolean>;
  /** Deletes every key of `owner`; answers their IDs. */
  deleteAllOf(owner: EntityRef): Promise<string[]>;
}

export const API_KEY_STORE = Symbol('API_KEY_STORE');
