import type { DataSource } from 'typeorm';
import { TypeOrmEndDeviceStore } from '../end-devices/typeorm-end-device.store';
import { IS_TEST_DATABASE_ENGINES, IS_TEST_DATABASES, type OpenedDatabase, testGatewaySecrets, openIsMysql } from '../is-test-databases.conformance';
import { CreateIdentityEntities1732600000000 } from '../migrations/1732600000000-create-identity-entities';
import { TypeOrmApplicationStore } from './applications/typeorm-application.store';
import { TypeOrmCollaboratorStore } from './collaborators/typeorm-collaborator.store';
import { TypeOrmGatewayStore } from './gateways/typeorm-gateway.store';
import { describeIdentityStoreConformance, type IdentityStoresUnderTest } from './identity.store.conformance';
import { TypeOrmUserStore } from './users/typeorm-user.store';

function storesOn({ ds, close }: OpenedDatabase): IdentityStoresUnderTest {
  const devices = new TypeOrmEndDeviceStore(ds);
  return {
    users: new TypeOrmUserStore(ds),
    applications: new TypeOrmApplicationStore(ds),
    gateways: new TypeOrmGatewayStore(ds, testGatewaySecrets()),
    collaborators: new TypeOrmCollaboratorStore(ds),
    addDevice: async (applicationId, deviceId) => {
      const now = '2024-05-01T10:00:00.000000Z';
      await devices.create({ ids: { device_id: deviceId, application_ids: { application_id: applicationId } }, created_at: now, updated_at: now });
    },
    removeDevice: async (applicationId, deviceId) => {
      await devices.delete(applicationId, deviceId);
    },
    close,
  };
}

for (const [name, open] of IS_TEST_DATABASES) describeIdentityStoreConformance(name, async () => storesOn(await open()));

describe.each(IS_TEST_DATABASE_ENGINES)('%s: the identity migration', (_, open) => {
  let ds: DataSource;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ ds, close } = await open());
  });
  afterAll(async () => close());

  it('goes down and up again', async () => {
    const migration = new CreateIdentityEntities1732600000000();
    const runner = ds.createQueryRunner();
    try {
      await migration.down(runner);
      for (const table of ['users', 'applications', 'gateways', 'collaborators']) expect(await runner.hasTable(table)).toBe(false);
      await migration.up(runner);
      for (const table of ['users', 'applications', 'gateways', 'collaborators']) expect(await runner.hasTable(table)).toBe(true);
    } finally {
      await runner.release();
    }
  });
});

describe('MySQL query plans: Lists of live entities walk an index without sorting', () => {
  let ds: DataSource;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ ds, close } = await openIsMysql());
    // Enough rows (a tenth of them deleted) that walking an index beats a scan and a sort.
    for (let batch = 0; batch < 10; batch++) {
      const rows = Array.from({ length: 500 }, (_, i) => {
        const n = batch * 500 + i;
        const at = new Date(Date.UTC(2024, 4, 1) + n * 1000).toISOString().replace('T', ' ').replace('Z', '000');
        return [`app-${n}`, `n${n % 17}`, at, at, n % 10 === 0 ? at : null, '{}'];
      });
      await ds.query(
        `INSERT INTO applications (application_id, name, created_at, updated_at, deleted_at, fields) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
        rows.flat(),
      );
    }
    await ds.query('ANALYZE TABLE applications');
  });
  afterAll(async () => close());

  it.each([
    ['application_id', 'idx_applications_deleted'],
    ['name', 'idx_applications_deleted_name'],
    ['created_at', 'idx_applications_deleted_created_at'],
  ])('ordered by %s: %s', async (column, index) => {
    const order = column === 'application_id' ? 'application_id' : `${column}, application_id`;
    const [row] = (await ds.query(`EXPLAIN SELECT * FROM applications WHERE deleted_at IS NULL ORDER BY ${order} LIMIT 100 OFFSET 100`)) as Array<{
      key: string | null;
      Extra: string | null;
    }>;
    expect(row.key).toBe(index);
    expect(row.Extra ?? '').not.toContain('filesort');
  });
});
