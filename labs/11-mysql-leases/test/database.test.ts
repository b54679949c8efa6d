// The connection and transaction helpers: each pooled connection gets the session the
// lesson relies on, and a transaction always ends (commit or rollback) and gives its
// connection back.
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { mysqlOptions } from '@tasks-lab/infra';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJobsDatabase, readSessionSettings, withTransaction } from '../src/database.ts';
import { freshDatabase, type FreshDatabase } from '../src/scratch-databases.ts';
import { DatabaseUnavailableError } from '../src/errors.ts';
import { STATEMENT_TIME_LIMIT_ERRNOS } from '../src/sql-dialect.ts';

let db: FreshDatabase | undefined;
beforeAll(async () => {
  // The client's query bound (5 s) above the statement limit (1.5 s): the slow-statement test
  // sees the server's own error, not the client giving up.
  db = await freshDatabase('database', {
    settings: { lockWaitSeconds: 1, statementTimeLimitMs: 1500, connectTimeoutMs: 3000, queryTimeoutMs: 5000 },
    connectionLimit: 2,
  });
}, 60_000);
afterAll(() => db?.drop());

const countProducts = async () => {
  const [rows] = await db!.pool.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM products WHERE name = 'Rolled back'");
  return Number(rows[0]?.n);
};

describe('session settings', () => {
  it('When a pooled connection is used, Then it runs in UTC, READ COMMITTED, with a 1 s lock wait [test:session-settings]', async () => {
    const session = await readSessionSettings(db!.pool);
    expect(session.time_zone).toBe('+00:00');
    expect(session.transaction_isolation ?? session.tx_isolation).toBe('READ-COMMITTED');
    expect(session.innodb_lock_wait_timeout).toBe('1');
  });

  it('When a statement runs longer than the statement time limit, Then the server stops it [test:statement-time-limit]', async () => {
    const started = Date.now();
    const err = await db!.pool.query('SELECT SLEEP(5)').then(
      () => undefined,
      (e: unknown) => e as { errno?: number },
    );
    expect(STATEMENT_TIME_LIMIT_ERRNOS).toContain(err?.errno);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('When the server and mysql2 exchange a DATETIME, Then both read it as UTC', async () => {
    const [rows] = await db!.pool.query<RowDataPacket[]>("SELECT CAST('2030-01-02 03:04:05.678' AS DATETIME(6)) AS at");
    expect((rows[0]!.at as Date).toISOString()).toBe('2030-01-02T03:04:05.678Z');
  });

  it('When a database cannot be opened, Then the error names the database and the code, never the user or the password [test:no-credential-in-errors]', async () => {
    const err = await openJobsDatabase({ database: 'mysql' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    const { user, password } = mysqlOptions('mysql');
    const message = (err as Error).message;
    expect(message).toMatch(/mysql .*1044/);
    expect(message).not.toContain(String(user));
    expect(message).not.toContain(String(password));
    expect((err as Error).cause).toBeUndefined();
  });
});

describe('withTransaction', () => {
  it('When the work returns, Then its writes are committed and the connection goes back to the pool', async () => {
    const id = await withTransaction(db!.pool, async (tx) => {
      const [added] = await tx.query<ResultSetHeader>(
        "INSERT INTO products (name, description, price_cents) VALUES ('Committed', '', 1)",
      );
      return added.insertId;
    });
    const [rows] = await db!.pool.query<RowDataPacket[]>('SELECT name FROM products WHERE id = ?', [id]);
    expect(rows[0]?.name).toBe('Committed');
  });

  it('When the work throws, Then its writes are rolled back, the error reaches the caller, and the connection goes back [test:transaction-rolls-back]', async () => {
    const before = await countProducts();
    const failure = new Error('the export failed half-way');
    await expect(
      withTransaction(db!.pool, async (tx) => {
        await tx.query("INSERT INTO products (name, description, price_cents) VALUES ('Rolled back', '', 1)");
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await countProducts()).toBe(before);
    // Two connections in the pool: three more transactions in a row would hang if any had leaked.
    for (let i = 0; i < 3; i += 1) await withTransaction(db!.pool, async (tx) => tx.query('SELECT 1'));
  });

  it('When a statement fails inside the work (a CHECK constraint), Then nothing of the transaction stays', async () => {
    const before = await countProducts();
    await expect(
      withTransaction(db!.pool, async (tx) => {
        await tx.query("INSERT INTO products (name, description, price_cents) VALUES ('Rolled back', '', 1)");
        await tx.query("INSERT INTO products (name, description, price_cents) VALUES ('Rolled back', '', -5)");
      }),
    ).rejects.toMatchObject({ errno: expect.any(Number) });
    expect(await countProducts()).toBe(before);
  });

  it('When a transaction holds a row lock, Then a second writer gives up after the 1 s lock wait (errno 1205) instead of hanging [test:lock-wait-gives-up]', async () => {
    await withTransaction(db!.pool, async (tx) => {
      await tx.query('SELECT id FROM products WHERE id = 1 FOR UPDATE');
      const started = Date.now();
      const err = await db!.pool.query("UPDATE products SET name = 'waited' WHERE id = 1").then(
        () => undefined,
        (e: unknown) => e as { errno?: number },
      );
      expect(err?.errno).toBe(1205);
      expect(Date.now() - started).toBeLessThan(2500);
    });
  });
});
