import type { DataSource } from 'typeorm';
import { IS_TEST_DATABASES, type OpenedDatabase, openIsMysql } from '../is-test-databases.conformance';
import { describeEndDeviceStoreConformance, device } from './end-device.store.conformance';
import { listSql, searchConditions, TypeOrmEndDeviceStore } from './typeorm-end-device.store';

for (const [name, open] of IS_TEST_DATABASES) {
  describeEndDeviceStoreConformance(name, async () => {
    const { ds, close } = await open();
    return { store: new TypeOrmEndDeviceStore(ds), close };
  });
}

describe('MySQL query plans: Get, every List order and the EUI lookup use indexes', () => {
  let db: OpenedDatabase;
  let ds: DataSource;
  beforeAll(async () => {
    db = await openIsMysql();
    ({ ds } = db);
    const store = new TypeOrmEndDeviceStore(ds);
    for (let a = 0; a < 4; a++) {
      await Promise.all(
        Array.from({ length: 250 }, (_, i) => {
          const hex = (a * 1000 + i).toString(16).toUpperCase().padStart(16, '0');
          return store.create(
            device(`app-${a}`, `dev-${i}`, {
              ids: { device_id: `dev-${i}`, application_ids: { application_id: `app-${a}` }, dev_eui: hex, join_eui: hex },
              name: `n${i % 17}`,
              description: `d${i % 13}`,
            }),
          );
        }),
      );
    }
    await ds.query('ANALYZE TABLE end_devices');
  });
  afterAll(async () => db.close());

  async function plan(sql: string, params: unknown[]): Promise<Array<{ table: string; type: string; key: string | null; Extra: string | null }>> {
    return ds.query(`EXPLAIN ${sql}`, params);
  }

  it('Get is a primary-key lookup', async () => {
    const [row] = await plan('SELECT * FROM end_devices WHERE application_id = ? AND device_id = ?', ['app-1', 'dev-7']);
    expect(row.type).toBe('const');
    expect(row.key).toBe('PRIMARY');
  });

  it('EUI lookup uses the unique (join_eui, dev_eui) index', async () => {
    const [row] = await plan('SELECT * FROM end_devices WHERE join_eui = ? AND dev_eui = ?', ['00000000000003E9', '00000000000003E9']);
    expect(row.key).toBe('uq_end_devices_join_eui_dev_eui');
  });

  it.each([
    ['device_id', 'PRIMARY'],
    ['name', 'idx_end_devices_app_name'],
    ['description', 'idx_end_devices_app_description'],
    ['created_at', 'idx_end_devices_app_created_at'],
    ['dev_eui', 'idx_end_devices_app_dev_eui'],
    ['join_eui', 'idx_end_devices_app_join_eui'],
  ] as const)('List by %s: the page is read from %s alone (no filesort), then its rows by primary key', async (order, index) => {
    for (const [descending, reversed] of [
      [false, false],
      [true, false],
      [false, true],
      [true, true],
    ]) {
      const rows = await plan(listSql('STRAIGHT_JOIN', order, descending, reversed), ['app-2', 100, 100, 'app-2']);
      const page = rows.find((r) => r.key === index && r.table === 'end_devices');
      expect(page?.Extra ?? '').toContain('Using index');
      expect(page?.Extra ?? '').not.toContain('filesort');
      const join = rows.find((r) => r.table === 'd');
      expect(join).toMatchObject({ type: 'eq_ref', key: 'PRIMARY' });
      expect(rows.indexOf(join as (typeof rows)[number])).toBeGreaterThan(rows.findIndex((r) => r.table === '<derived2>'));
    }
  });

  it('a search by ID or name, ordered by name, reads its page from the name index alone, then its rows by primary key', async () => {
    const where = searchConditions({ query: undefined, id_contains: 'dev-1', name_contains: 'N1' }, true);
    const rows = await plan(listSql('STRAIGHT_JOIN', 'name', false, false, where.sql), ['app-2', ...where.params, 100, 0, 'app-2']);
    const page = rows.find((r) => r.table === 'end_devices');
    expect(page).toMatchObject({ key: 'idx_end_devices_app_name' });
    expect(page?.Extra ?? '').toContain('Using index');
    expect(page?.Extra ?? '').not.toContain('filesort');
    expect(rows.find((r) => r.table === 'd')).toMatchObject({ type: 'eq_ref', key: 'PRIMARY' });
  });

  it.each([
    ['device_id', 'PRIMARY'],
    ['name', 'idx_end_devices_app_name'],
    ['description_key', 'idx_end_devices_app_description'],
    ['created_at', 'idx_end_devices_app_created_at'],
    ['dev_eui', 'idx_end_devices_app_dev_eui'],
    ['join_eui', 'idx_end_devices_app_join_eui'],
  ])('List ordered by %s walks %s without a filesort, both directions', async (column, index) => {
    for (const dir of ['ASC', 'DESC']) {
      const order = column === 'device_id' ? `device_id ${dir}` : `${column} ${dir}, device_id ${dir}`;
      const [row] = await plan(`SELECT * FROM end_devices WHERE application_id = ? ORDER BY ${order} LIMIT 100 OFFSET 100`, ['app-2']);
      expect(row.key).toBe(index);
      expect(row.Extra ?? '').not.toContain('filesort');
      expect(row.type).not.toBe('ALL');
    }
  });
});

describe.each(IS_TEST_DATABASES)('migration CreateEndDeviceCounts1732600007000 on %s', (_, open) => {
  it('fills the counts from the devices there are, and its down drops them', async () => {
    const db = await open();
    try {
      const store = new TypeOrmEndDeviceStore(db.ds);
      await store.createMany([device('app-m', 'dev-1'), device('app-m', 'dev-2'), device('app-m', 'dev-3')]);
      const executed = async () => ((await db.ds.query('SELECT name FROM migrations ORDER BY id')) as Array<{ name: string }>).map((m) => m.name);
      expect((await executed()).pop()).toBe('CreateEndDeviceCounts1732600007000');
      await db.ds.undoLastMigration({ transaction: 'each' });
      expect(await executed()).not.toContain('CreateEndDeviceCounts1732600007000');
      const runner = db.ds.createQueryRunner();
      try {
        expect(await runner.hasTable('end_device_counts')).toBe(false);
      } finally {
        await runner.release();
      }
      await db.ds.runMigrations({ transaction: 'each' });
      expect((await store.list('app-m', { order: 'device_id', descending: false, limit: 10, offset: 0 })).total).toBe(3);
    } finally {
      await db.close();
    }
  }, 30_000);
});
