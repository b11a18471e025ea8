import type { DataSource, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { timestampToSql } from '@lorawan/api';
import { MEMBER_ORGANIZATIONS_SQL } from '../collaborators/typeorm-collaborator.store';
import type { EntityListQuery, Scope } from './entity-list';

export interface EntityTableSpec<O extends string> {
  /** Table and ID column: fixed names, never input. */
  table: string;
  id: string;
  /** The kind collaborators name the entity by. */
  kind: 'application' | 'gateway' | 'user' | 'client' | 'organization';
  /** The column each List order sorts by (the ID breaks ties, in the same direction). */
  orderColumns: Record<O, string>;
}

/**
 * What the tables of users, applications and gateways have in common: rows soft-deleted through
 * `deleted_at` (the ID stays taken until a purge), lookups within a scope, Lists (of everything or
 * of one collaborator's entities) and optimistic updates. Property names are the column names.
 */
/** The columns every entity table has: the version of optimistic updates and the soft-delete mark. */
export type EntityRow = { updated_at: string; deleted_at?: string | null };

export class EntityTable<Row extends ObjectLiteral & EntityRow, O extends string> {
  readonly repo: Repository<Row>;
  /** The same table seen through the columns every entity row has: what deleting and restoring write. */
  private readonly rows: Repository<EntityRow>;
  /** One fixed statement: an existence check needs neither a query builder nor a row. */
  private readonly existsSql: string;

  constructor(
    private readonly dataSource: DataSource,
    entity: new () => Row,
    private readonly spec: EntityTableSpec<O>,
  ) {
    this.repo = dataSource.getRepository(entity);
    this.rows = dataSource.getRepository<EntityRow>(entity);
    this.existsSql = `SELECT 1 AS found FROM ${spec.table} WHERE ${spec.id} = ? AND deleted_at IS NULL LIMIT 1`;
  }

  /** Whether a live (not deleted) row has the ID: the check of every device Create, API key and rights lookup. */
  async exists(id: string): Promise<boolean> {
    return ((await this.dataSource.query(this.existsSql, [id])) as unknown[]).length > 0;
  }

  async find(id: string, scope: Scope = 'active'): Promise<Row | undefined> {
    const query = this.repo.createQueryBuilder('e').where(`e.${this.spec.id} = :id`, { id });
    return (await inScope(query, scope).getOne()) ?? undefined;
  }

  async findBy(column: string, value: string, scope: Scope = 'active'): Promise<Row | undefined> {
    const query = this.repo.createQueryBuilder('e').where(`e.${column} = :value`, { value });
    return (await inScope(query, scope).getOne()) ?? undefined;
  }

  async list(query: EntityListQuery<O>): Promise<{ rows: Row[]; total: number }> {
    const { id, kind, orderColumns } = this.spec;
    const select = this.repo.createQueryBuilder('e');
    if (query.collaborator !== undefined) {
      // The account's own collaborations and, for a user, its organizations' (TTS `FindMemberships`, indirect).
      const organizations = MEMBER_ORGANIZATIONS_SQL.replace('?', ':account');
      select.andWhere(
        `e.${id} IN (SELECT c.entity_id FROM collaborators c WHERE c.entity_kind = :kind AND (c.account_id = :account OR c.account_id IN (${organizations})))`,
        { kind, account: query.collaborator },
      );
    }
    inScope(select, query.deleted ? 'deleted' : 'active');
    const direction = query.descending ? 'DESC' : 'ASC';
    const column = orderColumns[query.order];
    if (column !== id) select.orderBy(`e.${column}`, direction);
    select.addOrderBy(`e.${id}`, direction).offset(query.offset).limit(query.limit);
    const [rows, total] = await select.getManyAndCount();
    return { rows, total };
  }

  /** Writes `values` to the live row if it still has `expectedUpdatedAt`; false when it changed meanwhile, or is gone. */
  async replace(id: string, values: QueryDeepPartialEntity<Row>, expectedUpdatedAt: string): Promise<boolean> {
    const result = await this.repo
      .createQueryBuilder()
      .update()
      .set(values)
      .where(`${this.spec.id} = :id AND updated_at = :expected AND deleted_at IS NULL`, { id, expected: timestampToSql(expectedUpdatedAt) })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Marks the live row deleted; false when there is none. */
  async softDelete(id: string, deletedAt: string): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({ deleted_at: deletedAt })
      .where(`${this.spec.id} = :id AND deleted_at IS NULL`, { id })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Brings a soft-deleted row back; false when there is none. */
  async restore(id: string): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({ deleted_at: null })
      .where(`${this.spec.id} = :id AND deleted_at IS NOT NULL`, { id })
      .execute();
    return (result.affected ?? 0) > 0;
  }
}

function inScope<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, scope: Scope): SelectQueryBuilder<T> {
  switch (scope) {
    case 'active':
      return query.andWhere('e.deleted_at IS NULL');
    case 'deleted':
      return query.andWhere('e.deleted_at IS NOT NULL');
    case 'any':
      return query;
  }
}
