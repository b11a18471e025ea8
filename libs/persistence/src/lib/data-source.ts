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
  if (migrate) await ds.runMigrations({ transaction: 'each' });
  return ds;
}

export function isMysql(ds: DataSource): boolean {
  return ds.options.type === 'mysql';
}
