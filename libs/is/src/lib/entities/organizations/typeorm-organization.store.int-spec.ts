import { IS_TEST_DATABASE_ENGINES, IS_TEST_DATABASES, type OpenedDatabase } from '../../is-test-databases.conformance';
import { CreateOrganizations1732600006000 } from '../../migrations/1732600006000-create-organizations';
import { TypeOrmApplicationStore } from '../applications/typeorm-application.store';
import { TypeOrmClientStore } from '../clients/typeorm-client.store';
import { TypeOrmCollaboratorStore } from '../collaborators/typeorm-collaborator.store';
import { TypeOrmUserStore } from '../users/typeorm-user.store';
import { describeOrganizationStoreConformance, type OrganizationStoresUnderTest } from './organization.store.conformance';
import { TypeOrmOrganizationStore } from './typeorm-organization.store';

const storesOn = ({ ds, close }: OpenedDatabase): OrganizationStoresUnderTest => ({
  users: new TypeOrmUserStore(ds),
  organizations: new TypeOrmOrganizationStore(ds),
  applications: new TypeOrmApplicationStore(ds),
  clients: new TypeOrmClientStore(ds),
  collaborators: new TypeOrmCollaboratorStore(ds),
  close,
});

for (const [name, open] of IS_TEST_DATABASES) describeOrganizationStoreConformance(name, async () => storesOn(await open()));

describe.each(IS_TEST_DATABASE_ENGINES)('%s: the organizations migration', (_, open) => {
  let opened: OpenedDatabase;
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
