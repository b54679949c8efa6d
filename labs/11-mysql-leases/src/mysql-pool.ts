// Lesson 11's pool: ONE per process, each connection set up the same way.
//
// The course opens a connection per transaction and closes it after; a pool keeps a few
// open and lends them out, so a claim costs a round trip, not a TCP and auth handshake.
// Every connection the pool opens gets the course's session settings before its first use:
//   time_zone '+00:00'     NOW(6) and the DATETIME columns are UTC, and mysql2 reads them
//                          as UTC too (timezone: 'Z'): both sides agree
//   READ COMMITTED         each statement sees what was committed when it started
//   innodb_lock_wait_timeout  a statement waiting for a row lock gives up after 1 s (error 1205)
//   a statement time limit the dialect's form (sql-dialect.ts)
// and the client bounds its own waits, as the course's connect, read and write timeouts do:
//   connectTimeout         opening a connection gives up after DB_CONNECT_TIMEOUT_MS (3 s)
//   a query timeout        every query gives up after DB_QUERY_TIMEOUT_MS (3 s): query-timeout.ts
import mysql, { type Pool, type PoolConnection, type RowDataPacket } from 'mysql2/promise';
import { mysqlOptions } from '@tasks-lab/infra';
import { errorCode, OptionsError } from '@tasks-lab/lab-kit';
import { DatabaseUnavailableError, QueryTimeoutError } from './errors.ts';
import { boundEveryQuery, type CoreConnection, MYSQL2_QUERY_TIMEOUT } from './query-timeout.ts';
import { databaseTimingProblems, JOBS_DATABASE, readLeaseOptions, type DatabaseTimings } from './options.ts';
import {
  flavourOf,
  READ_SERVER_VERSION,
  statementTimeLimitSql,
  type SqlFlavour,
  type VersionRow,
} from './sql-dialect.ts';

/** The session's limits and the client's bounds (options.ts): openJobsDatabase's `settings`. */
export type DatabaseSettings = DatabaseTimings;

export interface OpenJobsDatabaseOptions {
  /** @defaultValue tasks_lab11 */
  database?: string;
  /** @defaultValue read from the environment (options.ts) */
  settings?: DatabaseSettings;
  /** @defaultValue 5 */
  connectionLimit?: number;
}

/** The session statements every new connection runs, in order. */
export function sessionSetup(flavour: SqlFlavour, settings: DatabaseSettings): string[] {
  return [
    'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED',
    `SET time_zone = '+00:00', innodb_lock_wait_timeout = ${settings.lockWaitSeconds}, ${statementTimeLimitSql(flavour, settings.statementTimeLimitMs)}`,
  ];
}

/**
 * Opens the process's pool on `database` (which must exist and be migrated). Call it once
 * per process and pass the pool around. Reads the server's version first, on a connection
 * of its own, because the statement time limit is spelled differently on MariaDB.
 */
export async function openJobsDatabase(options: OpenJobsDatabaseOptions = {}): Promise<Pool> {
  const database = options.database ?? JOBS_DATABASE;
  const settings = options.settings ?? readLeaseOptions();
  // Settings given in code skip readLeaseOptions: check them the same way.
  const problems = databaseTimingProblems(settings);
  if (problems.length > 0) throw new OptionsError(problems);
  const connectionOptions = mysqlOptions(database, {
    timezone: 'Z',
    connectTimeout: settings.connectTimeoutMs,
    connectionLimit: options.connectionLimit ?? 5,
    trace: settings.queryStackTraces === 'on',
  });
  const flavour = await readFlavour(database, connectionOptions, settings.queryTimeoutMs);
  const pool = mysql.createPool(connectionOptions);
  const setup = sessionSetup(flavour, settings);
  // The pool emits 'connection' for each new connection before lending it out; commands
  // queued here run before the borrower's, so no statement ever runs with the defaults.
  // A set-up that fails closes the connection: its borrower gets an error, not a
  // connection with half its settings.
  pool.pool.on('connection', (connection) => {
    boundEveryQuery(connection as unknown as CoreConnection, settings.queryTimeoutMs);
    for (const sql of setup) {
      connection.query(sql, (err: unknown) => {
        if (err) connection.destroy();
      });
    }
  });
  return pool;
}

/**
 * Connects once to read VERSION(), both bounded (connectTimeout, then `queryTimeoutMs`); a
 * failure names the database and the error code only.
 */
async function readFlavour(
  database: string,
  connectionOptions: mysql.PoolOptions,
  queryTimeoutMs: number,
): Promise<SqlFlavour> {
  const { connectionLimit: _poolOnly, ...single } = connectionOptions;
  let connection: mysql.Connection | undefined;
  try {
    connection = await mysql.createConnection(single);
    const [rows] = await connection.query<VersionRow[]>({ sql: READ_SERVER_VERSION, timeout: queryTimeoutMs });
    const flavour = flavourOf(String(rows[0]?.version ?? ''));
    await connection.end().catch(() => {});
    return flavour;
  } catch (err) {
    // end() would queue its QUIT behind a query that timed out and wait with it: close instead.
    connection?.destroy();
    // mysql2's messages can name the user ("Access denied for user ..."): keep only the code.
    throw new DatabaseUnavailableError(database, safeReason(err));
  }
}

export function safeReason(err: unknown): string {
  const { code, errno } = (err ?? {}) as { code?: unknown; errno?: unknown };
  if (typeof code === 'string') return typeof errno === 'number' ? `${code}, errno ${errno}` : code;
  return 'no error code';
}

/**
 * Runs `work` in one transaction on a connection of its own: commits when `work`
 * returns, rolls back when it throws, and always gives the connection back. A
 * connection whose rollback failed is destroyed instead of returned: nobody should
 * borrow it while it may still hold locks.
 *
 * When the COMMIT itself fails (the connection dropped), the outcome is unknown: the
 * server may have committed before the answer was lost. The error is rethrown; the
 * caller checks the row by its id before trying again.
 */
export async function withTransaction<T>(pool: Pool, work: (connection: PoolConnection) => Promise<T>): Promise<T> {
  const connection = await pool.getConnection();
  let healthy = true;
  try {
    await connection.beginTransaction();
    const result = await work(connection);
    await connection.commit();
    return result;
  } catch (err) {
    if (err instanceof QueryTimeoutError) {
      // boundEveryQuery closed the connection already: no ROLLBACK can be sent on it, and the
      // server rolls the open transaction back when it reads the close.
      healthy = false;
    } else {
      try {
        await connection.rollback();
      } catch {
        healthy = false;
      }
    }
    throw err;
  } finally {
    if (healthy) connection.release();
    else connection.destroy();
  }
}

/** MySQL error numbers the lab acts on (mysql2's `code` names follow MySQL's table; match on errno). */
export const ER_DUP_ENTRY = 1062;
export const ER_LOCK_WAIT_TIMEOUT = 1205;

export function errnoOf(err: unknown): number | undefined {
  const errno = (err as { errno?: unknown } | null)?.errno;
  return typeof errno === 'number' ? errno : undefined;
}

/** What a database that does not answer looks like, from Node's sockets and from mysql2. */
const DATABASE_DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  MYSQL2_QUERY_TIMEOUT,
]);

/**
 * "ECONNREFUSED" (the code) when `err` says the database did not answer: refused, dropped,
 * timed out (a QueryTimeoutError included), or a pool that could not be opened; undefined for
 * anything else (a constraint, a syntax error, a bug). It names no user and no password.
 */
export function databaseDownReason(err: unknown): string | undefined {
  if (err instanceof DatabaseUnavailableError) return err.reason;
  const code = errorCode(err);
  return code !== undefined && DATABASE_DOWN_CODES.has(code) ? code : undefined;
}

/** The session as the server sees it: for tests and the troubleshooting section. */
export async function readSessionSettings(pool: Pool): Promise<Record<string, string>> {
  const [rows] = await pool.query<RowDataPacket[]>(
    "SHOW SESSION VARIABLES WHERE Variable_name IN ('time_zone', 'transaction_isolation', 'tx_isolation', 'innodb_lock_wait_timeout')",
  );
  return Object.fromEntries(rows.map((row) => [String(row.Variable_name), String(row.Value)]));
}
