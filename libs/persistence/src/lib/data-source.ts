import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, type DataSourceOptions, type EntitySchema, type MixedList } from 'typeorm';

export interface ComponentDataSourceOptions {
  /** Component name: the SQLite file name in embedded mode. */
  component: string;
  /** `mysql://…` in distributed mode; unset = SQLite file under `dataDir`. */
  url?: string;
  /** TLS of the MySQL connections (DB_TLS_*): the CA the server's certificate is verified against, an optional client certificate. */
  tls?: DatabaseTls;
  dataDir: string;
  entities: MixedList<string | (new () => unknown) | EntitySchema>;
  migrations: MixedList<string | (new () => unknown)>;
}

/** PEM files of a MySQL TLS client (DB_TLS_CA_FILE, DB_TLS_CERT_FILE, DB_TLS_KEY_FILE). */
export interface DatabaseTls {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

/**
 * mysql2's `ssl` option for DB_TLS_*: the server's certificate verified against the CA (and its
 * name against the URL's host), a client certificate when given. Undefined without TLS settings.
 */
export function mysqlSslOptions(tls: DatabaseTls | undefined): { ca?: Buffer; cert?: Buffer; key?: Buffer; rejectUnauthorized: true } | undefined {
  if (!tls || (!tls.caFile && !tls.certFile)) return undefined;
  return {
    ...(tls.caFile ? { ca: readFileSync(tls.caFile) } : {}),
    ...(tls.certFile ? { cert: readFileSync(tls.certFile) } : {}),
    ...(tls.keyFile ? { key: readFileSync(tls.keyFile) } : {}),
    rejectUnauthorized: true,
  };
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
    const ssl = mysqlSslOptions(options.tls);
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
      ...(ssl ? { ssl } : {}),
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
