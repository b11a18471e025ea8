import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropMysqlDatabase, ensureMysqlDatabase, openDataSource } from '@lorawan/persistence';
import { TEST_MYSQL_URL, uniqueSuffix } from '@lorawan/testing';
import type { DataSource } from 'typeorm';
import { isDataSourceOptions } from '../../is-data-source';
import { CreateOrganizations1732600006000 } from '../../migrations/1732600006000-create-organizations';
import { TypeOrmApplicationStore } from '../applications/typeorm-application.store';
import { TypeOrmClientStore } from '../clients/typeorm-client.store';
import { TypeOrmCollaboratorStore } from '../collaborators/typeorm-collaborator.store';
import { TypeOrmUserStore } from '../users/typeorm-user.store';
import { describeOrganizationStoreConformance, type OrganizationStoresUnderTest } from './organization.store.conformance';
import { TypeOrmOrganizationStore } from './typeorm-organization.store';

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
  const dir = mkdtempSync(join(tmpdir(), 'lw-is-organizations-'));
  const ds = await openDataSource(isDataSourceOptions({ databaseUrls: {}, dataDir: dir }), true);
  return {
    ds,
    close: async () => {
      await ds.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const storesOn = ({ ds, close }: Opened): OrganizationStoresUnderTest => ({
  users: new TypeOrmUserStore(ds),
  organizations: new TypeOrmOrganizationStore(ds),
  applications: new TypeOrmApplicationStore(ds),
  clients: new TypeOrmClientStore(ds),
  collaborators: new TypeOrmCollaboratorStore(ds),
  close,
});

describeOrganizationStoreConformance('MySQL (TypeORM, mysql2)', async () => storesOn(await openMysql()));
describeOrganizationStoreConformance('SQLite (TypeORM, better-sqlite3)', async () => storesOn(await openSqlite()));

describe.each([
  ['MySQL', openMysql],
  ['SQLite', openSqlite],
])('%s: the organizations migration', (_, open) => {
  let opened: Opened;
  beforeAll(async () => {
    opened = await open();
  });
  afterAll(async () => opened.close());

  it('goes down and up again, claiming the IDs of existing users', async () => {
    const migration = new CreateOrganizations1732600006000();
    const runner = opened.ds.createQueryRunner();
    try {
      await migration.down(runner);
      expect(await runner.hasTable('organizations')).toBe(false);
      expect(await runner.hasTable('accounts')).toBe(false);
      await runner.query(
        "INSERT INTO users (user_id, primary_email_address, name, admin, state, created_at, updated_at, fields) VALUES ('mig-user', 'mig@example.com', '', 0, 1, '2024-05-01 10:00:00.000000', '2024-05-01 10:00:00.000000', '{}')",
      );
      await migration.up(runner);
      expect(await runner.hasTable('organizations')).toBe(true);
      expect(await runner.query("SELECT account_kind FROM accounts WHERE account_id = 'mig-user'")).toEqual([{ account_kind: 'user' }]);
    } finally {
      await runner.release();
    }
  });
});
