import type { DataSource } from 'typeorm';
import { isDuplicateKeyError, runAtomically } from '@lorawan/persistence';
import { insertAccount } from '../common/accounts';
import type { EntityListQuery } from '../common/entity-list';
import { TypeOrmEntityStore } from '../registry/typeorm-entity.store';
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

export class TypeOrmUserStore extends TypeOrmEntityStore<UserEntity, IsUser, UserOrder> implements UserStore {
  constructor(dataSource: DataSource) {
    const columns = ['user_id', 'primary_email_address', 'name', 'admin', 'state', 'password_hash'] as const;
    super(dataSource, UserEntity, { table: 'users', id: 'user_id', kind: 'user', orderColumns: ORDER_COLUMNS, columns }, toDomain);
  }

  /** The user and its account, both or neither: an ID an organization has is taken too. */
  async create(user: IsUser, passwordHash?: string): Promise<UserCreateResult> {
    const row = toEntity(user, passwordHash);
    try {
      await runAtomically(this.dataSource, [insertAccount({ kind: 'user', id: row.user_id }), this.insertStatement(row)]);
      return { ok: true };
    } catch (err) {
      if (isDuplicateKeyError(err)) return { ok: false, conflict: 'id' };
      throw err;
    }
  }

  async passwordHash(userId: string): Promise<string | undefined> {
    return (await this.table.find(userId))?.password_hash ?? undefined;
  }

  async list(query: EntityListQuery<UserOrder>): Promise<{ users: IsUser[]; total: number }> {
    const { entities, total } = await this.page(query);
    return { users: entities, total };
  }

  async replace(user: IsUser, expectedUpdatedAt: string): Promise<boolean> {
    const { primary_email_address, name, admin, state, updated_at, fields } = toEntity(user);
    return this.table.replace(user.ids.user_id, { primary_email_address, name, admin, state, updated_at, fields }, expectedUpdatedAt);
  }

  async softDelete(userId: string, deletedAt: string): Promise<boolean> {
    return this.table.softDelete(userId, deletedAt);
  }
}
