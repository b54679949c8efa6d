// Replay against the real database: a failed job is repeated as a new job linked to it, with its
// own snapshot, on its route, through the admission gate, with the deadline it is given; the
// failed job and its dead letter stay as they were. Only a failed job may be replayed, a retried
// request with the same key makes no second job, and a key names one operation only.
import { randomUUID } from 'node:crypto';
import type { RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sleep } from '@tasks-lab/lab-kit';
import { readJob, submitSnapshot } from '@tasks-lab/11-mysql-leases';
import { admitExport, BULK_QUEUE, readGateCounter } from '@tasks-lab/13-admission';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { readShortRecoveryOptions } from '../src/options.ts';
import { READ_DEAD_LETTER } from '../src/dead-letter.ts';
import { READ_REPLAY_OF } from '../src/recovery-queries.ts';
import { recoverBatch } from '../src/recovery.ts';
import { replayJob } from '../src/replay.ts';
import { batchOptions, DELETE_PRODUCT, queuesOfJob, REPRICE_PRODUCT } from '../scripts/recovery-scenarios.ts';

const timings = readShortRecoveryOptions({});
let db: FreshDatabase;

beforeAll(async () => {
  db = await freshDatabase('replay', { settings: timings });
}, 60_000);
afterAll(() => db?.drop());
beforeEach(async () => {
  await db.pool.query(
    `UPDATE export_jobs SET status = 'succeeded', lease_token = NULL WHERE status IN ('queued', 'running')`,
  );
  await db.pool.query('UPDATE export_admission_gate SET active_jobs = 0 WHERE id = 1');
});

/** A job that failed for real: admitted with a 1 ms deadline, then failed by the scanner (deadline_exceeded, one dead letter). */
async function failedJob(queueName?: typeof BULK_QUEUE, productIds: number[] = [3, 1]): Promise<string> {
  const { jobId } = await admitExport(db.pool, productIds, { deadlineMs: 1, queueName });
  await sleep(10);
  const report = await recoverBatch(db.pool, batchOptions(timings));
  expect(report.failed.map((j) => j.jobId)).toContain(jobId);
  return jobId;
}

/** The job's deadline, counted from its creation, in ms (both are the server's NOW(6)). Parameters: [jobId]. */
const DEADLINE_SPAN = `SELECT TIMESTAMPDIFF(MICROSECOND, created_at, deadline_at) AS micros FROM export_jobs WHERE id = ?`;
const deadlineSpanMs = async (jobId: string) =>
  Number(((await db.pool.query<RowDataPacket[]>(DEADLINE_SPAN, [jobId]))[0][0] as RowDataPacket).micros) / 1000;
/** How many jobs the table holds: a refused request adds none. Parameters: none. */
const COUNT_JOBS = `SELECT COUNT(*) AS n FROM export_jobs`;
const jobCount = async () => Number(((await db.pool.query<RowDataPacket[]>(COUNT_JOBS))[0][0] as RowDataPacket).n);

const replayOf = async (jobId: string) =>
  ((await db.pool.query<RowDataPacket[]>(READ_REPLAY_OF, [jobId]))[0][0] as RowDataPacket | undefined)?.replay_of;
const deadLetter = async (jobId: string) =>
  ((await db.pool.query<RowDataPacket[]>(READ_DEAD_LETTER, [jobId]))[0][0] as RowDataPacket | undefined)?.reason;

describe('replayJob', () => {
  it('When a failed job is replayed, Then a new queued job names it in replay_of, on its route, and the old failure and dead letter are kept [test:replay-links-new-job]', async () => {
    const failedId = await failedJob(BULK_QUEUE);
    const before = await readJob(db.pool, failedId);
    const gate = await readGateCounter(db.pool);
    const replayed = await replayJob(db.pool, failedId);
    expect(replayed).toMatchObject({ replayOf: failedId, created: true });
    expect(replayed.jobId).not.toBe(failedId);
    expect(await replayOf(replayed.jobId)).toBe(failedId);
    const fresh = await readJob(db.pool, replayed.jobId);
    expect(fresh).toMatchObject({ status: 'queued', attempts: 0 });
    expect(fresh?.snapshot.map((p) => p.id)).toEqual([3, 1]);
    expect(await queuesOfJob(db.pool, replayed.jobId)).toEqual([BULK_QUEUE]);
    expect(await readGateCounter(db.pool)).toBe(gate + 1);
    expect(await readJob(db.pool, failedId)).toEqual(before);
    expect(await deadLetter(failedId)).toBe('deadline_exceeded');
  });

  it('When the replay is retried with the same Idempotency-Key, Then it answers the first replay and creates nothing [test:replay-idempotent]', async () => {
    const failedId = await failedJob();
    const first = await replayJob(db.pool, failedId, { idempotencyKey: `replay-${failedId}` });
    const again = await replayJob(db.pool, failedId, { idempotencyKey: `replay-${failedId}` });
    expect(again).toEqual({ ...first, created: false });
  });

  it('When the job is not failed, or does not exist, Then it is refused (409 not-replayable, 404) and nothing is created [test:replay-only-failed]', async () => {
    const { jobId } = await admitExport(db.pool, [1]);
    const gate = await readGateCounter(db.pool);
    await expect(replayJob(db.pool, jobId)).rejects.toMatchObject({ code: 'not-replayable', status: 409 });
    await expect(replayJob(db.pool, randomUUID())).rejects.toMatchObject({ code: 'job-not-found', status: 404 });
    expect(await readGateCounter(db.pool)).toBe(gate);
  });

  it("When a product was repriced and another deleted since the failure, Then the replay carries the failed job's snapshot, equal by value [test:replay-copies-snapshot]", async () => {
    const failedId = await failedJob(undefined, [5, 4]);
    const failed = await readJob(db.pool, failedId);
    await db.pool.query(REPRICE_PRODUCT, [700, 5]);
    await db.pool.query(DELETE_PRODUCT, [4]);
    const replayed = await replayJob(db.pool, failedId);
    const fresh = await readJob(db.pool, replayed.jobId);
    expect(fresh?.snapshot).toStrictEqual(failed?.snapshot);
    expect(fresh?.snapshot.map((p) => p.id)).toEqual([5, 4]);
  });

  it("When a deadline is given, Then the replay gets that deadline, not the course's 10 minutes [test:replay-deadline-setting]", async () => {
    const failedId = await failedJob();
    const replayed = await replayJob(db.pool, failedId, { deadlineMs: 123_000 });
    expect(await deadlineSpanMs(replayed.jobId)).toBe(123_000);
    const byDefault = await replayJob(db.pool, await failedJob());
    expect(await deadlineSpanMs(byDefault.jobId)).toBe(10 * 60_000);
  });

  it('When a key names a replay, Then a submission or a replay of another job with it is refused (409) and nothing is created, and the other way round [test:replay-key-names-one-job]', async () => {
    const first = await failedJob();
    const other = await failedJob();
    const key = `replay-${first}`;
    const replayed = await replayJob(db.pool, first, { idempotencyKey: key });
    const before = { jobs: await jobCount(), gate: await readGateCounter(db.pool) };
    await expect(replayJob(db.pool, other, { idempotencyKey: key })).rejects.toMatchObject({
      code: 'idempotency-key-reused',
      status: 409,
    });
    // The same products as the replay, with its key: still another request.
    await expect(admitExport(db.pool, [3, 1], { idempotencyKey: key })).rejects.toMatchObject({
      code: 'idempotency-key-reused',
      status: 409,
    });
    await expect(submitSnapshot(db.pool, [3, 1], { idempotencyKey: key })).rejects.toMatchObject({
      code: 'idempotency-key-reused',
      status: 409,
    });
    // A submission's key, then a replay with it.
    const submitted = await admitExport(db.pool, [3, 1], { idempotencyKey: `submit-${other}` });
    const afterSubmit = { jobs: await jobCount(), gate: await readGateCounter(db.pool) };
    await expect(replayJob(db.pool, other, { idempotencyKey: `submit-${other}` })).rejects.toMatchObject({
      code: 'idempotency-key-reused',
      status: 409,
    });
    expect({ jobs: await jobCount(), gate: await readGateCounter(db.pool) }).toEqual(afterSubmit);
    expect(afterSubmit).toEqual({ jobs: before.jobs + 1, gate: before.gate + 1 });
    expect(await replayOf(submitted.jobId)).toBeNull();
    expect(await replayJob(db.pool, first, { idempotencyKey: key })).toEqual({ ...replayed, created: false });
  });

  it('When the service is full, Then a replay is refused like any admission (503) [test:replay-passes-the-gate]', async () => {
    const failedId = await failedJob();
    await admitExport(db.pool, [1]);
    await expect(replayJob(db.pool, failedId, { rules: { admissionLimit: 1 } })).rejects.toMatchObject({
      code: 'capacity-exceeded',
      status: 503,
    });
  });
});
