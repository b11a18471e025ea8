import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { dropMysqlDatabase, ensureMysqlDatabase, openDataSource } from '@lorawan/persistence';
import { TEST_MYSQL_URL, uniqueSuffix } from '@lorawan/testing';
import { describeDeviceStoreConformance } from './device-store.conformance';
import { rawFieldsOf } from './registry-requests.conformance';
import { registryDataSourceOptions, type RegistryComponent } from './registry.providers';
import { TypeOrmDeviceStore } from './typeorm-device.store';

type Migrations = Parameters<typeof registryDataSourceOptions>[1];

/** A migrated database of a registry component: MySQL (own database) or SQLite (temporary file). */
export async function openTestDataSource(
  component: RegistryComponent,
  migrations: Migrations,
  driver: 'mysql' | 'sqlite',
): Promise<{ ds: DataSource; close(): Promise<void> }> {
  if (driver === 'mysql') {
    const url = `${TEST_MYSQL_URL}/lw_${uniqueSuffix()}_${component}`;
    await ensureMysqlDatabase(url);
    const ds = await openDataSource(registryDataSourceOptions(component, migrations, { databaseUrls: { [component]: url }, dataDir: '' }), true);
    return {
      ds,
      close: async () => {
        await ds.destroy();
        await dropMysqlDatabase(url);
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), `lw-${component}-`));
  const ds = await openDataSource(registryDataSourceOptions(component, migrations, { databaseUrls: {}, dataDir: dir }), true);
  return {
    ds,
    close: async () => {
      await ds.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs the store conformance suite against a component's schema on MySQL and on SQLite. */
export function describeRegistryStoreConformance(component: RegistryComponent, migrations: Migrations, uniqueEuis: boolean): void {
  for (const driver of ['mysql', 'sqlite'] as const) {
    describeDeviceStoreConformance(`${component} on ${driver === 'mysql' ? 'MySQL (TypeORM, mysql2)' : 'SQLite (TypeORM, better-sqlite3)'}`, async () => {
      const { ds, close } = await openTestDataSource(component, migrations, driver);
      return {
        store: new TypeOrmDeviceStore(ds),
        uniqueEuis,
        rawFields: (a, d) => rawFieldsOf(ds, a, d),
        close,
      };
    });
  }
}
