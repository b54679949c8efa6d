// The migration runner every lab with a database uses (lesson 10 is the first).
// A lab's schema is a CHAIN: lab 12 builds on lab 11's tables the way its code builds
// on lab 11's modules. So migrateLab('12') applies the migrations/ folder of every lab
// up to 12, in lab order, then file order (001-inventory.sql, 002-…), each ONCE.
//
// The ledger, schema_migrations, records (lab, file, sha256 checksum, applied_at).
// File names repeat across labs (every lab may start at 001-), so the key is lab+file.
// An applied migration whose file was edited afterwards is refused: the database
// already ran the old text, and running the new text would not make them agree.
// Change a schema with a new numbered file instead.
//
// Files run whole, on a connection of their own opened with multipleStatements: true.
// The server splits the statements itself, so a ';' inside a string or a comment is
// never mistaken for the end of one. The application pool never gets that option:
// there it would let an injected "; DROP TABLE" run.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import mysql, { type Connection, type RowDataPacket } from 'mysql2/promise';
import { labDatabase, mysqlOptions } from './connections.ts';
import { REPO_ROOT } from './settings.ts';

export const LABS_DIR = resolve(REPO_ROOT, 'labs');

/** 001-inventory.sql: three digits, a dash, lower-case words. */
const MIGRATION_FILE = /^\d{3}-[a-z0-9-]+\.sql$/;
/** Only the lab databases the app user is granted (tasks_…); the name is put into SQL as an identifier. */
const DATABASE_NAME = /^tasks_[a-z0-9_]{1,58}$/;
/** How long a second migrating process waits for the first (seconds). */
const LOCK_WAIT_SECONDS = 60;

export interface Migration {
  /** The two-digit lab it belongs to: '10'. */
  lab: string;
  file: string;
  path: string;
  sql: string;
  /** sha256 of the file's bytes, hex. */
  checksum: string;
}

export interface MigrateOptions {
  /** @defaultValue labDatabase(lab), e.g. tasks_lab10 */
  database?: string;
  /** Where the lab folders are. Tests pass a folder of their own. @defaultValue REPO_ROOT/labs */
  labsDir?: string;
  /** One line per applied migration. @defaultValue say nothing */
  log?: (line: string) => void;
}

export interface MigrationReport {
  database: string;
  /** Applied by this run, in order. */
  applied: Migration[];
  /** Applied by an earlier run (checksums verified). */
  alreadyApplied: Migration[];
}

/** An applied migration's file no longer has the text that ran. */
export class MigrationEditedError extends Error {
  readonly code = 'migration-edited';
  constructor(
    /** The lab whose folder holds the migration. */
    readonly lab: string,
    readonly file: string,
    readonly recordedChecksum: string,
    readonly currentChecksum: string,
    /** The database that refused it, and the lab it belongs to (the one being migrated). */
    readonly target: { database: string; lab: string } = { database: labDatabase(lab), lab },
  ) {
    super(
      `migration ${lab}/${file} differs from the one applied to the database ${target.database}: recorded sha256 ${recordedChecksum}, file now ${currentChecksum}. ` +
        whatToDo(target),
    );
    this.name = 'MigrationEditedError';
  }
}

/** The two ways out, for a student: nobody should have to read the ledger to know which applies. */
function whatToDo(target: { database: string; lab: string }): string {
  const rebuild =
    target.database === labDatabase(target.lab)
      ? `\`pnpm -w lab ${target.lab} --reset --yes\` rebuilds it (it drops that database, its jobs, events and every other row, with the lab's Redis keys and artifacts; the next run migrates from scratch)`
      : `drop the database ${target.database} and run again (it is rebuilt from scratch; its rows are lost)`;
  return (
    `If you did not edit the file, the course's migrations changed since this database was made: ${rebuild}. ` +
    'If you edited it, restore it from git and put your change in a new numbered migration.'
  );
}

/** A migration file failed on the server. It is not recorded, so the next run tries it again. */
export class MigrationFailedError extends Error {
  readonly code = 'migration-failed';
  constructor(
    readonly lab: string,
    readonly file: string,
    cause: unknown,
  ) {
    super(`migration ${lab}/${file} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'MigrationFailedError';
  }
}

const LEDGER_SQL = {
  /** Waits (up to the timeout) while another process migrates the same database; 1 = ours. Released when the connection closes. */
  lock: 'SELECT GET_LOCK(?, ?) AS got',
  create:
    'CREATE TABLE IF NOT EXISTS schema_migrations (' +
    'lab CHAR(2) NOT NULL, file VARCHAR(128) NOT NULL, checksum CHAR(64) NOT NULL, ' +
    'applied_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), PRIMARY KEY (lab, file)) ENGINE = InnoDB',
  listApplied: 'SELECT lab, file, checksum FROM schema_migrations',
  /** Plain INSERT: under the lock nobody else records, so a duplicate key would be a real bug. */
  record: 'INSERT INTO schema_migrations (lab, file, checksum) VALUES (?, ?, ?)',
} as const;

/** The migrations of `lab` and of every lab before it, in the order they apply. */
export function findMigrations(lab: string, labsDir = LABS_DIR): Migration[] {
  if (!/^\d\d$/.test(lab)) throw new Error(`lab must be two digits, got "${lab}"`);
  const labFolders = readdirSync(labsDir)
    .filter((folder) => /^\d\d-/.test(folder) && folder.slice(0, 2) <= lab)
    .sort();
  if (!labFolders.some((folder) => folder.startsWith(`${lab}-`))) throw new Error(`no folder ${lab}-* in ${labsDir}`);
  return labFolders.flatMap((folder) => migrationsOf(folder.slice(0, 2), join(labsDir, folder, 'migrations')));
}

function migrationsOf(lab: string, dir: string): Migration[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => MIGRATION_FILE.test(file))
    .sort()
    .map((file) => {
      const path = join(dir, file);
      const bytes = readFileSync(path);
      return {
        lab,
        file,
        path,
        sql: bytes.toString('utf8'),
        checksum: createHash('sha256').update(bytes).digest('hex'),
      };
    });
}

/**
 * Brings `lab`'s database up to date with the chain of migrations up to that lab.
 * Safe to call from every process at start-up: a named lock makes a second caller
 * wait, and migrations already recorded are skipped (after their checksums are verified).
 */
export async function migrateLab(lab: string, options: MigrateOptions = {}): Promise<MigrationReport> {
  const database = options.database ?? labDatabase(lab);
  const migrations = findMigrations(lab, options.labsDir);
  const connection = await openMigrationConnection(database);
  try {
    await lockMigrations(connection, database);
    await connection.query(LEDGER_SQL.create);
    const recorded = await readLedger(connection, database);
    const alreadyApplied = migrations.filter((m) => recorded.has(ledgerKey(m)));
    for (const migration of alreadyApplied) {
      const recordedChecksum = recorded.get(ledgerKey(migration));
      if (recordedChecksum !== migration.checksum) {
        throw new MigrationEditedError(migration.lab, migration.file, String(recordedChecksum), migration.checksum, {
          database,
          lab,
        });
      }
    }
    const pending = migrations.filter((m) => !recorded.has(ledgerKey(m)));
    for (const migration of pending) {
      await applyMigration(connection, migration);
      options.log?.(`applied ${migration.lab}/${migration.file} to ${database}`);
    }
    return { database, applied: pending, alreadyApplied };
  } finally {
    await connection.end(); // also releases the named lock
  }
}

const ledgerKey = (m: Pick<Migration, 'lab' | 'file'>) => `${m.lab}/${m.file}`;

/** The migration-only connection: multipleStatements, created for this run and closed after it. */
async function openMigrationConnection(database: string): Promise<Connection> {
  if (!DATABASE_NAME.test(database)) throw new Error(`database name must match ${DATABASE_NAME}, got "${database}"`);
  const { connectionLimit: _poolOnly, ...connectionOptions } = mysqlOptions(database);
  const connection = await mysql.createConnection({
    ...connectionOptions,
    database: undefined,
    multipleStatements: true,
  });
  try {
    // Checked against DATABASE_NAME above: identifiers cannot be `?` parameters.
    await connection.query(
      `CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
    await connection.query(`USE \`${database}\``);
    return connection;
  } catch (err) {
    await connection.end().catch(() => {});
    throw err;
  }
}

async function lockMigrations(connection: Connection, database: string): Promise<void> {
  const [rows] = await connection.query<RowDataPacket[]>(LEDGER_SQL.lock, [
    `schema_migrations:${database}`,
    LOCK_WAIT_SECONDS,
  ]);
  if (rows[0]?.got !== 1)
    throw new Error(`another process kept migrating ${database} for more than ${LOCK_WAIT_SECONDS} s`);
}

async function readLedger(connection: Connection, database: string): Promise<Map<string, string>> {
  try {
    const [rows] = await connection.query<RowDataPacket[]>(LEDGER_SQL.listApplied);
    return new Map(
      rows.map((row) => [ledgerKey({ lab: String(row.lab), file: String(row.file) }), String(row.checksum)]),
    );
  } catch (err) {
    // ER_BAD_FIELD_ERROR: a schema_migrations table of another layout (lab 10's own runner kept only a name).
    if ((err as { errno?: number }).errno !== 1054) throw err;
    throw new Error(
      `${database}.schema_migrations has an older layout (no lab, file and checksum columns). ` +
        `Drop it (DROP TABLE ${database}.schema_migrations) and run again; migrations written with IF NOT EXISTS simply run once more.`,
    );
  }
}

async function applyMigration(connection: Connection, migration: Migration): Promise<void> {
  try {
    // The whole file in one call: the server runs its statements in order. DDL commits
    // as it goes, so a file that fails half-way may have applied its first statements;
    // write migrations that can run again (IF NOT EXISTS) and fix the file before rerunning.
    await connection.query(migration.sql);
  } catch (err) {
    throw new MigrationFailedError(migration.lab, migration.file, err);
  }
  await connection.query(LEDGER_SQL.record, [migration.lab, migration.file, migration.checksum]);
}
