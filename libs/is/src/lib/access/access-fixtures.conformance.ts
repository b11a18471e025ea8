import type { CallerIdentity, EntityRef, Right } from '@lorawan/api';
import type { IdentityDirectory, UserEssentials } from '../identity.contracts';
import type { ApiKeyListOptions, ApiKeyRecord, ApiKeyStore } from './api-key.model';

/**
 * Test doubles of the access side's collaborators (specs only; `.conformance.ts` keeps them out of
 * the build): an in-memory IdentityDirectory standing in for the entity side, and an in-memory
 * ApiKeyStore held to the same conformance suite as the TypeORM store.
 */

const key = (e: EntityRef) => `${e.kind}:${e.id}`;

export class InMemoryIdentityDirectory implements IdentityDirectory {
  private readonly users = new Map<string, UserEssentials>();
  private readonly entities = new Set<string>();
  private readonly collaborators = new Map<string, Right[]>();

  addUser(userId: string, options: { admin?: boolean; state?: string } = {}): this {
    this.users.set(userId, { user_id: userId, admin: options.admin ?? false, state: options.state ?? 'STATE_APPROVED' });
    this.entities.add(key({ kind: 'user', id: userId }));
    return this;
  }

  addEntity(entity: EntityRef, collaborators: Record<string, Right[]> = {}): this {
    this.entities.add(key(entity));
    for (const [userId, rights] of Object.entries(collaborators)) this.collaborators.set(`${userId}\n${key(entity)}`, rights);
    return this;
  }

  /** Soft-deletes: the entity no longer exists for the access side. */
  remove(entity: EntityRef): this {
    this.entities.delete(key(entity));
    if (entity.kind === 'user') this.users.delete(entity.id);
    return this;
  }

  async user(userId: string): Promise<UserEssentials | undefined> {
    return this.users.get(userId);
  }

  async exists(entity: EntityRef): Promise<boolean> {
    return this.entities.has(key(entity));
  }

  async collaboratorRights(userId: string, entity: EntityRef): Promise<Right[]> {
    return this.entities.has(key(entity)) ? [...(this.collaborators.get(`${userId}\n${key(entity)}`) ?? [])] : [];
  }
}

const ORDER_VALUE: Record<ApiKeyListOptions['order'], (k: ApiKeyRecord) => string | undefined> = {
  api_key_id: (k) => k.id,
  name: (k) => k.name,
  created_at: (k) => k.created_at,
  expires_at: (k) => k.expires_at,
};

/** Byte-wise (code-point) order, NULL first, as MySQL's utf8mb4_bin and SQLite's BINARY sort. */
function compare(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export class InMemoryApiKeyStore implements ApiKeyStore {
  readonly keys = new Map<string, ApiKeyRecord>();

  async create(k: ApiKeyRecord): Promise<void> {
    if (this.keys.has(k.id)) throw new Error('duplicate API key ID');
    this.keys.set(k.id, structuredClone(k));
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    const k = this.keys.get(id);
    return k && structuredClone(k);
  }

  async get(owner: EntityRef, id: string): Promise<ApiKeyRecord | undefined> {
    const k = this.keys.get(id);
    return k && key(k.owner) === key(owner) ? structuredClone(k) : undefined;
  }

  async list(owner: EntityRef, options: ApiKeyListOptions): Promise<{ keys: ApiKeyRecord[]; total: number }> {
    const value = ORDER_VALUE[options.order];
    const sign = options.descending ? -1 : 1;
    const own = [...this.keys.values()].filter((k) => key(k.owner) === key(owner));
    own.sort((a, b) => sign * (compare(value(a), value(b)) || compare(a.id, b.id)));
    return { keys: own.slice(options.offset, options.offset + options.limit).map((k) => structuredClone(k)), total: own.length };
  }

  async replace(k: ApiKeyRecord, expectedUpdatedAt: string): Promise<boolean> {
    const current = this.keys.get(k.id);
    if (!current || key(current.owner) !== key(k.owner) || current.updated_at !== expectedUpdatedAt) return false;
    const next: ApiKeyRecord = { ...current, name: k.name, rights: [...k.rights], updated_at: k.updated_at };
    if (k.expires_at === undefined) delete next.expires_at;
    else next.expires_at = k.expires_at;
    this.keys.set(k.id, next);
    return true;
  }

  async delete(owner: EntityRef, id: string, expectedUpdatedAt?: string): Promise<boolean> {
    const k = this.keys.get(id);
    if (!k || key(k.owner) !== key(owner)) return false;
    if (expectedUpdatedAt !== undefined && k.updated_at !== expectedUpdatedAt) return false;
    return this.keys.delete(id);
  }

  async deleteAllOf(owner: EntityRef): Promise<string[]> {
    const ids = [...this.keys.values()].filter((k) => key(k.owner) === key(owner)).map((k) => k.id);
    ids.forEach((id) => this.keys.delete(id));
    return ids;
  }
}

/** A caller as `EntityAccess.Authorize` resolves it (for service specs that skip Authorize). */
export function caller(entity: EntityRef, rights: Right[], extra: Partial<CallerIdentity> = {}): CallerIdentity {
  return {
    kind: 'api-key',
    id: 'CALLERKEY',
    owner: { kind: 'user', id: 'someone' },
    is_admin: false,
    key_rights: rights,
    universal: false,
    entity,
    rights,
    ...extra,
  };
}
