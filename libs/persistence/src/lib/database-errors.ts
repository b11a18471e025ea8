/**
 * Whether an error says the database cannot be reached, is going away, or is too busy right now:
 * the request may succeed later, so it is Unavailable (503), not a bug or bad input.
 *
 * The shapes are the ones mysql2 3.x, TypeORM 0.3 and better-sqlite3 12 raise against MariaDB 10.11
 * and SQLite, recorded in `database-errors.int-spec.ts` (a private MariaDB that is SIGKILLed, shut
 * down, frozen and overloaded). Errors are matched by their fields, never with `instanceof`: Node's
 * network errors and native driver errors need not come from the caller's realm (they do not under
 * jest). A TypeORM `QueryFailedError` copies `code` and `errno` from its `driverError`; the chain
 * `driverError` / `cause` is followed anyway, for the driver errors that have only a message.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const e = current as ErrorFields;
    if (isUnavailableShape(e)) return true;
    current = e.driverError ?? e.cause;
  }
  return false;
}

interface ErrorFields {
  name?: unknown;
  code?: unknown;
  errno?: unknown;
  message?: unknown;
  driverError?: unknown;
  cause?: unknown;
}

/** Codes of Node's sockets and DNS and of mysql2's protocol layer: the server is not there or went away. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', // nothing listens (server down): a new connection
  'ECONNRESET', // the server's socket was reset
  'EPIPE', // writing to a connection the server closed
  'ETIMEDOUT', // mysql2's connect timeout (server hung or unreachable), or a socket timeout
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND', // the database host name does not resolve (DNS down, service gone)
  'EAI_AGAIN', // temporary DNS failure
  'PROTOCOL_CONNECTION_LOST', // the server closed the connection (killed, shut down, KILL <id>) while a query ran
  'PROTOCOL_SEQUENCE_TIMEOUT', // mysql2's per-query timeout (TypeORM `enableQueryTimeout`): no answer in time
]);

/**
 * Server error numbers (MySQL/MariaDB `errno`; mysql2 names only MySQL's, so MariaDB's own come
 * without a `code`): too many clients, shutting down, or a lock not granted in time.
 */
const UNAVAILABLE_ERRNOS = new Set([
  1040, // ER_CON_COUNT_ERROR: Too many connections
  1203, // ER_TOO_MANY_USER_CONNECTIONS: the user's max_user_connections
  1053, // ER_SERVER_SHUTDOWN: MySQL's answer during a shutdown (MariaDB 10.11 answers 1927)
  1927, // ER_CONNECTION_KILLED (MariaDB): "Connection was killed", during a shutdown
  1205, // ER_LOCK_WAIT_TIMEOUT: "try restarting transaction"
  1213, // ER_LOCK_DEADLOCK: chosen as a deadlock victim, "try restarting transaction"
]);

/** Driver errors that carry only a message. */
const UNAVAILABLE_MESSAGES = new Set([
  "Can't add new command when connection is in closed state", // mysql2: a query on a connection whose server went away
  'Pool is closed.', // mysql2: the pool was ended (the DataSource is being destroyed)
  'Connection is not established with mysql database', // TypeORM: a query after the DataSource was destroyed
  'The database connection is not open', // better-sqlite3 (a TypeError): a query after the DataSource was destroyed
]);

/** TypeORM's errors for a DataSource that is not (or no longer) connected. */
const UNAVAILABLE_NAMES = new Set(['CannotExecuteNotConnectedError', 'ConnectionIsNotSetError']);

function isUnavailableShape(e: ErrorFields): boolean {
  if (typeof e.code === 'string') {
    if (UNAVAILABLE_CODES.has(e.code)) return true;
    // better-sqlite3's (extended) result codes: another connection holds the lock (SQLITE_BUSY,
    // SQLITE_BUSY_SNAPSHOT, …) or a pending statement of the same connection does (SQLITE_LOCKED).
    if (e.code.startsWith('SQLITE_BUSY') || e.code.startsWith('SQLITE_LOCKED')) return true;
  }
  if (typeof e.errno === 'number' && UNAVAILABLE_ERRNOS.has(e.errno)) return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.has(e.message)) return true;
  return typeof e.name === 'string' && UNAVAILABLE_NAMES.has(e.name);
}
