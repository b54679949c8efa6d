import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, splitStatements } from '../src/migrate.ts';

describe('migrate: statements of a migration file', () => {
  it('When the inventory migration is split, Then it gives the two CREATE TABLE statements and no comments', () => {
    const statements = splitStatements(readFileSync(`${MIGRATIONS_DIR}/0001_inventory_dedupe.sql`, 'utf8'));
    expect(statements).toHaveLength(2);
    expect(statements[0]).toMatch(/^CREATE TABLE IF NOT EXISTS inventory_stock/);
    expect(statements[1]).toMatch(/PRIMARY KEY \(order_id\)/);
    expect(statements.join('\n')).not.toMatch(/--/);
  });
});
