// The data layer's promises, one by one, against a database of this file's own.
import { sleep } from '@tasks-lab/lab-kit';
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../src/database.ts';
import { freshDatabase, type FreshDatabase } from '../src/scratch-databases.ts';
import { IdempotencyKeyReusedError, InvalidProductIdsError, MissingProductsError } from '../src/errors.ts';
import { artifactName, claim, finish, readJob, requeueExpiredLease, submitSnapshot } from '../src/leases.ts';

let db: FreshDatabase | undefined;
beforeAll(async () => {
  db = await freshDatabase('leases');
}, 60_000);
afterAll(() => db?.drop());

const pool = () => db!.pool;
const jobCount = async () =>
  Number((await pool().query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM export_jobs'))[0][0]?.n);
/** Sets columns of one job directly, to put it in a state the API reaches only slowly. */
const setColumns = async (id: string, assignments: string) => {
  const [changed] = await pool().query<ResultSetHeader>(`UPDATE export_jobs SET ${assignments} WHERE id = ?`, [id]);
  expect(changed.affectedRows).toBe(1);
};
const rejection = (attempt: Promise<unknown>) =>
  attempt.then(
    () => undefined,
    (err: unknown) => err,
  );

describe('submitSnapshot', () => {
  it('When products repeat, Then the job freezes each once, in the order asked for, with their current rows', async () => {
    const { jobId, created } = await submitSnapshot(pool(), [3, 1, 3]);
    const row = await readJob(pool(), jobId);
    expect(created).toBe(true);
    expect(row).toMatchObject({ status: 'queued', attempts: 0, leaseToken: null, resultRef: null });
    expect(row!.snapshot).toEqual([
      { id: 3, name: 'Fountain pen', description: 'Steel nib, blue ink cartridge', is_active: true, price_cents: 2450 },
      { id: 1, name: 'Desk lamp', description: 'Adjustable arm, warm white LED', is_active: true, price_cents: 3499 },
    ]);
  });

  it.each([
    ['no ids', []],
    ['101 distinct ids', Array.from({ length: 101 }, (_, i) => i + 1)],
    ['a zero', [1, 0]],
    ['a negative id', [-2]],
    ['a fraction', [1.5]],
  ])('When the request has %s, Then InvalidProductIdsError (422) and no row', async (_what, ids) => {
    const before = await jobCount();
    expect(await rejection(submitSnapshot(pool(), ids))).toMatchObject({
      constructor: InvalidProductIdsError,
      status: 422,
      code: 'invalid-product-ids',
    });
    expect(await jobCount()).toBe(before);
  });

  it('When some products do not exist, Then MissingProductsError (422) names them and no row is inserted', async () => {
    const before = await jobCount();
    const err = await rejection(submitSnapshot(pool(), [1, 9001, 2, 9002]));
    expect(err).toBeInstanceOf(MissingProductsError);
    expect(err).toMatchObject({ status: 422, code: 'missing-products', missingIds: [9001, 9002] });
    expect((err as Error).message).toMatch(/9001, 9002/);
    expect(await jobCount()).toBe(before);
  });

  it('When the same Idempotency-Key comes with the same request, Then the first job is the answer and no second row appears', async () => {
    const first = await submitSnapshot(pool(), [1, 2], { idempotencyKey: 'order-17-export' });
    const before = await jobCount();
    const retry = await submitSnapshot(pool(), [1, 2, 1], { idempotencyKey: 'order-17-export' });
    expect(retry).toEqual({ jobId: first.jobId, created: false });
    expect(await jobCount()).toBe(before);
  });

  it('When the same Idempotency-Key comes with other products, Then IdempotencyKeyReusedError (409) and no row', async () => {
    await submitSnapshot(pool(), [1], { idempotencyKey: 'reused-key' });
    const before = await jobCount();
    expect(await rejection(submitSnapshot(pool(), [2], { idempotencyKey: 'reused-key' }))).toMatchObject({
      constructor: IdempotencyKeyReusedError,
      status: 409,
      code: 'idempotency-key-reused',
    });
    expect(await jobCount()).toBe(before);
  });

  it('When five submissions with one key arrive at once, Then they all answer the same job and only one row exists', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => submitSnapshot(pool(), [4], { idempotencyKey: 'burst-key' })),
    );
    expect(new Set(results.map((r) => r.jobId)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const [rows] = await pool().query<RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM export_jobs WHERE idempotency_key = 'burst-key'",
    );
    expect(Number(rows[0]?.n)).toBe(1);
  });
});

describe('claim', () => {
  it('When another transaction holds the job row, Then a claim answers nothing at once instead of waiting (SKIP LOCKED)', async () => {
    const { jobId } = await submitSnapshot(pool(), [1]);
    await withTransaction(pool(), async (tx) => {
      await tx.query('SELECT id FROM export_jobs WHERE id = ? FOR UPDATE', [jobId]);
      const started = Date.now();
      expect(await claim(pool(), jobId)).toBeUndefined();
      // The outcome is the proof: a claim that waited for the lock would fail with 1205 after the 1 s lock
      // wait, not answer undefined. The bound is only a sanity check, loose so a stalled event loop cannot trip it.
      expect(Date.now() - started).toBeLessThan(5000);
    });
    expect(await claim(pool(), jobId)).toMatchObject({ attempts: 1 });
  });

  it.each([
    ['its deadline has passed', 'deadline_at = TIMESTAMPADD(SECOND, -1, NOW(6))'],
    ['a cancel was requested', 'cancel_requested = TRUE'],
    ['it used all its attempts', 'attempts = 3'],
    ['its next attempt is not due', 'next_attempt_at = TIMESTAMPADD(SECOND, 30, NOW(6))'],
    ['it already succeeded', "status = 'succeeded'"],
  ])(
    'When a queued job is claimed but %s, Then the claim gets nothing and the row is unchanged',
    async (_why, assignments) => {
      const { jobId } = await submitSnapshot(pool(), [1]);
      await setColumns(jobId, assignments);
      const before = await readJob(pool(), jobId);
      expect(await claim(pool(), jobId, { maxAttempts: 3 })).toBeUndefined();
      expect(await readJob(pool(), jobId)).toEqual(before);
    },
  );

  it('When a job id does not exist, Then the claim gets nothing', async () => {
    expect(await claim(pool(), '00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });
});

describe('finish and requeue', () => {
  it.each([
    ['the deadline has passed', 'deadline_at = TIMESTAMPADD(SECOND, -1, NOW(6))'],
    ['a cancel was requested', 'cancel_requested = TRUE'],
  ])(
    'When the holder finishes but %s, Then nothing is published even though the lease is live',
    async (_why, assignments) => {
      const { jobId } = await submitSnapshot(pool(), [1]);
      const claimed = await claim(pool(), jobId, { leaseMs: 30_000 });
      await setColumns(jobId, assignments);
      expect(await finish(pool(), jobId, claimed!.token, 'late.json')).toBe(false);
      expect(await readJob(pool(), jobId)).toMatchObject({ status: 'running', resultRef: null });
    },
  );

  it('When the holder finishes in time, Then the job succeeds with the result and its row count', async () => {
    const { jobId } = await submitSnapshot(pool(), [1, 2, 3]);
    const claimed = await claim(pool(), jobId);
    const name = artifactName(jobId, claimed!.token);
    expect(await finish(pool(), jobId, claimed!.token, name)).toBe(true);
    expect(await readJob(pool(), jobId)).toMatchObject({ status: 'succeeded', resultRef: name, resultRows: 3 });
  });

  it('When a lease is still live, Then the manual requeue changes nothing', async () => {
    const { jobId } = await submitSnapshot(pool(), [1]);
    await claim(pool(), jobId, { leaseMs: 30_000 });
    expect(await requeueExpiredLease(pool(), jobId)).toBe(false);
    expect(await readJob(pool(), jobId)).toMatchObject({ status: 'running', attempts: 1 });
  });

  it('When a lease passed and the job is requeued with a backoff, Then it is queued, without a token, due after the backoff', async () => {
    const { jobId } = await submitSnapshot(pool(), [1]);
    await claim(pool(), jobId, { leaseMs: 100 });
    await sleep(250);
    expect(await requeueExpiredLease(pool(), jobId, { backoffMs: 10_000 })).toBe(true);
    const row = await readJob(pool(), jobId);
    expect(row).toMatchObject({ status: 'queued', leaseToken: null, leaseUntil: null, attempts: 1 });
    expect(row!.nextAttemptAt.getTime() - row!.updatedAt.getTime()).toBeGreaterThanOrEqual(9_990);
  });
});

describe('artifactName', () => {
  it('When given a job id and a token, Then the name carries both', () => {
    const id = '6f1c2a3b-0000-4000-8000-000000000001';
    const token = '9a8b7c6d-0000-4000-8000-000000000002';
    expect(artifactName(id, token)).toBe(`${id}.${token}.json`);
  });

  it('When a part is not a UUID (a path, say), Then it refuses to build a name', () => {
    expect(() => artifactName('../../etc/passwd', '9a8b7c6d-0000-4000-8000-000000000002')).toThrow(/UUID/);
  });
});
