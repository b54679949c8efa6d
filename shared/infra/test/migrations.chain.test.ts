// The migration runner against the real database (the labs' MariaDB/MySQL): a
// throwaway database for this file, re-created before every test and dropped at the
// end, and a folder of made-up labs, so nothing touches a real lab's tables.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql, { type RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mysqlOptions } from '../src/connections.ts';
import { MigrationEditedError, MigrationFailedError, migrateLab } from '../src/migrations.ts';

const database = `tasks_migrations_test_${randomBytes(4).toString('hex')}`;
let labsDir = '';

/** A connection outside the database under test, to create, inspect and drop it. */
async function withAdmin<T>(work: (admin: mysql.Connection) => Promise<T>): Promise<T> {
  const { connectionLimit: _poolOnly, ...options } = mysqlOptions(database);
  const admin = await mysql.createConnection({ ...options, database: undefined });
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

const dropDatabase = () => withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS \`${database}\``));

function writeMigration(lab: string, file: string, sql: string): string {
  const dir = join(labsDir, lab, 'migrations');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), sql);
  return createHash('sha256').update(sql).digest('hex');
}

const query = (sql: string) => withAdmin(async (admin) => (await admin.query<RowDataPacket[]>(sql))[0]);

beforeEach(async () => {
  await dropDatabase();
  if (labsDir) rmSync(labsDir, { recursive: true, force: true });
  labsDir = mkdtempSync(join(tmpdir(), 'tasks-lab-migrations-'));
  // Lab 01 creates a table with two statements in one file; a ';' inside a string must not split it.
  writeMigration(
    '01-first',
    '001-notes.sql',
    "CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(50));\nINSERT INTO notes VALUES (1, 'a; b');\n",
  );
  mkdirSync(join(labsDir, '02-no-database')); // a lab without migrations/
  // Lab 03's files need lab 01's table, and repeat lab 01's file name.
  writeMigration('03-third', '001-notes.sql', 'ALTER TABLE notes ADD COLUMN tag VARCHAR(20) NULL;');
  writeMigration('03-third', '002-tagged.sql', "UPDATE notes SET tag = 'first';");
  writeMigration('04-later', '001-not-yet.sql', 'CREATE TABLE later (id INT PRIMARY KEY);');
});

afterAll(async () => {
  await dropDatabase();
  rmSync(labsDir, { recursive: true, force: true });
});

describe('migrateLab: the chain of earlier labs', () => {
  it('When lab 03 is migrated, Then labs 01 and 03 apply in lab then file order, each recorded with its checksum, and lab 04 does not', async () => {
    const report = await migrateLab('03', { database, labsDir });
    expect(report.applied.map((m) => `${m.lab}/${m.file}`)).toEqual([
      '01/001-notes.sql',
      '03/001-notes.sql',
      '03/002-tagged.sql',
    ]);
    expect(await query(`SELECT id, body, tag FROM \`${database}\`.notes`)).toEqual([
      { id: 1, body: 'a; b', tag: 'first' },
    ]);
    const ledger = await query(
      `SELECT lab, file, checksum, applied_at FROM \`${database}\`.schema_migrations ORDER BY applied_at, lab, file`,
    );
    expect(ledger.map((row) => `${row.lab}/${row.file}`)).toEqual([
      '01/001-notes.sql',
      '03/001-notes.sql',
      '03/002-tagged.sql',
    ]);
    expect(ledger[0]?.checksum).toBe(report.applied[0]?.checksum);
    expect(ledger.every((row) => row.applied_at instanceof Date)).toBe(true);
    expect(await query(`SHOW TABLES FROM \`${database}\` LIKE 'later'`)).toEqual([]);
  });

  it('When it runs again, Then nothing is applied twice', async () => {
    await migrateLab('03', { database, labsDir });
    const again = await migrateLab('03', { database, labsDir });
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied).toHaveLength(3);
    expect(await query(`SELECT COUNT(*) AS n FROM \`${database}\`.notes`)).toEqual([{ n: 1 }]);
  });

  it('When an applied file was edited, Then the run is refused naming the lab, the file and both checksums', async () => {
    await migrateLab('03', { database, labsDir });
    const recorded = writeMigration(
      '01-first',
      '001-notes.sql',
      "CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(50));\nINSERT INTO notes VALUES (1, 'a; b');\n",
    );
    const edited = writeMigration('01-first', '001-notes.sql', 'CREATE TABLE notes (id BIGINT PRIMARY KEY);\n');
    const run = migrateLab('03', { database, labsDir });
    await expect(run).rejects.toBeInstanceOf(MigrationEditedError);
    await expect(run).rejects.toThrow(new RegExp(`01/001-notes\\.sql .*${recorded}.*${edited}`));
    // A scratch database (not the lab's own): the way out is to drop it, and the edit case is named too.
    await expect(run).rejects.toThrow(
      new RegExp(
        `database ${database}: .*If you did not edit the file, the course's migrations changed .*drop the database ${database}.*If you edited it, restore it`,
      ),
    );
  });

  it("When the lab's own database refuses a changed migration, Then the message tells a student what to do: the reset command that rebuilds it and what it loses, or restoring an edit [test:migration-edited-says-what-to-do]", () => {
    const error = new MigrationEditedError('11', '002-export-jobs.sql', 'a'.repeat(64), 'b'.repeat(64), {
      database: 'tasks_lab15',
      lab: '15',
    });
    expect(error.message).toContain(
      'migration 11/002-export-jobs.sql differs from the one applied to the database tasks_lab15',
    );
    expect(error.message).toContain(
      "If you did not edit the file, the course's migrations changed since this database was made",
    );
    expect(error.message).toContain('`pnpm -w lab 15 --reset --yes` rebuilds it');
    expect(error.message).toMatch(/drops that database, its jobs, events and every other row/);
    expect(error.message).toContain(
      'If you edited it, restore it from git and put your change in a new numbered migration',
    );
  });

  it('When a migration fails, Then the error names its lab and file and it is not recorded', async () => {
    writeMigration('03-third', '003-broken.sql', 'ALTER TABLE no_such_table ADD COLUMN x INT;');
    const run = migrateLab('03', { database, labsDir });
    await expect(run).rejects.toBeInstanceOf(MigrationFailedError);
    await expect(run).rejects.toThrow(/^migration 03\/003-broken\.sql failed: .*no_such_table/);
    const ledger = await query(`SELECT file FROM \`${database}\`.schema_migrations WHERE lab = '03'`);
    expect(ledger.map((row) => row.file)).toEqual(['001-notes.sql', '002-tagged.sql']);
  });

  it('When two processes migrate at once, Then each migration is applied once', async () => {
    const [a, b] = await Promise.all([
      migrateLab('03', { database, labsDir }),
      migrateLab('03', { database, labsDir }),
    ]);
    expect([a.applied.length, b.applied.length].sort()).toEqual([0, 3]);
  });
});
