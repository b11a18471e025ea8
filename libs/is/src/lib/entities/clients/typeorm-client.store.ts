import type { DataSource } from 'typeorm';
import { timestampToSql } from '@lorawan/api';
import { isDuplicateKeyError, runAtomically } from '@lorawan/persistence';
import { deleteCollaboratorsOfPurged, insertCollaborator } from '../collaborators/typeorm-collaborator.store';
import type { Collaborator } from '../collaborators/collaborator.model';
import type { EntityListQuery, Scope } from '../common/entity-list';
import { EntityTable } from '../common/entity-table';
import { ClientEntity } from './client.entity';
import { toDomain, toEntity } from './client.mapper';
import type { ClientCreateResult, ClientOrder, ClientStore, IsClient } from './client.model';

const ORDER_COLUMNS: Record<ClientOrder, string> = { client_id: 'client_id', name: 'name', created_at: 'created_at' };

const INSERT_SQL = 'INSERT INTO clients (client_id, name, secret_hash, created_at, updated_at, deleted_at, fields) VALUES (?, ?, ?, ?, ?, NULL, ?)';
const PURGE_SQL = 'DELETE FROM clients WHERE client_id = ?';

export class TypeOrmClientStore implements ClientStore {
  private readonly table: EntityTable<ClientEntity, ClientOrder>;

  constructor(private readonly dataSource: DataSource) {
    this.table = new EntityTable(dataSource, ClientEntity, { table: 'clients', id: 'client_id', kind: 'client', orderColumns: ORDER_COLUMNS });
  }

  async create(client: IsClient, secretHash: string | undefined, collaborator: Collaborator): Promise<ClientCreateResult> {
    const row = toEntity(client, secretHash ?? null);
    const id = row.client_id;
    try {
      await runAtomically(this.dataSource, [
        { sql: INSERT_SQL, params: [id, row.name, row.secret_hash, timestampToSql(row.created_at), timestampToSql(row.updated_at), row.fields] },
        insertCollaborator('client', id, collaborator, client.created_at),
      ]);
      return { ok: true };
    } catch (err) {
      // The collaborator can only collide through its client, so a duplicate is the ID.
      if (isDuplicateKeyError(err) && (await this.table.find(id, 'any'))) return { ok: false, conflict: 'id' };
      throw err;
    }
  }

  exists(clientId: string): Promise<boolean> {
    return this.table.exists(clientId);
  }

  async get(clientId: string, scope?: Scope): Promise<IsClient | undefined> {
    const row = await this.table.find(clientId, scope);
    return row ? toDomain(row) : undefined;
  }

  async secretHash(clientId: string): Promise<string | undefined> {
    return (await this.table.find(clientId))?.secret_hash ?? undefined;
  }

  async list(query: EntityListQuery<ClientOrder>): Promise<{ clients: IsClient[]; total: number }> {
    const { rows, total } = await this.table.list(query);
    return { clients: rows.map(toDomain), total };
  }

  async replace(client: IsClient, expectedUpdatedAt: string, secretHash?: string | null): Promise<boolean> {
    const { name, updated_at, fields } = toEntity(client);
    const values: Partial<ClientEntity> = { name, updated_at, fields, ...(secretHash === undefined ? {} : { secret_hash: secretHash }) };
    return this.table.replace(client.ids.client_id, values, expectedUpdatedAt);
  }

  softDelete(clientId: string, deletedAt: string): Promise<boolean> {
    return this.table.softDelete(clientId, deletedAt);
  }

  restore(clientId: string): Promise<boolean> {
    return this.table.restore(clientId);
  }

  async purge(clientId: string): Promise<boolean> {
    const [changed] = await runAtomically(this.dataSource, [{ sql: PURGE_SQL, params: [clientId] }, deleteCollaboratorsOfPurged('client', clientId)]);
    return changed > 0;
  }
}
