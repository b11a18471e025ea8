import { type DataSource, In, type Repository } from 'typeorm';
import { type EntityRef, type Right, timestampToSql } from '@lorawan/api';
import type { Statement } from '@lorawan/persistence';
import { CollaboratorEntity } from './collaborator.entity';
import type { CollaboratedKind, Collaborator, CollaboratorStore } from './collaborator.model';

/** Where each collaborated kind lives: its table and ID column (fixed names, never input). */
export const ENTITY_TABLES: Record<CollaboratedKind, { table: string; id: string }> = {
  application: { table: 'applications', id: 'application_id' },
  gateway: { table: 'gateways', id: 'gateway_id' },
};

function isCollaboratedKind(kind: string): kind is CollaboratedKind {
  return kind in ENTITY_TABLES;
}

/** The statement adding a collaborator (inside the transaction creating its entity). */
export function insertCollaborator(kind: CollaboratedKind, entityId: string, collaborator: Collaborator, now: string): Statement {
  const at = timestampToSql(now);
  return {
    sql: 'INSERT INTO collaborators (entity_kind, entity_id, user_id, rights, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
    params: [kind, entityId, collaborator.user_id, JSON.stringify(collaborator.rights), at, at],
  };
}

/**
 * The statement removing an entity's collaborators once the entity row is gone (inside the purge
 * transaction, after the entity's own conditional delete): when that delete was refused, the
 * collaborators stay.
 */
export function deleteCollaboratorsOfPurged(kind: CollaboratedKind, entityId: string): Statement {
  const { table, id } = ENTITY_TABLES[kind];
  return {
    sql: `DELETE FROM collaborators WHERE entity_kind = ? AND entity_id = ? AND NOT EXISTS (SELECT 1 FROM ${table} e WHERE e.${id} = ?)`,
    params: [kind, entityId, entityId],
  };
}

function parseRights(json: string): Right[] {
  return JSON.parse(json) as Right[];
}

export class TypeOrmCollaboratorStore implements CollaboratorStore {
  private readonly repo: Repository<CollaboratorEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.repo = dataSource.getRepository(CollaboratorEntity);
  }

  async rightsOf(userId: string, entity: EntityRef): Promise<Right[]> {
    if (!isCollaboratedKind(entity.kind)) return [];
    const { table, id } = ENTITY_TABLES[entity.kind];
    const rows = (await this.dataSource.query(
      `SELECT c.rights AS rights FROM collaborators c JOIN ${table} e ON e.${id} = c.entity_id AND e.deleted_at IS NULL WHERE c.entity_kind = ? AND c.entity_id = ? AND c.user_id = ?`,
      [entity.kind, entity.id, userId],
    )) as Array<{ rights: string }>;
    return rows.length > 0 ? parseRights(rows[0].rights) : [];
  }

  async rightsOn(userId: string, kind: CollaboratedKind, entityIds: readonly string[]): Promise<Map<string, Right[]>> {
    if (entityIds.length === 0) return new Map();
    const rows = await this.repo.find({
      select: { entity_id: true, rights: true },
      where: { entity_kind: kind, user_id: userId, entity_id: In([...entityIds]) },
    });
    return new Map(rows.map((row) => [row.entity_id, parseRights(row.rights)]));
  }
}
