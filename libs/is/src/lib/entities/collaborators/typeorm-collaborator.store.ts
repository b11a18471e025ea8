import type { DataSource } from 'typeorm';
import { type EntityRef, impliedRights, type Right, sortRights, timestampToSql } from '@lorawan/api';
import { readThenWrite, type Statement } from '@lorawan/persistence';
import type { AccountKind, AccountRef } from '../common/accounts';
import type {
  CollaboratedKind,
  CollaboratedRef,
  Collaborator,
  CollaboratorChange,
  CollaboratorChangeOptions,
  CollaboratorPage,
  CollaboratorState,
  CollaboratorStore,
} from './collaborator.model';

/** Where each collaborated kind lives: its table and ID column (fixed names, never input). */
export const ENTITY_TABLES: Record<CollaboratedKind, { table: string; id: string }> = {
  application: { table: 'applications', id: 'application_id' },
  gateway: { table: 'gateways', id: 'gateway_id' },
  client: { table: 'clients', id: 'client_id' },
  organization: { table: 'organizations', id: 'organization_id' },
};

/** Where each account kind lives (fixed names, never input). */
const ACCOUNT_TABLES: Record<AccountKind, { table: string; id: string }> = {
  user: { table: 'users', id: 'user_id' },
  organization: ENTITY_TABLES.organization,
};

function isCollaboratedKind(kind: string): kind is CollaboratedKind {
  return kind in ENTITY_TABLES;
}

/**
 * The IDs of the live organizations `?` is a member of: the accounts whose collaborations a user
 * reaches (TTS membership chains: user → organization → entity; organizations do not nest).
 */
export const MEMBER_ORGANIZATIONS_SQL =
  "SELECT m.entity_id FROM collaborators m JOIN organizations o ON o.organization_id = m.entity_id AND o.deleted_at IS NULL WHERE m.entity_kind = 'organization' AND m.account_id = ?";

/** The statement adding a collaborator (inside the transaction creating its entity). */
export function insertCollaborator(kind: CollaboratedKind, entityId: string, collaborator: Collaborator, now: string): Statement {
  const at = timestampToSql(now);
  return {
    sql: 'INSERT INTO collaborators (entity_kind, entity_id, account_id, account_kind, rights, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    params: [kind, entityId, collaborator.ids.id, collaborator.ids.kind, JSON.stringify(collaborator.rights), at, at],
  };
}

/**
 * The statement removing an entity's collaborators (an organization's: its members) once the
 * entity row is gone (inside the purge transaction, after the entity's own conditional delete):
 * when that delete was refused, the collaborators stay.
 */
export function deleteCollaboratorsOfPurged(kind: CollaboratedKind, entityId: string): Statement {
  const { table, id } = ENTITY_TABLES[kind];
  return {
    sql: `DELETE FROM collaborators WHERE entity_kind = ? AND entity_id = ? AND NOT EXISTS (SELECT 1 FROM ${table} e WHERE e.${id} = ?)`,
    params: [kind, entityId, entityId],
  };
}

/** The statement removing every collaboration of an account (inside the purge of an organization). */
export function deleteCollaborationsOfAccount(account: AccountRef): Statement {
  return { sql: 'DELETE FROM collaborators WHERE account_id = ? AND account_kind = ?', params: [account.id, account.kind] };
}

function parseRights(json: string): Right[] {
  return JSON.parse(json) as Right[];
}

/** The account IDs of the contacts in an entity's `fields` document. */
function contactsOf(fields: unknown): string[] {
  type Contact = { user_ids?: { user_id?: string }; organization_ids?: { organization_id?: string } } | undefined;
  const doc = JSON.parse(typeof fields === 'string' && fields ? fields : '{}') as Record<string, Contact>;
  return [doc['administrative_contact'], doc['technical_contact']].flatMap((c) => {
    const id = c?.user_ids?.user_id ?? c?.organization_ids?.organization_id;
    return id ? [id] : [];
  });
}

/** One membership chain's grants: the grant on the entity, and the member's on the organization in between (none: direct). */
interface ChainRow {
  entity_id: string;
  rights: string;
  org_rights: string | null;
}

/** TTS `MembershipChains.GetRights`: a direct grant as stored; through an organization, both grants implied and intersected. */
function chainRights(rows: readonly ChainRow[]): Right[] {
  const direct = rows.filter((r) => r.org_rights === null);
  const chained = rows.filter((r) => r.org_rights !== null);
  const own = direct.flatMap((r) => parseRights(r.rights));
  if (chained.length === 0) return own;
  const out = new Set<Right>(own);
  for (const row of chained) {
    const onOrganization = impliedRights(parseRights(row.org_rights as string));
    for (const right of impliedRights(parseRights(row.rights))) if (onOrganization.has(right)) out.add(right);
  }
  return sortRights(out);
}

/** ORDER BY of a list: the field, then the account ID in the same direction (fixed names, never input). */
const ORDER_COLUMNS: Record<CollaboratorPage['order'], string> = { id: 'c.account_id', rights: 'c.rights' };

export class TypeOrmCollaboratorStore implements CollaboratorStore {
  constructor(private readonly dataSource: DataSource) {}

  async rightsOf(accountId: string, entity: EntityRef): Promise<Right[]> {
    if (!isCollaboratedKind(entity.kind)) return [];
    const { table, id } = ENTITY_TABLES[entity.kind];
    const rows = (await this.dataSource.query(
      `SELECT c.rights AS rights FROM collaborators c JOIN ${table} e ON e.${id} = c.entity_id AND e.deleted_at IS NULL WHERE c.entity_kind = ? AND c.entity_id = ? AND c.account_id = ?`,
      [entity.kind, entity.id, accountId],
    )) as Array<{ rights: string }>;
    return rows.length > 0 ? parseRights(rows[0].rights) : [];
  }

  async membershipRights(accountId: string, entity: EntityRef): Promise<Right[]> {
    if (!isCollaboratedKind(entity.kind)) return [];
    return chainRights(await this.chains(accountId, entity.kind, [entity.id], true));
  }

  async rightsOn(accountId: string, kind: CollaboratedKind, entityIds: readonly string[]): Promise<Map<string, Right[]>> {
    if (entityIds.length === 0) return new Map();
    const byEntity = new Map<string, ChainRow[]>();
    for (const row of await this.chains(accountId, kind, entityIds, false)) byEntity.set(row.entity_id, [...(byEntity.get(row.entity_id) ?? []), row]);
    return new Map([...byEntity].map(([entityId, rows]) => [entityId, chainRights(rows)]));
  }

  /**
   * The account's membership chains to the entities (only live ones if `live`: a List of deleted
   * entities shows the rights on them): its own grants, and those of the live organizations it is
   * a member of.
   */
  private async chains(accountId: string, kind: CollaboratedKind, entityIds: readonly string[], live: boolean): Promise<ChainRow[]> {
    const { table, id } = ENTITY_TABLES[kind];
    const ids = entityIds.map(() => '?').join(', ');
    const liveOnly = live ? `JOIN ${table} e ON e.${id} = c.entity_id AND e.deleted_at IS NULL` : '';
    return (await this.dataSource.query(
      `SELECT c.entity_id AS entity_id, c.rights AS rights, NULL AS org_rights FROM collaborators c ${liveOnly}
         WHERE c.entity_kind = ? AND c.entity_id IN (${ids}) AND c.account_id = ?
       UNION ALL
       SELECT c.entity_id AS entity_id, c.rights AS rights, m.rights AS org_rights FROM collaborators m
         JOIN organizations o ON o.organization_id = m.entity_id AND o.deleted_at IS NULL
         JOIN collaborators c ON c.account_id = m.entity_id AND c.entity_kind = ? AND c.entity_id IN (${ids})
         ${liveOnly}
         WHERE m.entity_kind = 'organization' AND m.account_id = ?`,
      [kind, ...entityIds, accountId, kind, ...entityIds, accountId],
    )) as ChainRow[];
  }

  async list(entity: CollaboratedRef, { order, descending, limit, offset }: CollaboratorPage): Promise<{ collaborators: Collaborator[]; total: number }> {
    const { table, id } = ENTITY_TABLES[entity.kind];
    const from = `FROM collaborators c JOIN ${table} e ON e.${id} = c.entity_id AND e.deleted_at IS NULL WHERE c.entity_kind = ? AND c.entity_id = ?`;
    const dir = descending ? 'DESC' : 'ASC';
    const orderBy = order === 'id' ? `c.account_id ${dir}` : `${ORDER_COLUMNS[order]} ${dir}, c.account_id ${dir}`;
    const [rows, counted] = await Promise.all([
      this.dataSource.query(
        `SELECT c.account_id AS account_id, c.account_kind AS account_kind, c.rights AS rights ${from} ORDER BY ${orderBy} LIMIT ? OFFSET ?`,
        [entity.kind, entity.id, limit, offset],
      ) as Promise<Array<{ account_id: string; account_kind: AccountKind; rights: string }>>,
      this.dataSource.query(`SELECT COUNT(*) AS n ${from}`, [entity.kind, entity.id]) as Promise<Array<{ n: number | string }>>,
    ]);
    return {
      collaborators: rows.map((r) => ({ ids: { kind: r.account_kind, id: r.account_id }, rights: parseRights(r.rights) })),
      total: Number(counted[0]?.n ?? 0),
    };
  }

  async change(
    entity: CollaboratedRef,
    account: AccountRef,
    decide: (state: CollaboratorState) => Right[],
    now: string,
    { actor }: CollaboratorChangeOptions = {},
  ): Promise<CollaboratorChange> {
    const { table, id } = ENTITY_TABLES[entity.kind];
    const accounts = ACCOUNT_TABLES[account.kind];
    const member = [entity.kind, entity.id, account.id];
    const readsGrant = account.kind === 'organization' && actor !== undefined;
    return readThenWrite<CollaboratorChange>(
      this.dataSource,
      [
        // Locking the entity's row serialises every change of its collaborators.
        { sql: `SELECT fields FROM ${table} WHERE ${id} = ? AND deleted_at IS NULL`, params: [entity.id], lock: true },
        // Locked too: an organization's delete (refused while it collaborates) waits for the collaboration being written.
        { sql: `SELECT ${accounts.id} FROM ${accounts.table} WHERE ${accounts.id} = ? AND deleted_at IS NULL`, params: [account.id], lock: true },
        {
          sql: 'SELECT account_id, account_kind, rights FROM collaborators WHERE entity_kind = ? AND entity_id = ? ORDER BY account_id',
          params: [entity.kind, entity.id],
          lock: true,
        },
        // The actor's membership of the organization named (locked: a change of it waits, and a change of the organization's members locks its row first).
        ...(readsGrant
          ? [
              {
                sql: "SELECT rights FROM collaborators WHERE entity_kind = 'organization' AND entity_id = ? AND account_id = ?",
                params: [account.id, actor],
                lock: true,
              },
            ]
          : []),
      ],
      ([entityRows, accountRows, collaboratorRows, grantRows]) => {
        if (entityRows.length === 0) return { result: { outcome: 'entity_not_found' }, writes: [] };
        if (accountRows.length === 0) return { result: { outcome: 'account_not_found' }, writes: [] };
        const collaborators: Collaborator[] = collaboratorRows.map((r) => ({
          ids: { kind: String(r['account_kind']) as AccountKind, id: String(r['account_id']) },
          rights: parseRights(String(r['rights'])),
        }));
        const current = collaborators.find((c) => c.ids.id === account.id)?.rights;
        const state: CollaboratorState = { current, collaborators, contacts: contactsOf(entityRows[0]['fields']) };
        if (readsGrant) state.actorGrant = grantRows.length > 0 ? parseRights(String(grantRows[0]['rights'])) : [];
        const rights = decide(state);
        let write: Statement;
        if (rights.length === 0) {
          write = { sql: 'DELETE FROM collaborators WHERE entity_kind = ? AND entity_id = ? AND account_id = ?', params: member };
        } else if (current) {
          write = {
            sql: 'UPDATE collaborators SET rights = ?, updated_at = ? WHERE entity_kind = ? AND entity_id = ? AND account_id = ?',
            params: [JSON.stringify(rights), timestampToSql(now), ...member],
          };
        } else {
          write = insertCollaborator(entity.kind, entity.id, { ids: account, rights }, now);
        }
        return { result: { outcome: 'changed', previous: current }, writes: [write] };
      },
    );
  }
}
