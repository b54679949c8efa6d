// DB_QUERY_STACK_TRACES: whether a failed query's error carries the stack of the code that sent
// it. mysql2 captures that stack before every query by default (its `trace` option); the lab
// turns the capture off unless asked, for its cost on every query (see options.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from 'mysql2/promise';
import { openJobsDatabase } from '../src/database.ts';
import { freshDatabase, type FreshDatabase } from '../src/scratch-databases.ts';
import { LEASE_OPTIONS } from '../src/options.ts';

const SETTINGS = { lockWaitSeconds: 1, statementTimeLimitMs: 3000, connectTimeoutMs: 3000, queryTimeoutMs: 3000 };

let db: FreshDatabase | undefined;
let traced: Pool | undefined;
beforeAll(async () => {
  db = await freshDatabase('stacks', { settings: SETTINGS, connectionLimit: 1 });
  traced = await openJobsDatabase({
    database: db.name,
    settings: { ...SETTINGS, queryStackTraces: 'on' },
    connectionLimit: 1,
  });
}, 60_000);
afterAll(async () => {
  await traced?.end().catch(() => {});
  await db?.drop();
});

/** A query that fails (no such table), sent from a function whose name the stack can show. */
async function sendBrokenQueryFromHere(pool: Pool): Promise<string> {
  const err = await pool.query('SELECT * FROM no_such_table').then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  if (!err) throw new Error('setup: the query on a missing table succeeded');
  return err.stack ?? '';
}

describe('query stack traces', () => {
  it('When DB_QUERY_STACK_TRACES is off (the default), Then a failed query does not capture its caller [test:query-stacks-off-by-default]', async () => {
    expect(LEASE_OPTIONS.defaults().queryStackTraces).toBe('off');
    expect(await sendBrokenQueryFromHere(db!.pool)).not.toContain('sendBrokenQueryFromHere');
  });

  it('When DB_QUERY_STACK_TRACES is on, Then a failed query names the code that sent it [test:query-stacks-on-names-caller]', async () => {
    expect(await sendBrokenQueryFromHere(traced!)).toContain('sendBrokenQueryFromHere');
  });
});
