import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropMysqlDatabase, ensureMysqlDatabase, openDataSource } from '@lorawan/persistence';
import { TEST_MYSQL_URL, uniqueSuffix } from '@lorawan/testing';
import type { DataSource } from 'typeorm';
import { isDataSourceOptions } from '../../is-data-source';
import { TypeOrmApplicationStore } from '../applications/typeorm-application.store';
import { TypeOrmGatewayStore } from '../gateways/typeorm-gateway.store';
import { TypeOrmOrganizationStore } from '../organizations/typeorm-organization.store';
import { TypeOrmUserStore } from '../users/typeorm-user.store';
import { type CollaboratorStoresUnderTest, describeCollaboratorStoreConformance } from './collaborator.store.conformance';
import { TypeOrmCollaboratorStore } from './typeorm-collaborator.store';

function storesOn(ds: DataSource, close: () => Promise<void>): CollaboratorStoresUnderTest {
  return {
    users: new TypeOrmUserStore(ds),
    applications: new TypeOrmApplicationStore(ds),
    gateways: new TypeOrmGatewayStore(ds),
    organizations: new TypeOrmOrganizationStore(ds),
    collaborators: new TypeOrmCollaboratorStore(ds),
    close,
  };
}

describeCollaboratorStoreConformance('MySQL (TypeORM, mysql2)', async () => {
  const url = `${TEST_MYSQL_URL}/lw_${uniqueSuffix()}_is`;
  await ensureMysqlDatabase(url);
  const ds = await openDataSource(isDataSourceOptions({ databaseUrls: { is: url }, dataDir: '' }), true);
  return storesOn(ds, async () => {
    await ds.destroy();
    await dropMysqlDatabase(url);
  });
});

describeCollaboratorStoreConformance('SQLite (TypeORM, better-sqlite3)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lw-is-collaborators-'));
  const ds = await openDataSource(isDataSourceOptions({ databaseUrls: {}, dataDir: dir }), true);
  return storesOn(ds, async () => {
    await ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
});
