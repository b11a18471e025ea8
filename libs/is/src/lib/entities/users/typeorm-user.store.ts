import type { DataSource } from 'typeorm';
import { isDuplicateKeyError } from '@lorawan/persistence';
import type { EntityListQuery, Scope } from '../common/entity-list';
import { EntityTable } from '../common/entity-table';
import { UserEntity } from './user.entity';
import { toDomain, toEntity } from './user.mapper';
import type { IsUser, UserCreateResult, UserOrder, UserStore } from './user.model';

const ORDER_COLUMNS: Record<UserOrder, string> = {
  user_id: 'user_id',
  name: 'name',
  primary_email_address: 'primary_email_address',
  state: 'state',
  admin: 'admin',
  created_at: 'created_at',
};

export class TypeOrmUserStore implements UserStore {
  private readonly table: EntityTable<UserEntity, UserOrder>;

  constructor(dataSource: DataSource) {
    this.table = new EntityTable(dataSource, UserEntity, { table: 'users', id: 'user_id', kind: 'user', orderColumns: ORDER_COLUMNS });
  }

  async create(user: IsUser, passwordHash?: string): Promise<UserCreateResult> {
    try {
      await this.table.repo.insert(toEntity(user, passwordHash));
      return { ok: true };
    } catch (err) {
      if (isDuplicateKeyError(err)) return { ok: false, conflict: 'id' };
      throw err;
    }
  }

  exists(userId: string): Promise<boolean> {
    return this.table.exists(userId);
  }

  async get(userId: string, scope?: Scope): Promise<IsUser | undefined> {
    const row = await this.table.find(userId, scope);
    return row ? toDomain(row) : undefined;
  }

  async passwordHash(userId: string): Promise<string | undefined> {
    return (await this.table.find(userId))?.password_hash ?? undefined;
  }

  async list(query: EntityListQuery<UserOrder>): Promise<{ users: IsUser[]; total: number }> {
    const { rows, total } = await this.table.list(query);
    return { users: rows.map(toDomain), total };
  }

  async replace(user: IsUser, expectedUpdatedAt: string): Promise<boolean> {
    const { primary_email_address, name, admin, state, updated_at, fields } = toEntity(user);
    return this.table.replace(user.ids.user_id, { primary_email_address, name, admin, state, updated_at, fields }, expectedUpdatedAt);
  }

  async softDelete(userId: string, deletedAt: string): Promise<boolean> {
    return this.table.softDelete(userId, deletedAt);
  }
}
