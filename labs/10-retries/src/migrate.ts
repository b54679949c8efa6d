// Applies migrations/NNNN_name.sql files in order, once each, and records them in
// schema_migrations. Small on purpose: the lab needs two tables, not a framework.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { MIGRATION_SQL } from './sql/inventory.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

/** Splits a migration file into statements: drops `--` comment lines, cuts at `;`. */
export function splitStatements(sql: string): string[] {
  return sql
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n')
    .split(';')
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}

/** Returns the names of the migrations it applied this time (empty when all were applied before). */
export async function migrateLabDatabase(pool: Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  await pool.query(MIGRATION_SQL.createLedger);
  const [rows] = await pool.query<RowDataPacket[]>(MIGRATION_SQL.listApplied);
  const applied = new Set(rows.map((row) => String(row.name)));
  const pending = readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .filter((file) => !applied.has(file));
  for (const file of pending) {
    for (const statement of splitStatements(readFileSync(`${dir}/${file}`, 'utf8'))) await pool.query(statement);
    await pool.execute(MIGRATION_SQL.markApplied, [file]);
  }
  return pending;
}
