// The SQL of lessons 11 and later must run on MySQL 8.4 and on MariaDB 10.11 (the server
// here). The forms that work on only one of them (docs/mysql-and-mariadb.md lists them)
// may appear in ONE file per lab, src/sql-dialect.ts, which picks the right one at run time. This test reads every .sql and .ts file of labs/11 onwards
// and fails on any such form anywhere else.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const LABS = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const THIS_FILE = fileURLToPath(import.meta.url);

/** Each non-portable form, and why. (This file names them, so it is skipped.) */
const NON_PORTABLE: readonly { form: RegExp; why: string }[] = [
  { form: /max_execution_time/i, why: 'MySQL only (MariaDB: unknown variable 1193); use sql-dialect.ts' },
  { form: /max_statement_time/i, why: 'MariaDB only; use sql-dialect.ts' },
  {
    form: /@@(?:session\.|global\.)?transaction_isolation/i,
    why: "unknown on MariaDB before 11.1; use SHOW SESSION VARIABLES WHERE Variable_name IN ('transaction_isolation','tx_isolation')",
  },
  { form: /->>?\s*['"]\$/, why: 'the -> and ->> JSON operators fail on MariaDB; use JSON_EXTRACT / JSON_UNQUOTE' },
  { form: /\bFOR\s+SHARE\b/i, why: 'MySQL only; use LOCK IN SHARE MODE or avoid' },
  { form: /\bFOR\s+UPDATE\s+OF\b/i, why: 'MySQL only' },
  { form: /utf8mb4_0900_ai_ci/i, why: 'a MySQL 8 collation MariaDB does not have; use utf8mb4_unicode_ci' },
  {
    form: /\bUPDATE\s+`?(\w+)`?\b[^;]*?\(\s*SELECT\b[^;]*?\bFROM\s+`?\1`?\b/is,
    why: 'MySQL refuses to read the table an UPDATE writes (1093)',
  },
];

/** Every .sql and .ts file of labs/11 onwards, without node_modules. */
function sourceFiles(): string[] {
  const labs = readdirSync(LABS).filter((name) => /^\d\d-/.test(name) && Number(name.slice(0, 2)) >= 11);
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      return /\.(sql|ts)$/.test(entry.name) ? [path] : [];
    });
  return labs.flatMap((lab) => walk(join(LABS, lab)));
}

const isDialectFile = (path: string) => relative(LABS, path).split(/[\\/]/).slice(1).join('/') === 'src/sql-dialect.ts';

function nonPortableForms(text: string): string[] {
  return NON_PORTABLE.filter(({ form }) => form.test(text)).map(({ form, why }) => `${form.source}: ${why}`);
}

describe('portable SQL', () => {
  it('When every .sql and .ts file of labs/11 onwards is read, Then no non-portable form appears outside src/sql-dialect.ts', () => {
    const files = sourceFiles().filter((path) => path !== THIS_FILE && !isDialectFile(path));
    expect(files.length).toBeGreaterThan(5);
    const problems = files.flatMap((path) =>
      nonPortableForms(readFileSync(path, 'utf8')).map((p) => `${relative(LABS, path)}: ${p}`),
    );
    expect(problems).toEqual([]);
  });

  it.each([
    ['SET SESSION max_execution_time = 3000'],
    ['SET SESSION max_statement_time = 3'],
    ['SELECT @@session.transaction_isolation'],
    ["SELECT payload->>'$.name' FROM export_jobs"],
    ["SELECT payload -> '$.name' FROM export_jobs"],
    ['SELECT id FROM export_jobs WHERE id = ? FOR SHARE'],
    ['SELECT id FROM export_jobs e JOIN products p FOR UPDATE OF e'],
    ['CREATE TABLE t (x TEXT) COLLATE utf8mb4_0900_ai_ci'],
    [
      "UPDATE export_jobs SET status = 'queued' WHERE id = (SELECT id FROM export_jobs WHERE status = 'running' LIMIT 1)",
    ],
  ])('When a file holds %s, Then the detector names it', (sql) => {
    expect(nonPortableForms(sql)).toHaveLength(1);
  });

  it('When SQL uses the portable forms (TIMESTAMPADD, SKIP LOCKED, a subquery on another table, an arrow in a comment), Then the detector says nothing', () => {
    const portable = [
      "UPDATE export_jobs SET lease_until = TIMESTAMPADD(MICROSECOND, ?, NOW(6)) WHERE id = ? AND status = 'queued'",
      "SELECT id FROM export_jobs WHERE status = 'queued' ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED",
      'UPDATE export_jobs SET result_rows = (SELECT COUNT(*) FROM products WHERE is_active = TRUE) WHERE id = ?',
      '// queued -> running -> succeeded',
      "SHOW SESSION VARIABLES WHERE Variable_name IN ('transaction_isolation', 'tx_isolation')",
    ];
    for (const sql of portable) expect(nonPortableForms(sql), sql).toEqual([]);
  });
});
