import { type DataSource, type Repository } from 'typeorm';
import type { EntityRef } from '@lorawan/api';
import { timestampToSql } from '@lorawan/api';
import { ApiKeyEntity } from './api-key.entity';
import { toDomain, toEntity } from './api-key.mapper';
import type { ApiKeyListOptions, ApiKeyOrderField, ApiKeyRecord, ApiKeyStore } from './api-key.model';

/** Column each List order sorts by; each is backed by an (entity_kind, entity_id, column, id) index. */
const ORDER_COLUMNS: Record<ApiKeyOrderField, string> = {
  api_key_id: 'id',
  name: 'name',
  created_at: 'created_at',
  expires_at: 'expires_at',
};

/** The API-key store on TypeORM: MySQL/MariaDB in distributed mode, SQLite embedded. */
export class TypeOrmApiKeyStore implements ApiKeyStore {
  private readonly repo: Repository<ApiKeyEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.repo = dataSource.getRepository(ApiKeyEntity);
  }

  async create(key: ApiKeyRecord): Promise<void> {
    await this.repo.insert(toEntity(key));
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.repo.findOne({ where: { id } });
    return row ? toDomain(row) : undefined;
  }

  async get(owner: EntityRef, id: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.repo.findOne({ where: { id, entity_kind: owner.kind, entity_id: owner.id } });
    return row ? toDomain(row) : undefined;
  }

  async list(owner: EntityRef, options: ApiKeyListOptions): Promise<{ keys: ApiKeyRecord[]; total: number }> {
    const direction = options.descending ? 'DESC' : 'ASC';
    const column = ORDER_COLUMNS[options.order];
    const query = this.repo.createQueryBuilder('k').where('k.entity_kind = :kind AND k.entity_id = :id', { kind: owner.kind, id: owner.id });
    if (column !== 'id') query.orderBy(`k.${column}`, direction);
    query.addOrderBy('k.id', direction).limit(options.limit).offset(options.offset);
    const [rows, total] = await Promise.all([query.getMany(), this.repo.count({ where: { entity_kind: owner.kind, entity_id: owner.id } })]);
    return { keys: rows.map(toDomain), total };
  }

  async replace(key: ApiKeyRecord, expectedUpdatedAt: string): Promise<boolean> {
    const row = toEntity(key);
    const result = await this.repo
      .createQueryBuilder()
      .update(ApiKeyEntity)
      .set({ name: row.name, rights: row.rights, expires_at: row.expires_at, updated_at: row.updated_at })
      .where('id = :id AND entity_kind = :kind AND entity_id = :entity AND updated_at = :expected', {
        id: row.id,
        kind: row.entity_kind,
        entity: row.entity_id,
        expected: timestampToSql(expectedUpdatedAt),
      })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async delete(owner: EntityRef, id: string, expectedUpdatedAt?: string): Promise<boolean> {
    const query = this.repo
      .createQueryBuilder()
      .delete()
      .from(ApiKeyEntity)
      .where('id = :id AND entity_kind = :kind AND entity_id = :entity', { id, kind: owner.kind, entity: owner.id });
    if (expectedUpdatedAt !== undefined) query.andWhere('updated_at = :expected', { expected: timestampToSql(expectedUpdatedAt) });
    const result = await query.execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Deletes the owner's keys and answers their IDs (for invalidation). Two statements without a
   * transaction (on SQLite one would take in other requests' queries on the shared connection): a
   * key created in between is deleted too, and the purge's entity invalidation covers it.
   */
  async deleteAllOf(owner: EntityRef): Promise<string[]> {
    const ids = (await this.repo.find({ select: { id: true }, where: { entity_kind: owner.kind, entity_id: owner.id } })).map((r) => r.id);
    await this.repo.delete({ entity_kind: owner.kind, entity_id: owner.id });
    return ids;
  }
}
