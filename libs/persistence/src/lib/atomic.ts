import type { DataSource, QueryRunner } from 'typeorm';
import { isMysql } from './data-source';

/** One SQL statement with `?` placeholders (both drivers take them). */
export interface Statement {
  sql: string;
  params: ReadonlyArray<string | number | boolean | null | undefined>;
}

/** The part of better-sqlite3's `Database` used here. */
interface SqliteConnection {
  readonly inTransaction: boolean;
  transaction<T>(fn: () => T): () => T;
  prepare(sql: string): { run(...params: unknown[]): { changes: number }; all(...params: unknown[]): unknown[] };
}

/** How long a write waits for another transaction on the shared SQLite connection to finish. */
const SQLITE_BUSY_WAIT_MS = 5000;

/**
 * Runs statements as one transaction and answers the rows each one changed; nothing is applied if
 * one fails. On MySQL the statements run on a pooled connection of their own. On SQLite every
 * query shares the one connection TypeORM holds, so a transaction kept open across `await`s would
 * take in whatever else runs meanwhile: the statements run synchronously instead, in one
 * better-sqlite3 transaction, once no other transaction is open on the connection.
 */
export async function runAtomically(dataSource: DataSource, statements: readonly Statement[], options: TransactionOptions = {}): Promise<number[]> {
  if (!isMysql(dataSource)) return runOnSqlite(sqliteConnection(dataSource), statements);
  return retryingDeadlocks(() => runOnMysql(dataSource.createQueryRunner(), statements, options.isolation));
}

/**
 * MySQL transactions' isolation: REPEATABLE READ (the server's default) unless asked. A job
 * queue's transactions take READ COMMITTED, under which InnoDB locks the rows it reads and
 * writes but not the gaps between them, so concurrent inserts of new jobs do not deadlock with
 * the claims and settlements of due ones.
 */
export interface TransactionOptions {
  isolation?: 'READ COMMITTED';
}

/**
 * Runs `work` again when InnoDB picked it as a deadlock victim (up to DEADLOCK_ATTEMPTS tries,
 * each after a pause): for a transaction or a single statement racing others for the same rows.
 */
export async function retryingDeadlocks<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= DEADLOCK_ATTEMPTS || !isDeadlock(err)) throw err;
    }
    await deadlockPause(attempt);
  }
}

/** Tries of a transaction InnoDB picked as a deadlock victim (each after a pause, see `deadlockPause`). */
const DEADLOCK_ATTEMPTS = 5;

/**
 * Before another try of a deadlock victim: a random pause growing with the attempt (5–10 ms, then
 * 10–20 ms, …), so transactions that collided do not collide again in the same order at once.
 */
function deadlockPause(attempt: number): Promise<void> {
  const ms = 5 * attempt * (1 + Math.random());
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isDeadlock(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string } };
  return (e?.driverError?.code ?? e?.code) === 'ER_LOCK_DEADLOCK';
}

async function runOnMysql(runner: QueryRunner, statements: readonly Statement[], isolation?: TransactionOptions['isolation']): Promise<number[]> {
  try {
    await runner.startTransaction(isolation);
    const changed: number[] = [];
    for (const { sql, params } of statements) {
      const result = (await runner.query(sql, params.map(sqlValue), true)) as { affected?: number };
      changed.push(result.affected ?? 0);
    }
    await runner.commitTransaction();
    return changed;
  } catch (err) {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    throw err;
  } finally {
    await runner.release();
  }
}

async function runOnSqlite(db: SqliteConnection, statements: readonly Statement[]): Promise<number[]> {
  await waitForSqlite(db);
  const run = db.transaction(() => statements.map(({ sql, params }) => db.prepare(sql).run(...params.map(sqlValue)).changes));
  return run();
}

/** What SQLite itself raises after its busy timeout, so callers classify both alike (`isDatabaseUnavailable`). */
function sqliteBusy(): Error {
  return Object.assign(new Error('another transaction kept the SQLite connection busy'), { code: 'SQLITE_BUSY' });
}

function sqliteConnection(dataSource: DataSource): SqliteConnection {
  // Boundary: TypeORM keeps the better-sqlite3 connection on its driver without typing it.
  return (dataSource.driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection;
}

/** Booleans as 0/1 and undefined as NULL: what both drivers bind. */
function sqlValue(value: string | number | boolean | null | undefined): string | number | null {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/**
 * A read of `readThenWrite`; `lock` makes it a locking read on MySQL (`FOR UPDATE`; SQLite
 * transactions are serial anyway). `'skip-locked'` (`FOR UPDATE SKIP LOCKED`, MySQL 8 and MariaDB
 * 10.6 on) passes over rows other transactions hold, as a job queue's claim does: it never waits
 * on a concurrent insert, so it cannot deadlock with one.
 */
export interface Read extends Statement {
  lock?: boolean | 'skip-locked';
}

/**
 * Reads, decides and writes as one transaction: `decide` gets the rows of each read (as `Row`: the
 * caller names the columns its SELECT reads; the drivers answer untyped rows) and answers a
 * result and the statements to apply; when it throws, nothing is written and the error propagates.
 * `decide` is synchronous, so on SQLite the whole runs as one better-sqlite3 transaction (see
 * `runAtomically`); on MySQL the locking reads hold their rows until the commit, so two
 * transactions deciding on the same rows run one after the other.
 */
export async function readThenWrite<T, Row = Record<string, unknown>>(
  dataSource: DataSource,
  reads: readonly Read[],
  decide: (rows: Row[][]) => { result: T; writes: readonly Statement[] },
  options: TransactionOptions = {},
): Promise<T> {
  if (!isMysql(dataSource)) {
    const db = sqliteConnection(dataSource);
    await waitForSqlite(db);
    const run = db.transaction(() => {
      const rows = reads.map(({ sql, params }) => db.prepare(sql).all(...params.map(sqlValue)) as Row[]);
      const { result, writes } = decide(rows);
      for (const { sql, params } of writes) db.prepare(sql).run(...params.map(sqlValue));
      return result;
    });
    return run();
  }
  return retryingDeadlocks(async () => {
    const runner = dataSource.createQueryRunner();
    try {
      await runner.startTransaction(options.isolation);
      const rows: Row[][] = [];
      for (const { sql, params, lock } of reads) rows.push((await runner.query(lockingRead(sql, lock), params.map(sqlValue))) as Row[]);
      const { result, writes } = decide(rows);
      for (const { sql, params } of writes) await runner.query(sql, params.map(sqlValue));
      await runner.commitTransaction();
      return result;
    } catch (err) {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      throw err;
    } finally {
      await runner.release();
    }
  });
}

function lockingRead(sql: string, lock: Read['lock']): string {
  if (lock === 'skip-locked') return `${sql} FOR UPDATE SKIP LOCKED`;
  return lock ? `${sql} FOR UPDATE` : sql;
}

async function waitForSqlite(db: SqliteConnection): Promise<void> {
  const deadline = Date.now() + SQLITE_BUSY_WAIT_MS;
  while (db.inTransaction) {
    if (Date.now() > deadline) throw sqliteBusy();
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
