// Grades the try-it-yourself exercise: solutions/renew-lease.ts by default,
// exercise/renew-lease.ts with LAB_EXERCISE=student (pnpm lab 11 --exercise).
import { loadExercise, sleep } from '@tasks-lab/lab-kit';
import type { ResultSetHeader } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from '../src/scratch-databases.ts';
import { claim, finish, readJob, submitSnapshot } from '../src/leases.ts';

const { renewLease } = await loadExercise<typeof import('../solutions/renew-lease.ts')>(
  import.meta.url,
  'renew-lease.ts',
);

let db: FreshDatabase | undefined;
beforeAll(async () => {
  db = await freshDatabase('exercise');
}, 60_000);
afterAll(() => db?.drop());

/** A job claimed with `leaseMs`, submitted with `deadlineMs`. */
async function claimedJob(leaseMs: number, deadlineMs = 60_000) {
  const { jobId } = await submitSnapshot(db!.pool, [1], { deadlineMs });
  const claimed = await claim(db!.pool, jobId, { leaseMs });
  if (!claimed) throw new Error('the claim got nothing');
  return claimed;
}

describe('exercise: renew a lease', () => {
  it('When the holder renews a live lease, Then it answers true and the lease now ends about leaseMs from now', async () => {
    // Race prevented: a 1 s lease could pass during a stall before the renewal, which then rightly answered false.
    // A 10 s lease renewed by 60 s (deadline 120 s, so no cap): the end moves by about 50 s, never less.
    const job = await claimedJob(10_000, 120_000);
    expect(await renewLease(db!.pool, job.jobId, job.token, { leaseMs: 60_000 })).toBe(true);
    const row = await readJob(db!.pool, job.jobId);
    expect(row!.leaseUntil!.getTime() - job.leaseUntil.getTime()).toBeGreaterThan(40_000);
  });

  it('When another token tries to renew, Then it answers false and the lease is unchanged', async () => {
    const job = await claimedJob(5000);
    expect(await renewLease(db!.pool, job.jobId, '00000000-0000-4000-8000-000000000000', { leaseMs: 20_000 })).toBe(
      false,
    );
    expect((await readJob(db!.pool, job.jobId))!.leaseUntil).toEqual(job.leaseUntil);
  });

  it('When the lease has already passed, Then renewing answers false: a passed lease cannot come back to life [test:exercise-expired-lease-stays-lost]', async () => {
    const job = await claimedJob(200);
    await sleep(400);
    expect(await renewLease(db!.pool, job.jobId, job.token, { leaseMs: 20_000 })).toBe(false);
    expect((await readJob(db!.pool, job.jobId))!.leaseUntil).toEqual(job.leaseUntil);
  });

  it('When the deadline comes before the new lease end, Then the lease ends at the deadline', async () => {
    // Race prevented: a 1 s lease could pass during a stall before the renewal. Still lease < deadline < renewal.
    const job = await claimedJob(10_000, 30_000);
    expect(await renewLease(db!.pool, job.jobId, job.token, { leaseMs: 60_000 })).toBe(true);
    const row = await readJob(db!.pool, job.jobId);
    expect(row!.leaseUntil).toEqual(row!.deadlineAt);
  });

  it('When a renewal sets the same lease end again (capped at the deadline), Then it still answers true: no row changed, but the lease is not lost [test:exercise-same-instant-not-lost]', async () => {
    // Race prevented: a 1 s lease could pass during a stall before the renewals. Still lease < deadline < renewal.
    const job = await claimedJob(10_000, 30_000);
    expect(await renewLease(db!.pool, job.jobId, job.token, { leaseMs: 60_000 })).toBe(true);
    expect(await renewLease(db!.pool, job.jobId, job.token, { leaseMs: 60_000 })).toBe(true);
  });

  it('When the job was finished, Then renewing answers false', async () => {
    const job = await claimedJob(5000);
    expect(await finish(db!.pool, job.jobId, job.token, 'done.json')).toBe(true);
    expect(await renewLease(db!.pool, job.jobId, job.token)).toBe(false);
  });

  it('When a cancel was requested, Then renewing answers false', async () => {
    const job = await claimedJob(5000);
    const [cancelled] = await db!.pool.query<ResultSetHeader>(
      'UPDATE export_jobs SET cancel_requested = TRUE WHERE id = ?',
      [job.jobId],
    );
    expect(cancelled.affectedRows).toBe(1);
    expect(await renewLease(db!.pool, job.jobId, job.token)).toBe(false);
  });
});
