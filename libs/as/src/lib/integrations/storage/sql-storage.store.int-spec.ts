import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropMysqlDatabase, ensureMysqlDatabase, openDataSource } from '@lorawan/persistence';
import { registryDataSourceOptions } from '@lorawan/registry';
import { TEST_MYSQL_URL, uniqueSuffix } from '@lorawan/testing';
import type { DataSource } from 'typeorm';
import { AS_MIGRATIONS } from '../../migrations';
import { SqlPackageAssociationStore } from '../packages/package-association.store';
import { describeStorageStoresConformance } from './stored-up.store.conformance';
import { SqlStoredUpStore } from './stored-up.store';

const stores = (ds: DataSource) => ({ stored: new SqlStoredUpStore(ds), associations: new SqlPackageAssociationStore(ds) });

describeStorageStoresConformance('MySQL (TypeORM, mysql2)', async () => {
  const url = `${TEST_MYSQL_URL}/lw_${uniqueSuffix()}_as`;
  await ensureMysqlDatabase(url);
  const ds = await openDataSource(registryDataSourceOptions('as', AS_MIGRATIONS, { databaseUrls: { as: url }, dataDir: '' }), true);
  return {
    ...stores(ds),
    close: async () => {
      await ds.destroy();
      await dropMysqlDatabase(url);
    },
  };
});

describeStorageStoresConformance('SQLite (TypeORM, better-sqlite3)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lw-as-storage-'));
  const ds = await openDataSource(registryDataSourceOptions('as', AS_MIGRATIONS, { databaseUrls: {}, dataDir: dir }), true);
  return {
    ...stores(ds),
    close: async () => {
      await ds.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
