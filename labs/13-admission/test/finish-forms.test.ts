// The two forms of lesson 13's finish against the real database (a fresh one for this file):
// finishAndLeave (FINISH_FORM=transaction: FINISH, then LEAVE_GATE, in one transaction) and
// finishAndLeaveInOneStatement (the default: one multi-table UPDATE). Both publish and leave the
// gate together or not at all; an old holder changes nothing; two finishes with one token leave
// once; an exit with no entry is refused with the job's change. And what each costs.
import type { PoolConnection } from 'mysql2/promise';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claim, readJob, seedProducts } from '@tasks-lab/11-mysql-leases';
import { admitExport } from '../src/admission.ts';
import { sleep } from '@tasks-lab/lab-kit';
import { countingCalls } from '@tasks-lab/lab-kit/testing';
import { LOCK_GATE } from '../src/admission-queries.ts';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import {
  countActiveJobs,
  finishAndLeave,
  finishAndLeaveInOneStatement,
  finishOfForm,
  readGateCounter,
} from '../src/gate.ts';
import { COURSE_TIMINGS } from '../src/options.ts';

type Finish = typeof finishAndLeave;

/** Another transaction's hold on a job row (a scanner pass, a cancel). Parameters: [id]. */
const HOLD_JOB_ROW = 'SELECT id FROM export_jobs WHERE id = ? FOR UPDATE';

let db: FreshDatabase;
beforeAll(async () => {
  db = await freshDatabase('finishforms', { connectionLimit: 6 });
  await seedProducts(db.pool, 10);
}, 60_000);
afterAll(() => db?.drop());

beforeEach(async () => {
  await db.pool.query(`UPDATE export_jobs SET status = 'succeeded' WHERE status IN ('queued', 'running')`);
  await db.pool.query('UPDATE export_admission_gate SET active_jobs = 0 WHERE id = 1');
});

/** A job admitted (the counter is 1) and claimed: its token is the holder's. */
async function claimedJob(): Promise<{ jobId: string; token: string }> {
  const { jobId } = await admitExport(db.pool, [1]);
  const claimed = await claim(db.pool, jobId, { leaseMs: 30_000 });
  if (!claimed) throw new Error('setup: the claim got nothing');
  return { jobId, token: claimed.token };
}

const ref = (jobId: string) => `${jobId}.json`;
const service = async () => ({ counter: await readGateCounter(db.pool), active: await countActiveJobs(db.pool) });

const publishesAndLeaves = (finish: Finish) => async () => {
  const { jobId, token } = await claimedJob();
  expect(await service()).toEqual({ counter: 1, active: 1 });
  expect(await finish(db.pool, jobId, token, ref(jobId))).toBe(true);
  expect(await readJob(db.pool, jobId)).toMatchObject({ status: 'succeeded', resultRef: ref(jobId) });
  expect(await finish(db.pool, jobId, token, ref(jobId))).toBe(false);
  expect(await service()).toEqual({ counter: 0, active: 0 });
};

const oldHolderChangesNothing = (finish: Finish) => async () => {
  const { jobId } = await claimedJob();
  expect(await finish(db.pool, jobId, '00000000-0000-4000-8000-000000000000', ref(jobId))).toBe(false);
  expect(await readJob(db.pool, jobId)).toMatchObject({ status: 'running', resultRef: null });
  expect(await service()).toEqual({ counter: 1, active: 1 });
};

const twoAtOnceLeaveOnce = (finish: Finish) => async () => {
  for (let round = 0; round < 5; round++) {
    const { jobId, token } = await claimedJob();
    const results = await Promise.all([
      finish(db.pool, jobId, token, ref(jobId)),
      finish(db.pool, jobId, token, ref(jobId)),
    ]);
    expect(results.sort()).toEqual([false, true]);
    expect(await service()).toEqual({ counter: 0, active: 0 });
  }
};

const exitWithoutEntryRefused = (finish: Finish) => async () => {
  const { jobId, token } = await claimedJob();
  // The counter lost its entry (a bug elsewhere): the CHECK refuses the exit, and the job's change with it.
  await db.pool.query('UPDATE export_admission_gate SET active_jobs = 0 WHERE id = 1');
  await expect(finish(db.pool, jobId, token, ref(jobId))).rejects.toMatchObject({ errno: expect.any(Number) });
  expect(await readJob(db.pool, jobId)).toMatchObject({ status: 'running', resultRef: null });
  expect(await readGateCounter(db.pool)).toBe(0);
};

/** The pool with its round trips counted: each query on it, and each connection borrowed (a transaction runs on one). */
const countingPool = () => countingCalls(db.pool, ['query', 'getConnection']);

describe('finishAndLeave (FINISH_FORM=transaction)', () => {
  it(
    'When the holder finishes, Then the job is published and leaves the gate; again, nothing changes [test:finish-transaction-leaves-gate]',
    publishesAndLeaves(finishAndLeave),
  );
  it(
    'When an old holder finishes, Then nothing changes [test:finish-transaction-old-holder-refused]',
    oldHolderChangesNothing(finishAndLeave),
  );
  it(
    'When two finishes with one token run at once, Then one publishes and the gate is left once [test:finish-transaction-two-at-once]',
    twoAtOnceLeaveOnce(finishAndLeave),
  );
  it(
    'When an exit has no entry, Then the CHECK refuses it and the job stays running [test:finish-transaction-check-refuses-both]',
    exitWithoutEntryRefused(finishAndLeave),
  );
  it('When the holder finishes, Then it takes a transaction of its own [test:finish-transaction-round-trips]', async () => {
    const { jobId, token } = await claimedJob();
    const counted = countingPool();
    expect(await finishAndLeave(counted.counted, jobId, token, ref(jobId))).toBe(true);
    expect({ connections: counted.calls.getConnection, poolQueries: counted.calls.query }).toEqual({
      connections: 1,
      poolQueries: 0,
    });
  });
});

describe('finishAndLeaveInOneStatement (FINISH_FORM=one-statement, the default)', () => {
  it(
    'When the holder finishes, Then the job is published and leaves the gate; again, nothing changes [test:finish-one-statement-leaves-gate]',
    publishesAndLeaves(finishAndLeaveInOneStatement),
  );
  it(
    'When an old holder finishes, Then nothing changes [test:finish-one-statement-old-holder-refused]',
    oldHolderChangesNothing(finishAndLeaveInOneStatement),
  );
  it(
    'When two finishes with one token run at once, Then one publishes and the gate is left once [test:finish-one-statement-two-at-once]',
    twoAtOnceLeaveOnce(finishAndLeaveInOneStatement),
  );
  it(
    'When an exit has no entry, Then the CHECK refuses the whole statement and the job stays running [test:finish-one-statement-check-refuses-both]',
    exitWithoutEntryRefused(finishAndLeaveInOneStatement),
  );
  it('When the holder finishes, Then it is one statement on the pool and no transaction [test:finish-one-statement-one-round-trip]', async () => {
    const { jobId, token } = await claimedJob();
    const counted = countingPool();
    expect(await finishAndLeaveInOneStatement(counted.counted, jobId, token, ref(jobId))).toBe(true);
    expect({ connections: counted.calls.getConnection, poolQueries: counted.calls.query }).toEqual({
      connections: 0,
      poolQueries: 1,
    });
  });
  it('When another transaction holds the job row, Then the finish waits for it without holding the gate: the job row first, then the gate row [test:finish-one-statement-lock-order]', async () => {
    const { jobId, token } = await claimedJob();
    const holder: PoolConnection = await db.pool.getConnection();
    let finishing: Promise<boolean> | undefined;
    try {
      await holder.beginTransaction();
      await holder.query(HOLD_JOB_ROW, [jobId]);
      finishing = finishAndLeaveInOneStatement(db.pool, jobId, token, ref(jobId));
      await sleep(200);
      // Had the finish locked the gate first, this would wait for it (a deadlock: each holds what the other wants).
      await holder.query(LOCK_GATE);
      await holder.commit();
    } finally {
      holder.release();
    }
    expect(await finishing).toBe(true);
    expect(await service()).toEqual({ counter: 0, active: 0 });
  });
  it('FINISH_FORM names the two forms; one-statement is the default [test:finish-form-default]', () => {
    expect(finishOfForm('one-statement')).toBe(finishAndLeaveInOneStatement);
    expect(finishOfForm('transaction')).toBe(finishAndLeave);
    expect(COURSE_TIMINGS.finishForm).toBe('one-statement');
  });
});
