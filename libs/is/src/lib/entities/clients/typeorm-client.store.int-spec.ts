import { IS_TEST_DATABASE_ENGINES, IS_TEST_DATABASES, type OpenedDatabase } from '../../is-test-databases.conformance';
import { CreateClients1732600005000 } from '../../migrations/1732600005000-create-clients';
import { TypeOrmCollaboratorStore } from '../collaborators/typeorm-collaborator.store';
import { TypeOrmUserStore } from '../users/typeorm-user.store';
import { type ClientStoresUnderTest, describeClientStoreConformance } from './client.store.conformance';
import { TypeOrmClientStore } from './typeorm-client.store';

const storesOn = ({ ds, close }: OpenedDatabase): ClientStoresUnderTest => ({
  users: new TypeOrmUserStore(ds),
  clients: new TypeOrmClientStore(ds),
  collaborators: new TypeOrmCollaboratorStore(ds),
  close,
});

for (const [name, open] of IS_TEST_DATABASES) describeClientStoreConformance(name, async () => storesOn(await open()));

describe.each(IS_TEST_DATABASE_ENGINES)('%s: the clients migration', (_, open) => {
  let opened: OpenedDatabase;
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
