import type { DataSource } from 'typeorm';
import { timestampToSql } from '@lorawan/api';
import { runAtomically } from '@lorawan/persistence';
import { deleteCollaboratorsOfPurged } from '../collaborators/typeorm-collaborator.store';
import type { Collaborator } from '../collaborators/collaborator.model';
import type { EntityListQuery, Scope } from '../common/entity-list';
import { TypeOrmEntityStore } from '../registry/typeorm-entity.store';
import { ApplicationEntity } from './application.entity';
import { toDomain, toEntity } from './application.mapper';
import type { ApplicationCreateResult, ApplicationOrder, ApplicationStore, IsApplication, RemovalResult } from './application.model';

const ORDER_COLUMNS: Record<ApplicationOrder, string> = { application_id: 'application_id', name: 'name', created_at: 'created_at' };

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

export class TypeOrmApplicationStore extends TypeOrmEntityStore<ApplicationEntity, IsApplication, ApplicationOrder> implements ApplicationStore {
  constructor(dataSource: DataSource) {
    super(
      dataSource,
      ApplicationEntity,
      { table: 'applications', id: 'application_id', kind: 'application', orderColumns: ORDER_COLUMNS, columns: ['application_id', 'name'] },
      toDomain,
    );
  }

  create(application: IsApplication, collaborator: Collaborator): Promise<ApplicationCreateResult> {
    // The collaborator can only collide through its application, so a duplicate is the ID.
    return this.insertWithCollaborator('application', toEntity(application), collaborator);
  }

  async list(query: EntityListQuery<ApplicationOrder>): Promise<{ applications: IsApplication[]; total: number }> {
    const { entities, total } = await this.page(query);
    return { applications: entities, total };
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
