import { CannotExecuteNotConnectedError, ConnectionIsNotSetError, QueryFailedError, QueryRunnerAlreadyReleasedError, TypeORMError } from 'typeorm';
import { isDatabaseUnavailable } from './database-errors';

/**
 * The shapes recorded by `database-errors.int-spec.ts` (mysql2 3.x, TypeORM 0.3, better-sqlite3 12,
 * MariaDB 10.11), rebuilt as the drivers build them: mysql2 assigns fields to a plain `Error`,
 * TypeORM wraps query errors in a `QueryFailedError` that copies them, better-sqlite3 throws a
 * `SqliteError` (here an Error named so).
 */
const driverError = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), fields);
const queryFailed = (message: string, fields: Record<string, unknown>) => new QueryFailedError('SELECT 1', [], driverError(message, fields));
const sqliteError = (message: string, code: string) => Object.assign(new Error(message), { name: 'SqliteError', code });

describe('isDatabaseUnavailable', () => {
  it.each<[string, unknown]>([
    // MariaDB SIGKILLed, shut down (SHUTDOWN), or KILL <connection>: the query in flight.
    ['connection lost', queryFailed('Connection lost: The server closed the connection.', { code: 'PROTOCOL_CONNECTION_LOST', fatal: true })],
    ['connection reset', queryFailed('read ECONNRESET', { errno: -104, code: 'ECONNRESET', syscall: 'read', fatal: true })],
    // A query on a connection that was open when the server went away (also after the server is back).
    ['closed connection', queryFailed("Can't add new command when connection is in closed state", { fatal: true })],
    // A new connection while the server is down: mysql2's error from the pool, not wrapped (under jest another realm's Error, fields only).
    ['connection refused', { errno: -111, code: 'ECONNREFUSED', syscall: 'connect', address: '127.0.0.1', port: 3306, fatal: true }],
    ['connection refused (Error)', driverError('connect ECONNREFUSED 127.0.0.1:3306', { errno: -111, code: 'ECONNREFUSED', syscall: 'connect', fatal: true })],
    // During a shutdown, depending on timing.
    ['connection killed (MariaDB 1927, no code)', queryFailed('Connection was killed', { errno: 1927, sqlState: '70100' })],
    ['write to a closed socket', new QueryFailedError('SELECT 1', [], { errno: -32, code: 'EPIPE', syscall: 'write', fatal: true } as unknown as Error)],
    // A frozen server (SIGSTOP): connect timeout, and a query timeout where TypeORM's enableQueryTimeout is on.
    ['connect timeout', driverError('connect ETIMEDOUT', { errorno: 'ETIMEDOUT', code: 'ETIMEDOUT', syscall: 'connect', fatal: true })],
    ['query timeout', queryFailed('Query inactivity timeout', { errorno: 'PROTOCOL_SEQUENCE_TIMEOUT', code: 'PROTOCOL_SEQUENCE_TIMEOUT', syscall: 'query' })],
    ['too many connections', driverError('Too many connections', { code: 'ER_CON_COUNT_ERROR', errno: 1040, sqlState: '', fatal: true })],
    [
      'lock wait timeout',
      queryFailed('Lock wait timeout exceeded; try restarting transaction', { code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205, sqlState: 'HY000' }),
    ],
    [
      'deadlock',
      queryFailed('Deadlock found when trying to get lock; try restarting transaction', { code: 'ER_LOCK_DEADLOCK', errno: 1213, sqlState: '40001' }),
    ],
    ['host does not resolve', { errno: -3008, code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname: 'db.example', fatal: true }],
    // The DataSource destroyed, or being destroyed while a query waited for a connection.
    ['destroyed DataSource (MySQL)', new TypeORMError('Connection is not established with mysql database')],
    ['pool closed', new Error('Pool is closed.')],
    ['destroyed DataSource (SQLite)', new TypeError('The database connection is not open')],
    ['not connected', new CannotExecuteNotConnectedError('default')],
    ['connection not set', new ConnectionIsNotSetError('mysql')],
    // SQLite: another connection's write transaction, a stale snapshot, a pending statement, runAtomically's wait.
    ['SQLITE_BUSY', new QueryFailedError('INSERT', [], sqliteError('database is locked', 'SQLITE_BUSY'))],
    ['SQLITE_BUSY_SNAPSHOT', sqliteError('database is locked', 'SQLITE_BUSY_SNAPSHOT')],
    ['SQLITE_LOCKED', sqliteError('database table is locked', 'SQLITE_LOCKED')],
    ['runAtomically busy', Object.assign(new Error('another transaction kept the SQLite connection busy'), { code: 'SQLITE_BUSY' })],
    // Documented, not produced by the integration spec.
    ['temporary DNS failure', { errno: -3001, code: 'EAI_AGAIN', syscall: 'getaddrinfo' }],
    ['MySQL shutdown in progress', queryFailed('Server shutdown in progress', { code: 'ER_SERVER_SHUTDOWN', errno: 1053 })],
    ['max_user_connections', driverError("User 'x' has exceeded the 'max_user_connections' resource", { code: 'ER_TOO_MANY_USER_CONNECTIONS', errno: 1203 })],
    // Wrapped by someone else.
    ['as a cause', new Error('could not load the device', { cause: driverError('connect ECONNREFUSED 127.0.0.1:3306', { code: 'ECONNREFUSED' }) })],
  ])('is true for %s', (_case, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['duplicate key', queryFailed("Duplicate entry '1' for key 'PRIMARY'", { code: 'ER_DUP_ENTRY', errno: 1062, sqlState: '23000' })],
    ['data too long', queryFailed("Data too long for column 'name' at row 1", { code: 'ER_DATA_TOO_LONG', errno: 1406, sqlState: '22001' })],
    ['syntax error', queryFailed('You have an error in your SQL syntax', { code: 'ER_PARSE_ERROR', errno: 1064, sqlState: '42000' })],
    ['unknown table', queryFailed("Table 'faults.nothing' doesn't exist", { code: 'ER_NO_SUCH_TABLE', errno: 1146, sqlState: '42S02' })],
    [
      'wrong credentials',
      driverError("Access denied for user 'nobody'@'127.0.0.1' (using password: YES)", { code: 'ER_ACCESS_DENIED_ERROR', errno: 1045, sqlState: '28000' }),
    ],
    ['KILL QUERY', queryFailed('Query execution was interrupted', { code: 'ER_QUERY_INTERRUPTED', errno: 1317, sqlState: '70100' })],
    ['max_statement_time', queryFailed('Query execution was interrupted (max_statement_time exceeded)', { errno: 1969, sqlState: '70100' })],
    ['SQLite primary key', new QueryFailedError('INSERT', [], sqliteError('UNIQUE constraint failed: things.id', 'SQLITE_CONSTRAINT_PRIMARYKEY'))],
    ['SQLite not null', new QueryFailedError('INSERT', [], sqliteError('NOT NULL constraint failed: things.name', 'SQLITE_CONSTRAINT_NOTNULL'))],
    ['SQLite syntax error', sqliteError('near "SELEC": syntax error', 'SQLITE_ERROR')],
    ['a released query runner (a bug)', new QueryRunnerAlreadyReleasedError()],
    ['any other error', new Error('boom')],
    ['a wrapped bug', new Error('could not save', { cause: queryFailed("Duplicate entry '1' for key 'PRIMARY'", { code: 'ER_DUP_ENTRY', errno: 1062 }) })],
    ['undefined', undefined],
    ['null', null],
    ['a string', 'ECONNREFUSED'],
  ])('is false for %s', (_case, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it('stops following a cycle of causes', () => {
    const a: { cause?: unknown } = {};
    a.cause = { cause: a };
    expect(isDatabaseUnavailable(a)).toBe(false);
  });
});
