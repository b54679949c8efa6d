// Lesson 11's database: ONE pool per process, each connection set up the same way.
//
// The course opens a connection per transaction and closes it after; a pool keeps a few
// open and lends them out, so a claim costs a round trip, not a TCP and auth handshake.
// Every connection the pool opens gets the course's session settings before its first use:
//   time_zone '+00:00'     NOW(6) and the DATETIME columns are UTC, and mysql2 reads them
//                          as UTC too (timezone: 'Z'): both sides agree
//   READ COMMITTED         each statement sees what was committed when it started
//   innodb_lock_wait_timeout  a statement waiting for a row lock gives up after 1 s (error 1205)
//   a statement time limit the dialect's form (sql-dialect.ts)
import { randomBytes } from 'node:crypto';
import mysql, { type Pool, type PoolConnection, type RowDataPacket } from 'mysql2/promise';
import { labDatabase, migrateLab, mysqlOptions } from '@tasks-lab/infra';
import { idempotent } from '@tasks-lab/lab-kit';
import { DatabaseUnavailableError } from './errors.ts';
import { JOBS_DATABASE, LAB, readLeaseOptions, type LeaseOptionValues } from './options.ts';
import { flavourOf, READ_SERVER_VERSION, statementTimeLimitSql, type SqlFlavour, type VersionRow } from './sql-dialect.ts';

export { LAB, JOBS_DATABASE };
/** Verify's own database, recreated on every run so verify never touches the student's jobs. */
export const VERIFY_DATABASE = `${JOBS_DATABASE}_verify`;

export type DatabaseSettings = Pick<LeaseOptionValues, 'lockWaitSeconds' | 'statementTimeLimitMs' | 'connectTimeoutMs'>;

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
  const connectionOptions = mysqlOptions(database, {
    timezone: 'Z',
    connectTimeout: settings.connectTimeoutMs,
    connectionLimit: options.connectionLimit ?? 5,
  });
  const flavour = await readFlavour(database, connectionOptions);
  const pool = mysql.createPool(connectionOptions);
  const setup = sessionSetup(flavour, settings);
  // The pool emits 'connection' for each new connection before lending it out; commands
  // queued here run before the borrower's, so no statement ever runs with the defaults.
  // A set-up that fails closes the connection: its borrower gets an error, not a
  // connection with half its settings.
  pool.pool.on('connection', (connection) => {
    for (const sql of setup) {
      connection.query(sql, (err: unknown) => {
        if (err) connection.destroy();
      });
    }
  });
  return pool;
}

/** Connects once to read VERSION(); a failure names the database and the error code only. */
async function readFlavour(database: string, connectionOptions: mysql.PoolOptions): Promise<SqlFlavour> {
  const { connectionLimit: _poolOnly, ...single } = connectionOptions;
  let connection: mysql.Connection | undefined;
  try {
    connection = await mysql.createConnection(single);
    const [rows] = await connection.query<VersionRow[]>(READ_SERVER_VERSION);
    return flavourOf(String(rows[0]?.version ?? ''));
  } catch (err) {
    // mysql2's messages can name the user ("Access denied for user ..."): keep only the code.
    throw new DatabaseUnavailableError(database, safeReason(err));
  } finally {
    await connection?.end().catch(() => {});
  }
}

function safeReason(err: unknown): string {
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
    try {
      await connection.rollback();
    } catch {
      healthy = false;
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

// ---------------------------------------------------------------------------------
// Databases of their own, for tests and verify.

const LABEL = /^[a-z0-9]{1,20}$/;

export interface FreshDatabase {
  name: string;
  pool: Pool;
  /** Ends the pool and drops the database. Safe to call twice. */
  drop(): Promise<void>;
}

export interface FreshDatabaseOptions extends Omit<OpenJobsDatabaseOptions, 'database'> {
  /** Whose migrations: a later lab (12, ...) passes its own, which chains lab 11's. @defaultValue '11' */
  lab?: string;
}

/** A new database tasks_lab11_<label>_<hex> (tasks_labNN_... for `lab`), migrated, with a pool on it. */
export async function freshDatabase(label: string, options: FreshDatabaseOptions = {}): Promise<FreshDatabase> {
  if (!LABEL.test(label)) throw new Error(`label must match ${LABEL}, got "${label}"`);
  const { lab = LAB, ...poolOptions } = options;
  const name = `${labDatabase(lab)}_${label}_${randomBytes(4).toString('hex')}`;
  await migrateLab(lab, { database: name });
  let pool: Pool;
  try {
    pool = await openJobsDatabase({ ...poolOptions, database: name });
  } catch (err) {
    await dropDatabase(name);
    throw err;
  }
  return {
    name,
    pool,
    drop: idempotent(async () => {
      await pool.end().catch(() => {});
      await dropDatabase(name);
    }),
  };
}

/** Runs `work` with a fresh database and drops it afterwards, whatever happens. */
export async function withFreshDatabase<T>(label: string, work: (db: FreshDatabase) => Promise<T>, options: FreshDatabaseOptions = {}): Promise<T> {
  const db = await freshDatabase(label, options);
  try {
    return await work(db);
  } finally {
    await db.drop();
  }
}

/**
 * Drops and recreates verify's database (tasks_lab11_verify, or tasks_labNN_verify for a
 * later `lab`), then migrates it: each verify run starts from nothing.
 */
export async function recreateVerifyDatabase(lab: string = LAB): Promise<string> {
  const database = `${labDatabase(lab)}_verify`;
  await dropDatabase(database);
  await migrateLab(lab, { database });
  return database;
}

const verifyDatabases = new Map<string, Promise<string>>();
/**
 * Verify's database for `lab`, dropped and recreated ONCE per process: every check of one
 * verify run shares it. A failed attempt is forgotten, so the next check tries again.
 */
export function verifyDatabaseOnce(lab: string = LAB): Promise<string> {
  let ready = verifyDatabases.get(lab);
  if (!ready) {
    ready = recreateVerifyDatabase(lab).catch((err: unknown) => {
      verifyDatabases.delete(lab);
      throw err;
    });
    verifyDatabases.set(lab, ready);
  }
  return ready;
}

/** The database functions a later lab exports, bound to its own database and migration chain. */
export interface LabDatabases {
  /** The process's pool on the lab's database (tasks_labNN), or `options.database`. */
  openJobsDatabase(options?: OpenJobsDatabaseOptions): Promise<Pool>;
  /** A new database tasks_labNN_<label>_<hex>, migrated with the lab's chain, with a pool on it (tests). */
  freshDatabase(label: string, options?: Omit<OpenJobsDatabaseOptions, 'database'>): Promise<FreshDatabase>;
  /** Runs `work` with a fresh database of the lab and drops it afterwards, whatever happens. */
  withFreshDatabase<T>(label: string, work: (db: FreshDatabase) => Promise<T>): Promise<T>;
  /** Drops, recreates and migrates tasks_labNN_verify: each verify run starts from nothing. */
  recreateVerifyDatabase(): Promise<string>;
  /** Verify's database, dropped and recreated ONCE per process; a failed attempt is forgotten. */
  verifyDatabaseOnce(): Promise<string>;
}

/** Lesson 11's database functions for lab `lab` (12, 13, ...), whose student database is `jobsDatabase`. */
export function labDatabases(lab: string, jobsDatabase: string = labDatabase(lab)): LabDatabases {
  return {
    openJobsDatabase: (options = {}) => openJobsDatabase({ ...options, database: options.database ?? jobsDatabase }),
    freshDatabase: (label, options = {}) => freshDatabase(label, { ...options, lab }),
    withFreshDatabase: (label, work) => withFreshDatabase(label, work, { lab }),
    recreateVerifyDatabase: () => recreateVerifyDatabase(lab),
    verifyDatabaseOnce: () => verifyDatabaseOnce(lab),
  };
}

/** The scratch databases of lab 11 and the labs built on it (tasks_lab11_..., tasks_lab12_...). */
const DATABASE_NAME = /^tasks_lab1\d_[a-z0-9_]{1,40}$/;

async function dropDatabase(name: string): Promise<void> {
  // Only scratch databases of the MySQL labs: the name goes into SQL as an identifier.
  if (!DATABASE_NAME.test(name)) throw new Error(`refusing to drop "${name}": not a scratch database of lab 11 or a later lab`);
  const { connectionLimit: _poolOnly, ...single } = mysqlOptions(name);
  let connection: mysql.Connection | undefined;
  try {
    connection = await mysql.createConnection({ ...single, database: undefined });
    await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
  } catch (err) {
    throw new DatabaseUnavailableError(name, `drop failed: ${safeReason(err)}`);
  } finally {
    await connection?.end().catch(() => {});
  }
}

/** The session as the server sees it: for tests and the troubleshooting section. */
export async function readSessionSettings(pool: Pool): Promise<Record<string, string>> {
  const [rows] = await pool.query<RowDataPacket[]>(
    "SHOW SESSION VARIABLES WHERE Variable_name IN ('time_zone', 'transaction_isolation', 'tx_isolation', 'innodb_lock_wait_timeout')",
  );
  return Object.fromEntries(rows.map((row) => [String(row.Variable_name), String(row.Value)]));
}

