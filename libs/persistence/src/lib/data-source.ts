import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, type DataSourceOptions, type EntitySchema, type MixedList } from 'typeorm';

export interface ComponentDataSourceOptions {
  /** Component name: the SQLite file name in embedded mode. */
  component: string;
  /** `mysql://…` in distributed mode; unset = SQLite file under `dataDir`. */
  url?: string;
  dataDir: string;
  entities: MixedList<string | (new () => unknown) | EntitySchema>;
  migrations: MixedList<string | (new () => unknown)>;
}

/**
 * One data source per component: MySQL/MariaDB through mysql2 when a URL is configured, else an
 * embedded SQLite file. Schema changes only through migrations (`synchronize` is never on).
 */
export function componentDataSourceOptions(options: ComponentDataSourceOptions): DataSourceOptions {
  const common = {
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    logging: false,
  } as const;
  if (options.url) {
    return {
      ...common,
      type: 'mysql',
      url: options.url,
      charset: 'utf8mb4_bin',
      timezone: 'Z',
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      extra: { connectionLimit: 32, enableKeepAlive: true },
    };
  }
  mkdirSync(options.dataDir, { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database: join(options.dataDir, `${options.component}.sqlite`),
    enableWAL: true,
    prepareDatabase: (db: { pragma(s: string): unknown }) => {
      db.pragma('busy_timeout = 5000');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
    },
  };
}

export async function openDataSource(options: ComponentDataSourceOptions, migrate: boolean): Promise<DataSource> {
  const ds = new DataSource(componentDataSourceOptions(options));
  await ds.initialize();
  if (migrate) await runMigrations(ds);
  return ds;
}

/**
 * Applies pending migrations. On MySQL, replicas starting together (or a migrate job racing a
 * pod) serialise on a named lock, so each migration runs once; the others then find nothing to do.
 */
export async function runMigrations(ds: DataSource): Promise<string[]> {
  if (!isMysql(ds)) return (await ds.runMigrations({ transaction: 'each' })).map((m) => m.name);
  const runner = ds.createQueryRunner();
  try {
    const [{ locked }] = (await runner.query(`SELECT GET_LOCK(CONCAT('migrations:', DATABASE()), 120) AS locked`)) as Array<{ locked: number | string }>;
    if (Number(locked) !== 1) throw new Error('could not take the migration lock within 120 s');
    try {
      return (await ds.runMigrations({ transaction: 'each' })).map((m) => m.name);
    } finally {
      await runner.query(`SELECT RELEASE_LOCK(CONCAT('migrations:', DATABASE()))`);
    }
  } finally {
    await runner.release();
  }
}

export function isMysql(ds: DataSource): boolean {
  return ds.options.type === 'mysql';
}
