// Databases of their own, for tests and verify: a scratch database per test file (migrated
// with the lab's chain, dropped afterwards), and verify's database, recreated once per run, so
// that neither ever touches the student's tasks_lab11. A later lab binds these to its own
// database and chain with labDatabases.
import { randomBytes } from 'node:crypto';
import mysql, { type Pool } from 'mysql2/promise';
import { labDatabase, migrateLab, mysqlOptions } from '@tasks-lab/infra';
import { idempotent } from '@tasks-lab/lab-kit';
import { openJobsDatabase, safeReason, type OpenJobsDatabaseOptions } from './mysql-pool.ts';
import { DatabaseUnavailableError } from './errors.ts';
import { LAB } from './options.ts';

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
export async function withFreshDatabase<T>(
  label: string,
  work: (db: FreshDatabase) => Promise<T>,
  options: FreshDatabaseOptions = {},
): Promise<T> {
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
  if (!DATABASE_NAME.test(name))
    throw new Error(`refusing to drop "${name}": not a scratch database of lab 11 or a later lab`);
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
