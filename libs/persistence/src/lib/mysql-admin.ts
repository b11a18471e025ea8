import { createConnection } from 'mysql2/promise';
import { type DatabaseTls, mysqlSslOptions } from './data-source';

/** Runs `statement(database)` on the server of a mysql:// URL, connected without selecting the database. */
async function onServer(url: string, statement: (database: string) => string, tls?: DatabaseTls): Promise<void> {
  const u = new URL(url);
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_]+$/.test(database)) throw new Error(`unsupported database name ${database}`);
  u.pathname = '/';
  const ssl = mysqlSslOptions(tls);
  const conn = await createConnection({ uri: u.toString(), ...(ssl ? { ssl } : {}) });
  try {
    await conn.query(statement(database));
  } finally {
    await conn.end();
  }
}

/** Creates the database named in a mysql:// URL if it does not exist (development, tests, compose). */
export function ensureMysqlDatabase(url: string, tls?: DatabaseTls): Promise<void> {
  return onServer(url, (db) => `CREATE DATABASE IF NOT EXISTS \`${db}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`, tls);
}

export function dropMysqlDatabase(url: string, tls?: DatabaseTls): Promise<void> {
  return onServer(url, (db) => `DROP DATABASE IF EXISTS \`${db}\``, tls);
}
