import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropMysqlDatabase, ensureMysqlDatabase, openDataSource } from '@lorawan/persistence';
import { TEST_MYSQL_URL, uniqueSuffix } from '@lorawan/testing';
import type { DataSource } from 'typeorm';
import { isDataSourceOptions } from '../../is-data-source';
import { CreateClients1732600005000 } from '../../migrations/1732600005000-create-clients';
import { TypeOrmCollaboratorStore } from '../collaborators/typeorm-collaborator.store';
import { TypeOrmUserStore } from '../users/typeorm-user.store';
import { type ClientStoresUnderTest, describeClientStoreConformance } from './client.store.conformance';
import { TypeOrmClientStore } from './typeorm-client.store';

interface Opened {
  ds: DataSource;
  close: () => Promise<void>;
}

async function openMysql(): Promise<Opened> {
  const url = `${TEST_MYSQL_URL}/lw_${uniqueSuffix()}_is`;
  await ensureMysqlDatabase(url);
  const ds = await openDataSource(isDataSourceOptions({ databaseUrls: { is: url }, dataDir: '' }), true);
  return {
    ds,
    close: async () => {
      await ds.destroy();
      await dropMysqlDatabase(url);
    },
  };
}

async function openSqlite(): Promise<Opened> {
  const dir = mkdtempSync(join(tmpdir(), 'lw-is-clients-'));
  const ds = await openDataSource(isDataSourceOptions({ databaseUrls: {}, dataDir: dir }), true);
  return {
    ds,
    close: async () => {
      await ds.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const storesOn = ({ ds, close }: Opened): ClientStoresUnderTest => ({
  users: new TypeOrmUserStore(ds),
  clients: new TypeOrmClientStore(ds),
  collaborators: new TypeOrmCollaboratorStore(ds),
  close,
});

describeClientStoreConformance('MySQL (TypeORM, mysql2)', async () => storesOn(await openMysql()));
describeClientStoreConformance('SQLite (TypeORM, better-sqlite3)', async () => storesOn(await openSqlite()));

describe.each([
  ['MySQL', openMysql],
  ['SQLite', openSqlite],
])('%s: the clients migration', (_, open) => {
  let opened: Opened;
  beforeAll(async () => {
    opened = await open();
  });
  afterAll(async () => opened.close());

  it('goes down and up again', async () => {
    const migration = new CreateClients1732600005000();
    const runner = opened.ds.createQueryRunner();
    try {
      await migration.down(runner);
      expect(await runner.hasTable('clients')).toBe(false);
      await migration.up(runner);
      expect(await runner.hasTable('clients')).toBe(true);
    } finally {
      await runner.release();
    }
  });
});
