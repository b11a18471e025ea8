import { type DataSource, In, type Repository } from 'typeorm';
import { type EntityRef, type Right, timestampToSql } from '@lorawan/api';
import { readThenWrite, type Statement } from '@lorawan/persistence';
import { CollaboratorEntity } from './collaborator.entity';
import type {
  CollaboratedKind,
  CollaboratedRef,
  Collaborator,
  CollaboratorChange,
  CollaboratorPage,
  CollaboratorState,
  CollaboratorStore,
} from './collaborator.model';

/** Where each collaborated kind lives: its table and ID column (fixed names, never input). */
export const ENTITY_TABLES: Record<CollaboratedKind, { table: string; id: string }> = {
  application: { table: 'applications', id: 'application_id' },
  gateway: { table: 'gateways', id: 'gateway_id' },
  client: { table: 'clients', id: 'client_id' },
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

/** The user IDs of the contacts in an entity's `fields` document (organizations are not stored). */
function contactsOf(fields: unknown): string[] {
  const doc = JSON.parse(typeof fields === 'string' && fields ? fields : '{}') as Record<string, { user_ids?: { user_id?: string } } | undefined>;
  return [doc['administrative_contact'], doc['technical_contact']].flatMap((c) => (c?.user_ids?.user_id ? [c.user_ids.user_id] : []));
}

/** ORDER BY of a list: the field, then the user ID in the same direction (fixed names, never input). */
const ORDER_COLUMNS: Record<CollaboratorPage['order'], string> = { id: 'c.user_id', rights: 'c.rights' };

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

  async list(entity: CollaboratedRef, { order, descending, limit, offset }: CollaboratorPage): Promise<{ collaborators: Collaborator[]; total: number }> {
    const { table, id } = ENTITY_TABLES[entity.kind];
    const from = `FROM collaborators c JOIN ${table} e ON e.${id} = c.entity_id AND e.deleted_at IS NULL WHERE c.entity_kind = ? AND c.entity_id = ?`;
    const dir = descending ? 'DESC' : 'ASC';
    const orderBy = order === 'id' ? `c.user_id ${dir}` : `${ORDER_COLUMNS[order]} ${dir}, c.user_id ${dir}`;
    const [rows, counted] = await Promise.all([
      this.dataSource.query(`SELECT c.user_id AS user_id, c.rights AS rights ${from} ORDER BY ${orderBy} LIMIT ? OFFSET ?`, [
        entity.kind,
        entity.id,
        limit,
        offset,
      ]) as Promise<Array<{ user_id: string; rights: string }>>,
      this.dataSource.query(`SELECT COUNT(*) AS n ${from}`, [entity.kind, entity.id]) as Promise<Array<{ n: number | string }>>,
    ]);
    return { collaborators: rows.map((r) => ({ user_id: r.user_id, rights: parseRights(r.rights) })), total: Number(counted[0]?.n ?? 0) };
  }

  async change(entity: CollaboratedRef, userId: string, decide: (state: CollaboratorState) => Right[], now: string): Promise<CollaboratorChange> {
    const { table, id } = ENTITY_TABLES[entity.kind];
    const member = [entity.kind, entity.id, userId];
    return readThenWrite<CollaboratorChange>(
      this.dataSource,
      [
        // Locking the entity's row serialises every change of its collaborators.
        { sql: `SELECT fields FROM ${table} WHERE ${id} = ? AND deleted_at IS NULL`, params: [entity.id], lock: true },
        { sql: 'SELECT user_id FROM users WHERE user_id = ? AND deleted_at IS NULL', params: [userId] },
        {
          sql: 'SELECT user_id, rights FROM collaborators WHERE entity_kind = ? AND entity_id = ? ORDER BY user_id',
          params: [entity.kind, entity.id],
          lock: true,
        },
      ],
      ([entityRows, userRows, collaboratorRows]) => {
        if (entityRows.length === 0) return { result: { outcome: 'entity_not_found' }, writes: [] };
        if (userRows.length === 0) return { result: { outcome: 'user_not_found' }, writes: [] };
        const collaborators = collaboratorRows.map((r) => ({ user_id: String(r['user_id']), rights: parseRights(String(r['rights'])) }));
        const current = collaborators.find((c) => c.user_id === userId)?.rights;
        const rights = decide({ current, collaborators, contacts: contactsOf(entityRows[0]['fields']) });
        let write: Statement;
        if (rights.length === 0) {
          write = { sql: 'DELETE FROM collaborators WHERE entity_kind = ? AND entity_id = ? AND user_id = ?', params: member };
        } else if (current) {
          write = {
            sql: 'UPDATE collaborators SET rights = ?, updated_at = ? WHERE entity_kind = ? AND entity_id = ? AND user_id = ?',
            params: [JSON.stringify(rights), timestampToSql(now), ...member],
          };
        } else {
          write = insertCollaborator(entity.kind, entity.id, { user_id: userId, rights }, now);
        }
        return { result: { outcome: 'changed', previous: current }, writes: [write] };
      },
    );
  }
}
