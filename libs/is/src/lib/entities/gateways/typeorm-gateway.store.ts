import type { DataSource } from 'typeorm';
import { isDuplicateKeyError } from '@lorawan/persistence';
import type { Collaborator } from '../collaborators/collaborator.model';
import type { EntityListQuery, Scope } from '../common/entity-list';
import { TypeOrmEntityStore } from '../registry/typeorm-entity.store';
import { GatewayEntity } from './gateway.entity';
import { toDomain, toEntity } from './gateway.mapper';
import type { EuiConflict, GatewayCreateResult, GatewayOrder, GatewayReplaceResult, GatewayStore, IsGateway } from './gateway.model';

const ORDER_COLUMNS: Record<GatewayOrder, string> = { gateway_id: 'gateway_id', gateway_eui: 'eui', name: 'name', created_at: 'created_at' };

export class TypeOrmGatewayStore extends TypeOrmEntityStore<GatewayEntity, IsGateway, GatewayOrder> implements GatewayStore {
  constructor(dataSource: DataSource) {
    super(
      dataSource,
      GatewayEntity,
      { table: 'gateways', id: 'gateway_id', kind: 'gateway', orderColumns: ORDER_COLUMNS, columns: ['gateway_id', 'eui', 'name'] },
      toDomain,
    );
  }

  create(gateway: IsGateway, collaborator: Collaborator): Promise<GatewayCreateResult> {
    const row = toEntity(gateway);
    return this.insertWithCollaborator('gateway', row, collaborator, () => this.euiConflict(row.eui));
  }

  async getByEui(eui: string, scope?: Scope): Promise<IsGateway | undefined> {
    const row = await this.table.findBy('eui', eui.toUpperCase(), scope);
    return row ? toDomain(row) : undefined;
  }

  async list(query: EntityListQuery<GatewayOrder>): Promise<{ gateways: IsGateway[]; total: number }> {
    const { entities, total } = await this.page(query);
    return { gateways: entities, total };
  }

  async replace(gateway: IsGateway, expectedUpdatedAt: string): Promise<GatewayReplaceResult> {
    const { eui, name, updated_at, fields } = toEntity(gateway);
    try {
      return (await this.table.replace(gateway.ids.gateway_id, { eui, name, updated_at, fields }, expectedUpdatedAt))
        ? { ok: true }
        : { ok: false, conflict: 'stale' };
    } catch (err) {
      const conflict = isDuplicateKeyError(err) ? await this.euiConflict(eui) : undefined;
      if (conflict) return conflict;
      throw err;
    }
  }

  async softDelete(gatewayId: string, deletedAt: string): Promise<boolean> {
    return this.table.softDelete(gatewayId, deletedAt);
  }

  purge(gatewayId: string): Promise<boolean> {
    return this.purgeWithCollaborators('gateway', gatewayId);
  }

  private async euiConflict(eui: string | null): Promise<EuiConflict | undefined> {
    const holder = eui ? await this.getByEui(eui, 'any') : undefined;
    return holder ? { ok: false, conflict: 'eui', holder } : undefined;
  }
}
