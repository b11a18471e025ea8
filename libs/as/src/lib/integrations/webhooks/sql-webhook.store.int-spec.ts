import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropMysqlDatabase, ensureMysqlDatabase, openDataSource } from '@lorawan/persistence';
import { registryDataSourceOptions } from '@lorawan/registry';
import { TEST_MYSQL_URL, uniqueSuffix } from '@lorawan/testing';
import { AS_MIGRATIONS } from '../../migrations';
import { describeWebhookStoreConformance } from './webhook.store.conformance';
import { SqlWebhookStore } from './webhook.store';

describeWebhookStoreConformance('MySQL (TypeORM, mysql2)', async () => {
  const url = `${TEST_MYSQL_URL}/lw_${uniqueSuffix()}_as`;
  await ensureMysqlDatabase(url);
  const ds = await openDataSource(registryDataSourceOptions('as', AS_MIGRATIONS, { databaseUrls: { as: url }, dataDir: '' }), true);
  return {
    store: new SqlWebhookStore(ds),
    close: async () => {
      await ds.destroy();
      await dropMysqlDatabase(url);
    },
  };
});

describeWebhookStoreConformance('SQLite (TypeORM, better-sqlite3)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lw-as-webhooks-'));
  const ds = await openDataSource(registryDataSourceOptions('as', AS_MIGRATIONS, { databaseUrls: {}, dataDir: dir }), true);
  return {
    store: new SqlWebhookStore(ds),
    close: async () => {
      await ds.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
