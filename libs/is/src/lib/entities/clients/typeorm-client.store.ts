import type { DataSource } from 'typeorm';
import type { Collaborator } from '../collaborators/collaborator.model';
import type { EntityListQuery } from '../common/entity-list';
import { TypeOrmEntityStore } from '../registry/typeorm-entity.store';
import { ClientEntity } from './client.entity';
import { toDomain, toEntity } from './client.mapper';
import type { ClientCreateResult, ClientOrder, ClientStore, IsClient } from './client.model';

const ORDER_COLUMNS: Record<ClientOrder, string> = { client_id: 'client_id', name: 'name', created_at: 'created_at' };

export class TypeOrmClientStore extends TypeOrmEntityStore<ClientEntity, IsClient, ClientOrder> implements ClientStore {
  constructor(dataSource: DataSource) {
    super(
      dataSource,
      ClientEntity,
      { table: 'clients', id: 'client_id', kind: 'client', orderColumns: ORDER_COLUMNS, columns: ['client_id', 'name', 'secret_hash'] },
      toDomain,
    );
  }

  create(client: IsClient, secretHash: string | undefined, collaborator: Collaborator): Promise<ClientCreateResult> {
    // The collaborator can only collide through its client, so a duplicate is the ID.
    return this.insertWithCollaborator('client', toEntity(client, secretHash ?? null), collaborator);
  }

  async secretHash(clientId: string): Promise<string | undefined> {
    return (await this.table.find(clientId))?.secret_hash ?? undefined;
  }

  async list(query: EntityListQuery<ClientOrder>): Promise<{ clients: IsClient[]; total: number }> {
    const { entities, total } = await this.page(query);
    return { clients: entities, total };
  }

  async replace(client: IsClient, expectedUpdatedAt: string, secretHash?: string | null): Promise<boolean> {
    const { name, updated_at, fields } = toEntity(client);
    const values: Partial<ClientEntity> = { name, updated_at, fields, ...(secretHash === undefined ? {} : { secret_hash: secretHash }) };
    return this.table.replace(client.ids.client_id, values, expectedUpdatedAt);
  }

  softDelete(clientId: string, deletedAt: string): Promise<boolean> {
    return this.table.softDelete(clientId, deletedAt);
  }

  purge(clientId: string): Promise<boolean> {
    return this.purgeWithCollaborators('client', clientId);
  }
}
