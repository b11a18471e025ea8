import type { DataSource } from 'typeorm';
import { timestampToSql } from '@lorawan/api';
import { isDuplicateKeyError, readThenWrite, runAtomically } from '@lorawan/persistence';
import type { CollaboratedKind, Collaborator } from '../collaborators/collaborator.model';
import { deleteCollaborationsOfAccount, deleteCollaboratorsOfPurged, ENTITY_TABLES, insertCollaborator } from '../collaborators/typeorm-collaborator.store';
import { type AccountRef, deleteAccount, insertAccount } from '../common/accounts';
import type { EntityListQuery } from '../common/entity-list';
import { TypeOrmEntityStore } from '../registry/typeorm-entity.store';
import { OrganizationEntity } from './organization.entity';
import { toDomain, toEntity } from './organization.mapper';
import type { IsOrganization, OrganizationCreateResult, OrganizationDeleteResult, OrganizationOrder, OrganizationStore } from './organization.model';

const ORDER_COLUMNS: Record<OrganizationOrder, string> = { organization_id: 'organization_id', name: 'name', created_at: 'created_at' };

const ACCOUNT_SQL = 'SELECT 1 AS found FROM accounts WHERE account_id = ? LIMIT 1';

/** What an organization collaborates on (organizations do not nest). */
const COLLABORATED_KINDS: readonly CollaboratedKind[] = ['application', 'gateway', 'client'];
/** The collaborations (`c`) of the organization `?` on live entities: the store refuses to delete it while there are some. */
const LIVE_COLLABORATIONS = `FROM collaborators c WHERE c.account_kind = 'organization' AND c.account_id = ? AND (${COLLABORATED_KINDS.map((kind) => {
  const { table, id } = ENTITY_TABLES[kind];
  return `(c.entity_kind = '${kind}' AND EXISTS (SELECT 1 FROM ${table} e WHERE e.${id} = c.entity_id AND e.deleted_at IS NULL))`;
}).join(' OR ')})`;
const COUNT_COLLABORATIONS_SQL = `SELECT COUNT(*) AS n ${LIVE_COLLABORATIONS}`;
const SOFT_DELETE_SQL = `UPDATE organizations SET deleted_at = ? WHERE organization_id = ? AND deleted_at IS NULL AND NOT EXISTS (SELECT 1 ${LIVE_COLLABORATIONS})`;
/** A delete that found nothing to change may have lost a race with a collaboration's removal: it checks again this often. */
const DELETE_ATTEMPTS = 3;

export class TypeOrmOrganizationStore extends TypeOrmEntityStore<OrganizationEntity, IsOrganization, OrganizationOrder> implements OrganizationStore {
  constructor(dataSource: DataSource) {
    const table = {
      table: 'organizations',
      id: 'organization_id',
      kind: 'organization',
      orderColumns: ORDER_COLUMNS,
      columns: ['organization_id', 'name'],
    } as const;
    super(dataSource, OrganizationEntity, table, toDomain);
  }

  async create(organization: IsOrganization, member: Collaborator): Promise<OrganizationCreateResult> {
    const row = toEntity(organization);
    const id = row.organization_id;
    try {
      await runAtomically(this.dataSource, [
        // The account first: its primary key is where a user or an organization of the same ID collides.
        insertAccount(account(id)),
        this.insertStatement(row),
        insertCollaborator('organization', id, member, organization.created_at),
      ]);
      return { ok: true };
    } catch (err) {
      if (isDuplicateKeyError(err) && (await this.accountExists(id))) return { ok: false, conflict: 'id' };
      throw err;
    }
  }

  async list(query: EntityListQuery<OrganizationOrder>): Promise<{ organizations: IsOrganization[]; total: number }> {
    const { entities, total } = await this.page(query);
    return { organizations: entities, total };
  }

  async replace(organization: IsOrganization, expectedUpdatedAt: string): Promise<boolean> {
    const { name, updated_at, fields } = toEntity(organization);
    return this.table.replace(organization.ids.organization_id, { name, updated_at, fields }, expectedUpdatedAt);
  }

  async collaborationCount(organizationId: string): Promise<number> {
    const rows = (await this.dataSource.query(COUNT_COLLABORATIONS_SQL, [organizationId])) as Array<{ n: number | string }>;
    return Number(rows[0]?.n ?? 0);
  }

  async softDelete(organizationId: string, deletedAt: string): Promise<OrganizationDeleteResult> {
    for (let attempt = 0; attempt < DELETE_ATTEMPTS; attempt++) {
      const [changed] = await runAtomically(this.dataSource, [{ sql: SOFT_DELETE_SQL, params: [timestampToSql(deletedAt), organizationId, organizationId] }]);
      if (changed > 0) return { ok: true };
      if (!(await this.table.find(organizationId))) return { ok: false, reason: 'not_found' };
      const count = await this.collaborationCount(organizationId);
      if (count > 0) return { ok: false, reason: 'has_entities', count };
    }
    throw new Error(`organization ${organizationId}: delete kept failing without collaborations`);
  }

  async purge(organizationId: string): Promise<boolean> {
    return readThenWrite(
      this.dataSource,
      [{ sql: 'SELECT organization_id FROM organizations WHERE organization_id = ?', params: [organizationId], lock: true }],
      ([found]) =>
        found.length === 0
          ? { result: false, writes: [] }
          : {
              result: true,
              writes: [
                { sql: 'DELETE FROM organizations WHERE organization_id = ?', params: [organizationId] },
                deleteCollaboratorsOfPurged('organization', organizationId),
                deleteCollaborationsOfAccount(account(organizationId)),
                deleteAccount(account(organizationId)),
              ],
            },
    );
  }

  private async accountExists(accountId: string): Promise<boolean> {
    return ((await this.dataSource.query(ACCOUNT_SQL, [accountId])) as unknown[]).length > 0;
  }
}

function account(organizationId: string): AccountRef {
  return { kind: 'organization', id: organizationId };
}
