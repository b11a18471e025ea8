import type { DataSource } from 'typeorm';
import { timestampToSql } from '@lorawan/api';
import { isDuplicateKeyError } from '@lorawan/persistence';
import { deleteCollaboratorsOfPurged, insertCollaborator } from '../collaborators/typeorm-collaborator.store';
import type { Collaborator } from '../collaborators/collaborator.model';
import { runAtomically } from '@lorawan/persistence';
import type { EntityListQuery, Scope } from '../common/entity-list';
import { EntityTable } from '../common/entity-table';
import { ApplicationEntity } from './application.entity';
import { toDomain, toEntity } from './application.mapper';
import type { ApplicationCreateResult, ApplicationOrder, ApplicationStore, IsApplication, RemovalResult } from './application.model';

const ORDER_COLUMNS: Record<ApplicationOrder, string> = { application_id: 'application_id', name: 'name', created_at: 'created_at' };

const INSERT_SQL = 'INSERT INTO applications (application_id, name, created_at, updated_at, deleted_at, fields) VALUES (?, ?, ?, ?, NULL, ?)';
/** The IS's end devices of the application: the store refuses to remove an application that has some. */
const NO_DEVICES = 'NOT EXISTS (SELECT 1 FROM end_devices d WHERE d.application_id = ?)';
const SOFT_DELETE_SQL = `UPDATE applications SET deleted_at = ? WHERE application_id = ? AND deleted_at IS NULL AND ${NO_DEVICES}`;
const PURGE_SQL = `DELETE FROM applications WHERE application_id = ? AND ${NO_DEVICES}`;
/** A purged application's device count (its shards sum to zero) goes with it, in the purge's transaction. */
const PURGE_COUNT_SQL = 'DELETE FROM end_device_counts WHERE application_id = ? AND NOT EXISTS (SELECT 1 FROM applications a WHERE a.application_id = ?)';
/** The count the end-device store keeps (see `TypeOrmEndDeviceStore`). */
const DEVICE_COUNT_SQL = 'SELECT COALESCE(SUM(device_count), 0) AS total FROM end_device_counts WHERE application_id = ?';
/** A removal that found nothing to change may have lost a race with a device's removal: it checks again this often. */
const REMOVAL_ATTEMPTS = 3;

export class TypeOrmApplicationStore implements ApplicationStore {
  private readonly table: EntityTable<ApplicationEntity, ApplicationOrder>;

  constructor(private readonly dataSource: DataSource) {
    this.table = new EntityTable(dataSource, ApplicationEntity, {
      table: 'applications',
      id: 'application_id',
      kind: 'application',
      orderColumns: ORDER_COLUMNS,
    });
  }

  async create(application: IsApplication, collaborator: Collaborator): Promise<ApplicationCreateResult> {
    const row = toEntity(application);
    const id = row.application_id;
    try {
      await runAtomically(this.dataSource, [
        { sql: INSERT_SQL, params: [id, row.name, timestampToSql(row.created_at), timestampToSql(row.updated_at), row.fields] },
        insertCollaborator('application', id, collaborator, application.created_at),
      ]);
      return { ok: true };
    } catch (err) {
      // The collaborator can only collide through its application, so a duplicate is the ID.
      if (isDuplicateKeyError(err) && (await this.table.find(id, 'any'))) return { ok: false, conflict: 'id' };
      throw err;
    }
  }

  exists(applicationId: string): Promise<boolean> {
    return this.table.exists(applicationId);
  }

  async get(applicationId: string, scope?: Scope): Promise<IsApplication | undefined> {
    const row = await this.table.find(applicationId, scope);
    return row ? toDomain(row) : undefined;
  }

  async list(query: EntityListQuery<ApplicationOrder>): Promise<{ applications: IsApplication[]; total: number }> {
    const { rows, total } = await this.table.list(query);
    return { applications: rows.map(toDomain), total };
  }

  async replace(application: IsApplication, expectedUpdatedAt: string): Promise<boolean> {
    const { name, updated_at, fields } = toEntity(application);
    return this.table.replace(application.ids.application_id, { name, updated_at, fields }, expectedUpdatedAt);
  }

  async deviceCount(applicationId: string): Promise<number> {
    const [row] = (await this.dataSource.query(DEVICE_COUNT_SQL, [applicationId])) as Array<{ total: number | string }>;
    return Number(row?.total ?? 0);
  }

  async softDelete(applicationId: string, deletedAt: string): Promise<RemovalResult> {
    return this.removeUnlessDevices(applicationId, 'active', async () => {
      const [changed] = await runAtomically(this.dataSource, [{ sql: SOFT_DELETE_SQL, params: [timestampToSql(deletedAt), applicationId, applicationId] }]);
      return changed > 0;
    });
  }

  async restore(applicationId: string): Promise<boolean> {
    return this.table.restore(applicationId);
  }

  async purge(applicationId: string): Promise<RemovalResult> {
    return this.removeUnlessDevices(applicationId, 'any', async () => {
      const [changed] = await runAtomically(this.dataSource, [
        { sql: PURGE_SQL, params: [applicationId, applicationId] },
        { sql: PURGE_COUNT_SQL, params: [applicationId, applicationId] },
        deleteCollaboratorsOfPurged('application', applicationId),
      ]);
      return changed > 0;
    });
  }

  /** Runs a removal that is conditional on the application having no devices, and tells why it did nothing. */
  private async removeUnlessDevices(applicationId: string, scope: Scope, remove: () => Promise<boolean>): Promise<RemovalResult> {
    for (let attempt = 0; attempt < REMOVAL_ATTEMPTS; attempt++) {
      if (await remove()) return { ok: true };
      if (!(await this.table.find(applicationId, scope))) return { ok: false, reason: 'not_found' };
      const count = await this.deviceCount(applicationId);
      if (count > 0) return { ok: false, reason: 'has_devices', count };
    }
    throw new Error(`application ${applicationId}: removal kept failing without devices`);
  }
}
