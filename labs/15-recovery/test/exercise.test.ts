// Grades the try-it-yourself exercise by what the REAL recovery scanner does with it. The
// scanner's batch (src/recovery.ts) calls decideExpiredLease from solutions/expired-lease.ts by
// default, and from exercise/expired-lease.ts with LAB_EXERCISE=student (pnpm -w lab 15
// --exercise): src/expired-lease-rule.ts picks the file. Each test makes a job whose lease has
// expired in a fresh database (a real claim with a long lease, then lesson 11's named
// EXPIRE_LEASE: no short timer to race) and runs one scanner batch, as `pnpm scanner` does.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RowDataPacket } from 'mysql2/promise';
import { errorMessage, loadExercise } from '@tasks-lab/lab-kit';
import { claim, EXPIRE_LEASE, PASS_DEADLINE, readJob } from '@tasks-lab/11-mysql-leases';
import { admitExport } from '@tasks-lab/13-admission';
import { requestCancel } from '../src/cancel.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { decideExpiredLease as scannersRule, EXPIRED_LEASE_RULE_FILE } from '../src/expired-lease-rule.ts';
import { readShortRecoveryOptions } from '../src/options.ts';
import { READ_DEAD_LETTER } from '../src/dead-letter.ts';
import { SET_NEXT_ATTEMPT_AHEAD } from '../src/recovery-queries.ts';
import { recoverBatch, type RecoveryOptions, type RecoveryReport } from '../src/recovery.ts';
import { batchOptions } from '../scripts/recovery-scenarios.ts';

const graded = await loadExercise<typeof import('../solutions/expired-lease.ts')>(import.meta.url, 'expired-lease.ts');

const timings = readShortRecoveryOptions({});
const options = batchOptions(timings);
let db: FreshDatabase;

/** Every earlier test's job done, the gate counter back to 0: each scan sees only its own job. Parameters: none. */
const FINISH_EVERY_ACTIVE_JOB = `UPDATE export_jobs SET status = 'succeeded', lease_token = NULL WHERE status IN ('queued', 'running')`;
const EMPTY_GATE = 'UPDATE export_admission_gate SET active_jobs = 0 WHERE id = 1';

beforeAll(async () => {
  db = await freshDatabase('exercise', { settings: timings });
}, 60_000);
afterAll(() => db?.drop());
beforeEach(async () => {
  await db.pool.query(FINISH_EVERY_ACTIVE_JOB);
  await db.pool.query(EMPTY_GATE);
});

const admit = async () => (await admitExport(db.pool, [1, 2])).jobId;

/** A real claim with a 30 s lease (the tests end it by EXPIRE_LEASE); "no claim" when the job cannot be claimed. */
async function claimOnce(jobId: string): Promise<string> {
  const claimed = await claim(db.pool, jobId, { leaseMs: 30_000, maxAttempts: timings.maxAttempts });
  return claimed ? `claim ${claimed.attempts}` : 'no claim';
}

/** A running job whose lease has just expired: claimed, then its lease moved 1 ms into the past. */
async function expiredLease(): Promise<string> {
  const jobId = await admit();
  expect(await claimOnce(jobId)).toBe('claim 1');
  await db.pool.query(EXPIRE_LEASE, [jobId]);
  return jobId;
}

/** One scanner batch, and what it did to the job: "running -> queued (lease_expired)", "untouched", or why the batch failed. */
async function scan(jobId: string, batch: RecoveryOptions = options): Promise<string> {
  try {
    return whatHappenedTo(await recoverBatch(db.pool, batch), jobId);
  } catch (err) {
    // A pass that committed before the failing one may have moved the job already: say where it is.
    const row = await readJob(db.pool, jobId);
    return `the batch failed, the job is now ${row?.status} (${row?.errorCode}): ${errorMessage(err)}`;
  }
}

function whatHappenedTo(report: RecoveryReport, jobId: string): string {
  const job = [...report.requeued, ...report.redispatched, ...report.cancelled, ...report.failed].find(
    (j) => j.jobId === jobId,
  );
  return job ? `${job.from} -> ${job.to} (${job.reason})` : 'untouched';
}

async function deadLetterOf(jobId: string): Promise<string> {
  const [rows] = await db.pool.query<RowDataPacket[]>(READ_DEAD_LETTER, [jobId]);
  return rows[0] ? String(rows[0].reason) : 'none';
}

describe('exercise: what the scanner does with an expired lease', () => {
  it('When the lab is graded, Then the scanner runs the very function being graded [test:exercise-scanner-runs-it]', () => {
    expect(EXPIRED_LEASE_RULE_FILE).toBe(
      process.env.LAB_EXERCISE === 'student' ? 'exercise/expired-lease.ts' : 'solutions/expired-lease.ts',
    );
    expect(scannersRule).toBe(graded.decideExpiredLease);
  });

  it('When the lease of a job with 3 attempts expires after its 1st, 2nd and 3rd claim, Then the scanner queues it, queues it, then fails it with a dead letter: no 4th claim [test:exercise-third-expiry-fails]', async () => {
    const jobId = await admit();
    const seen: string[] = [];
    for (let round = 1; round <= timings.maxAttempts; round += 1) {
      await db.pool.query(SET_NEXT_ATTEMPT_AHEAD, [0, jobId]); // the backoff, passed (moved, not waited for)
      seen.push(await claimOnce(jobId));
      await db.pool.query(EXPIRE_LEASE, [jobId]);
      seen.push(await scan(jobId));
    }
    await db.pool.query(SET_NEXT_ATTEMPT_AHEAD, [0, jobId]);
    seen.push(await claimOnce(jobId));
    expect(seen).toEqual([
      'claim 1',
      'running -> queued (lease_expired)',
      'claim 2',
      'running -> queued (lease_expired)',
      'claim 3',
      'running -> failed (attempts_exhausted)',
      'no claim',
    ]);
    expect(await deadLetterOf(jobId)).toBe('attempts_exhausted');
  });

  it('When a cancel was requested, Then the scanner cancels the job, even with its deadline passed and no attempts left [test:exercise-cancel-wins]', async () => {
    const jobId = await expiredLease();
    expect((await requestCancel(db.pool, jobId)).outcome).toBe('cancel-requested');
    await db.pool.query(PASS_DEADLINE, [jobId]);
    // One attempt allowed: the claim it had used it up.
    expect(await scan(jobId, { ...options, maxAttempts: 1 })).toBe('running -> cancelled (user_cancelled)');
    expect(await readJob(db.pool, jobId)).toMatchObject({ status: 'cancelled', errorCode: 'user_cancelled' });
    expect(await deadLetterOf(jobId)).toBe('none');
  });

  it('When the deadline has passed, Then the scanner fails the job as deadline_exceeded with a dead letter, even with attempts left [test:exercise-deadline-fails]', async () => {
    const jobId = await expiredLease();
    await db.pool.query(PASS_DEADLINE, [jobId]);
    expect(await scan(jobId)).toBe('running -> failed (deadline_exceeded)');
    expect(await readJob(db.pool, jobId)).toMatchObject({
      status: 'failed',
      attempts: 1,
      errorCode: 'deadline_exceeded',
    });
    expect(await deadLetterOf(jobId)).toBe('deadline_exceeded');
  });
});
