import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropMysqlDatabase, ensureMysqlDatabase, openDataSource } from '@lorawan/persistence';
import { TEST_MYSQL_URL, uniqueSuffix } from '@lorawan/testing';
import type { DataSource } from 'typeorm';
import { isDataSourceOptions } from '../is-data-source';
import { describeEndDeviceStoreConformance, device } from './end-device.store.conformance';
import { TypeOrmEndDeviceStore } from './typeorm-end-device.store';

describeEndDeviceStoreConformance('MySQL (TypeORM, mysql2)', async () => {
  const url = `${TEST_MYSQL_URL}/lw_${uniqueSuffix()}_is`;
  await ensureMysqlDatabase(url);
  const ds = await openDataSource(isDataSourceOptions({ databaseUrls: { is: url }, dataDir: '' }), true);
  return {
    store: new TypeOrmEndDeviceStore(ds),
    close: async () => {
      await ds.destroy();
      await dropMysqlDatabase(url);
    },
  };
});

describeEndDeviceStoreConformance('SQLite (TypeORM, better-sqlite3)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lw-is-'));
  const ds = await openDataSource(isDataSourceOptions({ databaseUrls: {}, dataDir: dir }), true);
  return {
    store: new TypeOrmEndDeviceStore(ds),
    close: async () => {
      await ds.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('MySQL query plans: Get, every List order and the EUI lookup use indexes', () => {
  let ds: DataSource;
  const url = `${TEST_MYSQL_URL}/lw_${uniqueSuffix()}_is`;
  beforeAll(async () => {
    await ensureMysqlDatabase(url);
    ds = await openDataSource(isDataSourceOptions({ databaseUrls: { is: url }, dataDir: '' }), true);
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
  afterAll(async () => {
    await ds.destroy();
    await dropMysqlDatabase(url);
  });

  async function plan(sql: string, params: unknown[]): Promise<Array<{ type: string; key: string | null; Extra: string | null }>> {
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
