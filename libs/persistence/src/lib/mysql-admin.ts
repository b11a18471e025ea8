import { createConnection } from 'mysql2/promise';

/** Creates the database named in a mysql:// URL if it does not exist (development, tests, compose). */
export async function ensureMysqlDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_]+$/.test(database)) throw new Error(`unsupported database name ${database}`);
  u.pathname = '/';
  const conn = await createConnection({ uri: u.toString() });
  try {
    await conn.query(`CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  } finally {
    await conn.end();
  }
}

export async function dropMysqlDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_]+$/.test(database)) throw new Error(`unsupported database name ${database}`);
  u.pathname = '/';
  const conn = await createConnection({ uri: u.toString() });
  try {
    await conn.query(`DROP DATABASE IF EXISTS \`${database}\``);
  } finally {
    await conn.end();
  }
}
