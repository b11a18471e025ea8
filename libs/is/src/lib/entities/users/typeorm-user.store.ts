import type { DataSource } from 'typeorm';
import { timestampToSql } from '@lorawan/api';
import { isDuplicateKeyError, runAtomically } from '@lorawan/persistence';
import { insertAccount } from '../common/accounts';
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

  constructor(private readonly dataSource: DataSource) {
    this.table = new EntityTable(dataSource, UserEntity, { table: 'users', id: 'user_id', kind: 'user', orderColumns: ORDER_COLUMNS });
  }

  /** The user and its account, both or neither: an ID an organization has is taken too. */
  async create(user: IsUser, passwordHash?: string): Promise<UserCreateResult> {
    const row = toEntity(user, passwordHash);
    try {
      await runAtomically(this.dataSource, [
        insertAccount({ kind: 'user', id: row.user_id }),
        {
          sql: `INSERT INTO users (user_id, primary_email_address, name, admin, state, password_hash, created_at, updated_at, deleted_at, fields)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)`,
          params: [
            row.user_id,
            row.primary_email_address,
            row.name,
            row.admin,
            row.state,
            row.password_hash,
            timestampToSql(row.created_at),
            timestampToSql(row.updated_at),
            row.fields,
          ],
        },
      ]);
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
