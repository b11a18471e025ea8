import type { DataSource } from 'typeorm';
import { isMysql } from './data-source';

/** What a statement gave: the rows of a SELECT, the number of rows an UPDATE/DELETE/INSERT changed. */
export interface StatementResult<Row> {
  rows: Row[];
  affected: number;
}

/** The part of mysql2's (callback) pool that TypeORM's MySQL driver holds. */
interface Mysql2Pool {
  execute(sql: string, values: unknown[], callback: (err: Error | null, result: unknown) => void): void;
}

/**
 * Runs one fixed statement of a hot path (a device read or written per uplink). On MySQL/MariaDB it
 * is a server-side prepared statement (mysql2 `execute`): the parameters travel in the binary
 * protocol, so a device's JSON document is neither escaped into the SQL text by the client nor
 * lexed by the server, and each pooled connection prepares the statement once. On SQLite it runs
 * through TypeORM. Errors are the driver's (`isDuplicateKeyError` and `isDatabaseUnavailable`
 * read both shapes). Parameters must not be `undefined` (use `null`).
 */
export async function runStatement<Row = Record<string, unknown>>(ds: DataSource, sql: string, params: unknown[]): Promise<StatementResult<Row>> {
  if (isMysql(ds)) {
    // Boundary: TypeORM keeps the mysql2 pool on its driver without typing it.
    const pool = (ds.driver as unknown as { pool?: Mysql2Pool }).pool;
    if (!ds.isInitialized || !pool) throw Object.assign(new Error('Connection is not established with mysql database'), { name: 'ConnectionIsNotSetError' });
    const result = await new Promise<unknown>((resolve, reject) => pool.execute(sql, params, (err, res) => (err ? reject(err) : resolve(res))));
    if (Array.isArray(result)) return { rows: result as Row[], affected: 0 };
    return { rows: [], affected: Number((result as { affectedRows?: number }).affectedRows ?? 0) };
  }
  const runner = ds.createQueryRunner();
  try {
    const result = await runner.query(sql, params, true);
    return { rows: (Array.isArray(result.records) ? result.records : []) as Row[], affected: result.affected ?? 0 };
  } finally {
    await runner.release();
  }
}
