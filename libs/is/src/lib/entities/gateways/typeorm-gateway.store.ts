import type { DataSource } from 'typeorm';
import { timestampToSql } from '@lorawan/api';
import { isDuplicateKeyError } from '@lorawan/persistence';
import { deleteCollaboratorsOfPurged, insertCollaborator } from '../collaborators/typeorm-collaborator.store';
import type { Collaborator } from '../collaborators/collaborator.model';
import { runAtomically } from '@lorawan/persistence';
import type { EntityListQuery, Scope } from '../common/entity-list';
import { EntityTable } from '../common/entity-table';
import { GatewayEntity } from './gateway.entity';
import { toDomain, toEntity } from './gateway.mapper';
import type { EuiConflict, GatewayCreateResult, GatewayOrder, GatewayReplaceResult, GatewayStore, IsGateway } from './gateway.model';

const ORDER_COLUMNS: Record<GatewayOrder, string> = { gateway_id: 'gateway_id', gateway_eui: 'eui', name: 'name', created_at: 'created_at' };

const INSERT_SQL = 'INSERT INTO gateways (gateway_id, eui, name, created_at, updated_at, deleted_at, fields) VALUES (?, ?, ?, ?, ?, NULL, ?)';
const PURGE_SQL = 'DELETE FROM gateways WHERE gateway_id = ?';

export class TypeOrmGatewayStore implements GatewayStore {
  private readonly table: EntityTable<GatewayEntity, GatewayOrder>;

  constructor(private readonly dataSource: DataSource) {
    this.table = new EntityTable(dataSource, GatewayEntity, { table: 'gateways', id: 'gateway_id', kind: 'gateway', orderColumns: ORDER_COLUMNS });
  }

  async create(gateway: IsGateway, collaborator: Collaborator): Promise<GatewayCreateResult> {
    const row = toEntity(gateway);
    try {
      await runAtomically(this.dataSource, [
        { sql: INSERT_SQL, params: [row.gateway_id, row.eui, row.name, timestampToSql(row.created_at), timestampToSql(row.updated_at), row.fields] },
        insertCollaborator('gateway', row.gateway_id, collaborator, gateway.created_at),
      ]);
      return { ok: true };
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      if (await this.table.find(row.gateway_id, 'any')) return { ok: false, conflict: 'id' };
      const conflict = await this.euiConflict(row.eui);
      if (conflict) return conflict;
      throw err;
    }
  }

  exists(gatewayId: string): Promise<boolean> {
    return this.table.exists(gatewayId);
  }

  async get(gatewayId: string, scope?: Scope): Promise<IsGateway | undefined> {
    const row = await this.table.find(gatewayId, scope);
    return row ? toDomain(row) : undefined;
  }

  async getByEui(eui: string, scope?: Scope): Promise<IsGateway | undefined> {
    const row = await this.table.findBy('eui', eui.toUpperCase(), scope);
    return row ? toDomain(row) : undefined;
  }

  async list(query: EntityListQuery<GatewayOrder>): Promise<{ gateways: IsGateway[]; total: number }> {
    const { rows, total } = await this.table.list(query);
    return { gateways: rows.map(toDomain), total };
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

  async restore(gatewayId: string): Promise<boolean> {
    return this.table.restore(gatewayId);
  }

  async purge(gatewayId: string): Promise<boolean> {
    const [changed] = await runAtomically(this.dataSource, [{ sql: PURGE_SQL, params: [gatewayId] }, deleteCollaboratorsOfPurged('gateway', gatewayId)]);
    return changed > 0;
  }

  private async euiConflict(eui: string | null): Promise<EuiConflict | undefined> {
    const holder = eui ? await this.getByEui(eui, 'any') : undefined;
    return holder ? { ok: false, conflict: 'eui', holder } : undefined;
  }
}
