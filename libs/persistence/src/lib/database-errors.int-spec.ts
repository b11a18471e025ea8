import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PrivateService, startPrivateMariaDb } from '@lorawan/testing';
import { DataSource, type QueryRunner } from 'typeorm';
import type { MysqlConnectionOptions } from 'typeorm/driver/mysql/MysqlConnectionOptions';
import { runAtomically } from './atomic';
import { componentDataSourceOptions, openDataSource } from './data-source';
import { DatabaseHealthIndicator } from './database-health';
import { isDatabaseUnavailable } from './database-errors';
import { ensureMysqlDatabase } from './mysql-admin';

/**
 * The errors the drivers really raise when the database goes away, is overloaded or refuses input,
 * produced against a MariaDB of this suite's own (SIGKILLed, shut down, frozen, overloaded) and
 * against SQLite files, with what `isDatabaseUnavailable` says of each. `database-errors.spec.ts`
 * holds the same shapes as fixtures.
 */

/** The fields an error is classified by (`driverError` for TypeORM's QueryFailedError). */
function shapeOf(err: unknown): Record<string, unknown> {
  const e = err as Record<string, unknown>;
  const shape: Record<string, unknown> = { name: e.name, code: e.code, errno: e.errno, message: e.message };
  if (e.driverError) shape.driverError = shapeOf(e.driverError);
  return shape;
}

/** The error a promise rejects with (the test fails if it resolves). */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
    },
    (err: unknown) => err,
  );
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** mysql2's pool behind a TypeORM DataSource: how many connections it holds (white box, for the dead-connection question). */
function poolSize(ds: DataSource): number {
  const pool = (ds.driver as unknown as { pool?: { _allConnections: { length: number } } }).pool;
  return pool?._allConnections.length ?? 0;
}

/** TypeORM logs slow queries (over `maxQueryExecutionTime`) even with `logging: false`. */
const none = () => undefined;
const silent = { logQuery: none, logQueryError: none, logQuerySlow: none, logSchemaBuild: none, logMigration: none, log: none };

describe('isDatabaseUnavailable on MariaDB (a private server)', () => {
  let db: PrivateService;
  let url: string;
  let ds: DataSource;
  const options = () => ({ component: 'faults', url, dataDir: '', entities: [], migrations: [] });
  /** The components' MySQL options, to change a setting they do not expose. */
  const mysqlOptions = () => componentDataSourceOptions(options()) as MysqlConnectionOptions;

  beforeAll(async () => {
    db = await startPrivateMariaDb();
    url = `${db.url}/faults`;
    await ensureMysqlDatabase(url);
    ds = await openDataSource(options(), false);
    await ds.query('CREATE TABLE things (id INT PRIMARY KEY, name VARCHAR(4) NOT NULL) ENGINE=InnoDB');
    await ds.query(`INSERT INTO things VALUES (1, 'a'), (2, 'b')`);
  });
  // A test that failed half-way must not leave the server down for the next ones.
  afterEach(async () => {
    if (!db.running) await db.start();
  });
  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy().catch(() => undefined);
    await db?.stop();
  });

  it('is false for bad input and bugs: duplicate key, data too long, syntax, unknown table, wrong credentials', async () => {
    const cases: Array<[() => Promise<unknown>, object]> = [
      [() => ds.query(`INSERT INTO things VALUES (1, 'x')`), { name: 'QueryFailedError', code: 'ER_DUP_ENTRY', errno: 1062 }],
      [() => ds.query(`INSERT INTO things VALUES (3, 'xxxxx')`), { name: 'QueryFailedError', code: 'ER_DATA_TOO_LONG', errno: 1406 }],
      [() => ds.query('SELEC 1'), { name: 'QueryFailedError', code: 'ER_PARSE_ERROR', errno: 1064 }],
      [() => ds.query('SELECT * FROM nothing'), { name: 'QueryFailedError', code: 'ER_NO_SUCH_TABLE', errno: 1146 }],
      [
        () => openDataSource({ ...options(), url: `mysql://nobody:secret@127.0.0.1:${db.port}/faults` }, false),
        { name: 'Error', code: 'ER_ACCESS_DENIED_ERROR', errno: 1045 },
      ],
    ];
    for (const [run, shape] of cases) {
      const err = await failure(run());
      expect(shapeOf(err)).toMatchObject(shape);
      expect(isDatabaseUnavailable(err)).toBe(false);
    }
  });

  it('is false for a query stopped by KILL QUERY or by max_statement_time (the query, not the database)', async () => {
    const victim = ds.createQueryRunner();
    try {
      const [{ id }] = (await victim.query('SELECT CONNECTION_ID() AS id')) as Array<{ id: number }>;
      const running = failure(victim.query('SELECT SLEEP(5)'));
      await pause(50);
      await ds.query(`KILL QUERY ${id}`);
      const interrupted = await running;
      expect(shapeOf(interrupted)).toMatchObject({ name: 'QueryFailedError', code: 'ER_QUERY_INTERRUPTED', errno: 1317 });
      expect(isDatabaseUnavailable(interrupted)).toBe(false);
    } finally {
      await victim.release();
    }
    const timedOut = await failure(ds.query('SET STATEMENT max_statement_time = 0.05 FOR SELECT SLEEP(1)'));
    // MariaDB's ER_STATEMENT_TIMEOUT: mysql2 has no name for it.
    expect(shapeOf(timedOut)).toMatchObject({
      name: 'QueryFailedError',
      code: undefined,
      errno: 1969,
      message: 'Query execution was interrupted (max_statement_time exceeded)',
    });
    expect(isDatabaseUnavailable(timedOut)).toBe(false);
  });

  it('is true for a lock wait timeout and for a deadlock victim', async () => {
    const a = ds.createQueryRunner();
    const b = ds.createQueryRunner();
    try {
      await a.startTransaction();
      await a.query('SELECT * FROM things WHERE id = 1 FOR UPDATE');
      await b.query('SET SESSION innodb_lock_wait_timeout = 1');
      await b.startTransaction();
      const lockWait = await failure(b.query(`UPDATE things SET name = 'z' WHERE id = 1`));
      expect(shapeOf(lockWait)).toMatchObject({ name: 'QueryFailedError', code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205 });
      expect(isDatabaseUnavailable(lockWait)).toBe(true);

      await b.query('SELECT * FROM things WHERE id = 2 FOR UPDATE');
      const aWaits = a.query(`UPDATE things SET name = 'y' WHERE id = 2`);
      await pause(100);
      const deadlock = await failure(b.query(`UPDATE things SET name = 'y' WHERE id = 1`));
      expect(shapeOf(deadlock)).toMatchObject({ name: 'QueryFailedError', code: 'ER_LOCK_DEADLOCK', errno: 1213 });
      expect(isDatabaseUnavailable(deadlock)).toBe(true);
      await aWaits;
    } finally {
      for (const runner of [a, b]) {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
    }
  });

  it('is true for too many connections (a new pooled connection, and a new DataSource)', async () => {
    await ds.query('SET GLOBAL max_connections = 10'); // MariaDB's least; root may take one more
    const runners: QueryRunner[] = [];
    try {
      let refused: unknown;
      while (!refused && runners.length < 20) {
        const runner = ds.createQueryRunner();
        runners.push(runner);
        refused = await runner.query('SELECT 1').then(
          () => undefined,
          (err: unknown) => err,
        );
      }
      // From the pool, not from a query: mysql2's error as it is, no QueryFailedError around it.
      expect(shapeOf(refused)).toMatchObject({ name: 'Error', code: 'ER_CON_COUNT_ERROR', errno: 1040, message: 'Too many connections' });
      expect(isDatabaseUnavailable(refused)).toBe(true);
      const opening = await failure(openDataSource(options(), false));
      expect(shapeOf(opening)).toMatchObject({ code: 'ER_CON_COUNT_ERROR', errno: 1040 });
      expect(isDatabaseUnavailable(opening)).toBe(true);
    } finally {
      for (const runner of runners) await runner.release();
      await ds.query('SET GLOBAL max_connections = 151');
    }
  });

  it('is true when the server is SIGKILLed, and the same DataSource serves again within a second of the restart', async () => {
    const health = new DatabaseHealthIndicator(ds);
    await Promise.all([1, 2, 3, 4].map(() => ds.query('SELECT SLEEP(0.02)'))); // some idle pooled connections
    const held = ds.createQueryRunner();
    await held.query('SELECT 1'); // a connection taken from the pool and kept
    const inFlight = failure(ds.query('SELECT SLEEP(10)'));
    await pause(50);
    expect(poolSize(ds)).toBeGreaterThanOrEqual(5);

    await db.kill();
    const lost = await inFlight;
    // The server's sockets are closed (FIN: "Connection lost") or reset (RST: "read ECONNRESET"), depending on timing.
    expect([
      { name: 'QueryFailedError', code: 'PROTOCOL_CONNECTION_LOST', errno: undefined, message: 'Connection lost: The server closed the connection.' },
      { name: 'QueryFailedError', code: 'ECONNRESET', errno: -104, message: 'read ECONNRESET' },
    ]).toContainEqual({ ...shapeOf(lost), driverError: undefined });
    expect(isDatabaseUnavailable(lost)).toBe(true);
    // The kernel closed every socket of the server: mysql2 sees each connection end and drops it.
    for (const deadline = Date.now() + 1000; poolSize(ds) > 0 && Date.now() < deadline;) await pause(5);
    expect(poolSize(ds)).toBe(0);

    // A fresh acquisition: mysql2's connect error as it is (code, errno, syscall; no name or message under jest: another realm's Error).
    const refused = await failure(ds.query('SELECT 1'));
    expect(refused).toMatchObject({ code: 'ECONNREFUSED', errno: -111, syscall: 'connect' });
    expect(isDatabaseUnavailable(refused)).toBe(true);
    // A query on the connection that was held.
    const closed = await failure(held.query('SELECT 1'));
    expect(shapeOf(closed)).toMatchObject({ name: 'QueryFailedError', code: undefined, message: "Can't add new command when connection is in closed state" });
    expect(isDatabaseUnavailable(closed)).toBe(true);
    expect(await health.isHealthy()).toBe(false);

    // Poll as a component's requests would, from before the restart to the first success.
    let firstSuccess = 0;
    const polling = (async () => {
      while (!firstSuccess) {
        const ok = await ds.query('SELECT 1').then(
          () => true,
          () => false,
        );
        if (ok) firstSuccess = Date.now();
        else await pause(10);
      }
    })();
    await db.start();
    const started = Date.now();
    await polling;
    expect(firstSuccess - started).toBeLessThan(1000);
    // No dead connection is handed out after the restart: every query of a burst succeeds.
    const burst = await Promise.allSettled(Array.from({ length: 20 }, () => ds.query('SELECT 1')));
    expect(burst.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(await health.isHealthy()).toBe(true);
    // A runner that kept its connection keeps the dead one: it must be released (repositories use one per operation).
    expect(isDatabaseUnavailable(await failure(held.query('SELECT 1')))).toBe(true);
    await held.release();
    expect(await ds.query('SELECT COUNT(*) AS n FROM things')).toEqual([{ n: '2' }]);
  });

  it('is true for every error while the server shuts down (SHUTDOWN), and the DataSource serves again after the restart', async () => {
    const inFlight = failure(ds.query('SELECT SLEEP(10)'));
    await pause(50);
    await ds.query('SHUTDOWN');
    const seen = new Map<string, unknown>();
    while (db.running) {
      const err = await ds.query('SELECT 1').then(
        () => undefined,
        (e: unknown) => e,
      );
      if (err) seen.set(JSON.stringify(shapeOf(err)), err);
      await pause(2);
    }
    expect(shapeOf(await inFlight)).toMatchObject({ code: expect.stringMatching(/^(PROTOCOL_CONNECTION_LOST|ECONNRESET)$/) });
    expect(isDatabaseUnavailable(await inFlight)).toBe(true);
    // Depending on timing: 1927 "Connection was killed" (no code), EPIPE, PROTOCOL_CONNECTION_LOST, ECONNRESET, ECONNREFUSED.
    expect(seen.size).toBeGreaterThan(0);
    expect([...seen.values()].filter((err) => !isDatabaseUnavailable(err)).map(shapeOf)).toEqual([]);
    await db.start();
    expect(await ds.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('is true when the server hangs: connect timeout, query timeout; queries without a timeout wait until it answers again', async () => {
    const timed = new DataSource({ ...mysqlOptions(), connectTimeout: 300, maxQueryExecutionTime: 300, enableQueryTimeout: true, logger: silent });
    await timed.initialize();
    const runner = timed.createQueryRunner();
    try {
      await runner.query('SELECT 1');
      await db.pause();
      const waiting = ds.query('SELECT 42 AS answer');
      const connectTimeout = await failure(new DataSource({ ...mysqlOptions(), connectTimeout: 300 }).initialize());
      expect(connectTimeout).toMatchObject({ code: 'ETIMEDOUT', message: 'connect ETIMEDOUT' });
      expect(isDatabaseUnavailable(connectTimeout)).toBe(true);
      const queryTimeout = await failure(runner.query('SELECT 1'));
      expect(shapeOf(queryTimeout)).toMatchObject({ name: 'QueryFailedError', code: 'PROTOCOL_SEQUENCE_TIMEOUT', message: 'Query inactivity timeout' });
      expect(isDatabaseUnavailable(queryTimeout)).toBe(true);
      // Without a query timeout (the components' setting) a query waits as long as the server hangs.
      expect(await Promise.race([waiting.then(() => 'answered'), pause(300).then(() => 'waiting')])).toBe('waiting');
      await db.resume();
      expect(await waiting).toEqual([{ answer: 42 }]);
      // The connection whose query timed out answers the next query correctly (the late answer is not taken for it).
      expect(await runner.query('SELECT 7 AS seven')).toEqual([{ seven: 7 }]);
    } finally {
      if (!db.running) await db.start();
      else await db.resume();
      await runner.release();
      await timed.destroy();
    }
  });

  it('is true once the DataSource is destroyed or being destroyed (the component shutting down) and for a host that does not resolve', async () => {
    const doomed = await openDataSource(options(), false);
    const runner = doomed.createQueryRunner();
    await doomed.destroy();
    for (const err of [await failure(doomed.query('SELECT 1')), await failure(runner.query('SELECT 1'))]) {
      expect(shapeOf(err)).toMatchObject({ name: 'TypeORMError', message: 'Connection is not established with mysql database' });
      expect(isDatabaseUnavailable(err)).toBe(true);
    }
    // A query waiting for a pooled connection when the pool is ended.
    const small = await new DataSource({ ...mysqlOptions(), extra: { connectionLimit: 1 } }).initialize();
    const holder = small.createQueryRunner();
    await holder.query('SELECT 1');
    const queued = failure(small.query('SELECT 2'));
    await pause(20);
    await small.destroy();
    const poolClosed = await queued;
    expect(shapeOf(poolClosed)).toMatchObject({ name: 'Error', code: undefined, message: 'Pool is closed.' });
    expect(isDatabaseUnavailable(poolClosed)).toBe(true);
    await holder.release();

    const unresolved = await failure(openDataSource({ ...options(), url: 'mysql://root@db.nonexistent.invalid/faults' }, false));
    expect(unresolved).toMatchObject({ code: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN)$/), syscall: 'getaddrinfo' });
    expect(isDatabaseUnavailable(unresolved)).toBe(true);
  });
});

describe('isDatabaseUnavailable on SQLite', () => {
  let dir: string;
  let ds: DataSource;
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lw-sqlite-faults-'));
    file = join(dir, 'faults.sqlite');
    ds = await openDataSource({ component: 'faults', dataDir: dir, entities: [], migrations: [] }, false);
    await ds.query('CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');
    await ds.query(`INSERT INTO things VALUES (1, 'a')`);
  });
  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is true for SQLITE_BUSY: another connection holds a write transaction', async () => {
    const other = new Database(file);
    await ds.query('PRAGMA busy_timeout = 20'); // the components wait 5 s
    try {
      other.exec('BEGIN IMMEDIATE');
      other.exec(`INSERT INTO things VALUES (2, 'b')`);
      const busy = await failure(ds.query(`INSERT INTO things VALUES (3, 'c')`));
      expect(shapeOf(busy)).toMatchObject({
        name: 'QueryFailedError',
        code: 'SQLITE_BUSY',
        driverError: { name: 'SqliteError', code: 'SQLITE_BUSY', message: 'database is locked' },
      });
      expect(isDatabaseUnavailable(busy)).toBe(true);
    } finally {
      other.exec('ROLLBACK');
      other.close();
      await ds.query('PRAGMA busy_timeout = 5000');
    }
  });

  it('is true for SQLITE_BUSY_SNAPSHOT: a read transaction that may not write after another connection wrote (WAL)', () => {
    const reader = new Database(file);
    const writer = new Database(file);
    try {
      reader.exec('BEGIN');
      reader.prepare('SELECT * FROM things').all();
      writer.exec(`INSERT INTO things VALUES (4, 'd')`);
      const err = (() => {
        try {
          reader.exec(`INSERT INTO things VALUES (5, 'e')`);
        } catch (e) {
          return e;
        }
      })();
      expect(shapeOf(err)).toMatchObject({ name: 'SqliteError', code: 'SQLITE_BUSY_SNAPSHOT', message: 'database is locked' });
      expect(isDatabaseUnavailable(err)).toBe(true);
    } finally {
      reader.exec('ROLLBACK');
      reader.close();
      writer.close();
    }
  });

  it('is true for SQLITE_LOCKED: a statement of the same connection is still pending (better-sqlite3 has no shared cache, so only then)', () => {
    const conn = new Database(file);
    try {
      conn.exec('CREATE TABLE scratch (x)');
      conn.unsafeMode(true); // lets a statement run while an iterator is open, as the C API would
      const rows = conn.prepare('SELECT * FROM things').iterate();
      rows.next();
      const err = (() => {
        try {
          conn.exec('DROP TABLE scratch');
        } catch (e) {
          return e;
        }
      })();
      rows.return?.();
      expect(shapeOf(err)).toMatchObject({ name: 'SqliteError', code: 'SQLITE_LOCKED', message: 'database table is locked' });
      expect(isDatabaseUnavailable(err)).toBe(true);
    } finally {
      conn.close();
    }
  });

  it('is false for constraint violations and syntax errors', async () => {
    const cases: Array<[() => Promise<unknown>, object]> = [
      [() => ds.query(`INSERT INTO things VALUES (1, 'x')`), { name: 'QueryFailedError', code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }],
      [() => ds.query(`INSERT INTO things VALUES (9, NULL)`), { name: 'QueryFailedError', code: 'SQLITE_CONSTRAINT_NOTNULL' }],
      // TypeORM prepares before it runs: a statement that does not compile is better-sqlite3's error as it is.
      [() => ds.query('SELEC 1'), { name: 'SqliteError', code: 'SQLITE_ERROR', message: 'near "SELEC": syntax error' }],
    ];
    for (const [run, shape] of cases) {
      const err = await failure(run());
      expect(shapeOf(err)).toMatchObject(shape);
      expect(isDatabaseUnavailable(err)).toBe(false);
    }
  });

  it('is true when runAtomically gave up waiting for the transaction on the shared connection (5 s)', async () => {
    const shared = (ds.driver as unknown as { databaseConnection: Database.Database }).databaseConnection;
    shared.exec('BEGIN');
    try {
      const busy = await failure(runAtomically(ds, [{ sql: `INSERT INTO things VALUES (6, 'f')`, params: [] }]));
      expect(shapeOf(busy)).toMatchObject({ name: 'Error', code: 'SQLITE_BUSY', message: 'another transaction kept the SQLite connection busy' });
      expect(isDatabaseUnavailable(busy)).toBe(true);
    } finally {
      shared.exec('ROLLBACK');
    }
  });

  it('is true once the DataSource is destroyed', async () => {
    const doomed = await openDataSource({ component: 'doomed', dataDir: dir, entities: [], migrations: [] }, false);
    await doomed.destroy();
    const err = await failure(doomed.query('SELECT 1'));
    expect(shapeOf(err)).toMatchObject({ name: 'TypeError', message: 'The database connection is not open' });
    expect(isDatabaseUnavailable(err)).toBe(true);
  });
});
