// The cancel request against the real database: a durable wish on an active job, harmless to
// repeat, refused for a terminal job, 404 for none; a holder stops seeing canContinue, its
// finish refuses to publish, and the scanner turns the wish into cancelled (leaving the gate).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claim, EXPIRE_LEASE, PASS_DEADLINE, readJob } from '@tasks-lab/11-mysql-leases';
import { admitExport, finishAndLeave, readGateCounter } from '@tasks-lab/13-admission';
import { canContinue } from '../src/can-continue.ts';
import { requestCancel } from '../src/cancel.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { readShortRecoveryOptions } from '../src/options.ts';
import { recoverBatch } from '../src/recovery.ts';
import { batchOptions } from '../scripts/recovery-scenarios.ts';

const timings = readShortRecoveryOptions({});
let db: FreshDatabase;

beforeAll(async () => {
  db = await freshDatabase('cancel', { settings: timings });
}, 60_000);
afterAll(() => db?.drop());
beforeEach(async () => {
  await db.pool.query(
    `UPDATE export_jobs SET status = 'succeeded', lease_token = NULL WHERE status IN ('queued', 'running')`,
  );
  await db.pool.query('UPDATE export_admission_gate SET active_jobs = 0 WHERE id = 1');
});

const admit = async () => (await admitExport(db.pool, [1, 2])).jobId;
// A 30 s lease, not the short 1.5 s one: a slow machine could let the lease pass before a test
// expects canContinue or finishAndLeave to succeed. Tests that need it passed use EXPIRE_LEASE.
const claimIt = (jobId: string) => claim(db.pool, jobId, { leaseMs: 30_000, maxAttempts: timings.maxAttempts });

describe('requestCancel', () => {
  it('When a queued job is asked to cancel twice, Then the first answers cancel-requested, the second already-requested, and the scanner cancels it [test:cancel-request-idempotent]', async () => {
    const jobId = await admit();
    expect(await requestCancel(db.pool, jobId)).toEqual({ outcome: 'cancel-requested', status: 'queued' });
    expect(await requestCancel(db.pool, jobId)).toEqual({ outcome: 'already-requested', status: 'queued' });
    expect(await readJob(db.pool, jobId)).toMatchObject({ status: 'queued', cancelRequested: true });
    expect(await claimIt(jobId)).toBeUndefined();
    const report = await recoverBatch(db.pool, batchOptions(timings));
    expect(report.cancelled.map((j) => j.jobId)).toEqual([jobId]);
    expect(await readGateCounter(db.pool)).toBe(0);
    expect(await requestCancel(db.pool, jobId)).toEqual({ outcome: 'terminal', status: 'cancelled' });
  });

  it('When a running job is asked to cancel, Then its holder can no longer continue nor publish, and once its lease passes the scanner cancels it [test:cancel-running-never-publishes]', async () => {
    const jobId = await admit();
    const held = await claimIt(jobId);
    expect(held).toBeDefined();
    expect(await canContinue(db.pool, jobId, held!.token)).toBe(true);
    expect(await requestCancel(db.pool, jobId)).toEqual({ outcome: 'cancel-requested', status: 'running' });
    expect(await canContinue(db.pool, jobId, held!.token)).toBe(false);
    expect(await finishAndLeave(db.pool, jobId, held!.token, 'artifact.json')).toBe(false);
    await db.pool.query(EXPIRE_LEASE, [jobId]);
    const report = await recoverBatch(db.pool, batchOptions(timings));
    expect(report.cancelled).toEqual([{ jobId, from: 'running', to: 'cancelled', reason: 'user_cancelled' }]);
    expect(await readJob(db.pool, jobId)).toMatchObject({ status: 'cancelled', resultRef: null });
    expect(await readGateCounter(db.pool)).toBe(0);
  });

  it('When a finished job is asked to cancel, Then nothing changes and the answer says terminal [test:cancel-terminal-unchanged]', async () => {
    const jobId = await admit();
    const held = await claimIt(jobId);
    expect(await finishAndLeave(db.pool, jobId, held!.token, 'artifact.json')).toBe(true);
    const before = await readJob(db.pool, jobId);
    expect(await requestCancel(db.pool, jobId)).toEqual({ outcome: 'terminal', status: 'succeeded' });
    expect(await readJob(db.pool, jobId)).toEqual(before);
  });

  it('When there is no such job, Then it throws job-not-found (404) [test:cancel-unknown-404]', async () => {
    await expect(requestCancel(db.pool, randomUUID())).rejects.toMatchObject({ code: 'job-not-found', status: 404 });
  });
});

describe('canContinue', () => {
  it('When the token is old, the lease passed or the deadline passed, Then it says no [test:can-continue-conditions]', async () => {
    const jobId = await admit();
    const held = await claimIt(jobId);
    expect(await canContinue(db.pool, jobId, held!.token)).toBe(true);
    expect(await canContinue(db.pool, jobId, randomUUID())).toBe(false);
    await db.pool.query(PASS_DEADLINE, [jobId]);
    expect(await canContinue(db.pool, jobId, held!.token)).toBe(false);
    const other = await admit();
    const otherHeld = await claimIt(other);
    await db.pool.query(EXPIRE_LEASE, [other]);
    expect(await canContinue(db.pool, other, otherHeld!.token)).toBe(false);
  });
});
