/**
 * Test support for the integration specs: a fresh, migrated Identity Server database on MySQL or
 * SQLite, and how to drop it again. Named `.conformance.ts` so the build leaves it out and Jest
 * does not run it as a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropMysqlDatabase, ensureMysqlDatabase, openDataSource } from '@lorawan/persistence';
import { TEST_MYSQL_URL, uniqueSuffix } from '@lorawan/testing';
import type { DataSource } from 'typeorm';
import { isDataSourceOptions } from './is-data-source';
import { KeyVault, SecretBox } from '@lorawan/crypto';

/** A migrated IS database; `close` destroys the data source and drops the database. */
export interface OpenedDatabase {
  ds: DataSource;
  close(): Promise<void>;
}

export type OpenIsDatabase = () => Promise<OpenedDatabase>;

/** A database of its own on the test MariaDB server (TEST_MYSQL_URL). */
export async function openIsMysql(): Promise<OpenedDatabase> {
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

/** A SQLite file in a temporary directory of its own. */
export async function openIsSqlite(): Promise<OpenedDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'lw-is-'));
  const ds = await openDataSource(isDataSourceOptions({ databaseUrls: {}, dataDir: dir }), true);
  return {
    ds,
    close: async () => {
      await ds.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Both databases, named as the store conformance suites name them. */
export const IS_TEST_DATABASES: ReadonlyArray<[name: string, open: OpenIsDatabase]> = [
  ['MySQL (TypeORM, mysql2)', openIsMysql],
  ['SQLite (TypeORM, better-sqlite3)', openIsSqlite],
];

/** Both databases by their short names, for the suites that are not store conformance suites. */
export const IS_TEST_DATABASE_ENGINES: ReadonlyArray<[engine: string, open: OpenIsDatabase]> = [
  ['MySQL', openIsMysql],
  ['SQLite', openIsSqlite],
];

/** Gateway secrets sealed with a test KEK, as the IS does with `IS_KEK_LABEL` set. */
export const testGatewaySecrets = (): SecretBox => new SecretBox(new KeyVault(new Map([['is-test', Buffer.alloc(32, 7)]])), 'is-test');
