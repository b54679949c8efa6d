// The two forms of lesson 15's claim against the real database (a fresh one for this file): a
// row locked by another transaction is waited for and then claimed; a lock held past one lock
// wait answers 'busy'; a finished or cancelled job is not claimable (claimOrWait says so at once
// even while the row is held, claimInOneUpdate waits for the holder), and a job the holder
// cancels while the claim waits is not claimed; of two claims at once, one wins; and what each
// costs in round trips.
// And the caller's side: a 'busy' delivery put back with DelayedError spends no BullMQ attempt.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool, PoolConnection, RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withResources } from '@tasks-lab/lab-kit';
import { countingCalls } from '@tasks-lab/lab-kit/testing';
import { EXPORT_JOB_NAME, openQueue, startWorker } from '@tasks-lab/08-broker-worker';
import {
  claim,
  readJob,
  WAKE_UP_JOB_OPTIONS,
  withTransaction,
  type DeliveryOutcome,
  type WakeUpJob,
  type WakeUpMessage,
} from '@tasks-lab/11-mysql-leases';
import {
  admitExport,
  exportsAddress,
  FAST_QUEUE,
  finishAndLeave,
  LEAVE_GATE,
  readGateCounter,
  scratchQueuePrefix,
} from '@tasks-lab/13-admission';
import {
  claimInOneUpdate,
  claimOfForm,
  claimOrWait,
  courseClaim,
  putDeliveryBack,
  type ClaimAttempt,
  type ClaimFn,
} from '../src/claim.ts';
import { freshDatabase, openJobsDatabase, type FreshDatabase } from '../src/database.ts';
import { COURSE_TIMINGS, QUEUE_PREFIX, readShortRecoveryOptions } from '../src/options.ts';

const timings = readShortRecoveryOptions();
const OPTIONS = { leaseMs: 30_000, maxAttempts: 3 };

/** The lock wait of the pool the waiting tests claim on: well past a stalled machine's pauses. */
const LONG_LOCK_WAIT_SECONDS = 5;

let db: FreshDatabase;
let longWait: Pool | undefined;
beforeAll(async () => {
  // Enough connections for a holder, two claims and the reads at once.
  db = await freshDatabase('claim', { settings: timings, connectionLimit: 10 });
  // The same database, its sessions waiting 5 s for a row lock instead of 1 s (the statement
  // time limit and the client's query bound kept above it): for the tests whose claim must wait and then get the row.
  longWait = await openJobsDatabase({
    database: db.name,
    settings: {
      ...timings,
      lockWaitSeconds: LONG_LOCK_WAIT_SECONDS,
      statementTimeLimitMs: (LONG_LOCK_WAIT_SECONDS + 5) * 1000,
      queryTimeoutMs: (LONG_LOCK_WAIT_SECONDS + 5) * 1000,
    },
    connectionLimit: 4,
  });
}, 60_000);
afterAll(async () => {
  await longWait?.end().catch(() => {});
  await db?.drop();
});

const pool = (): Pool => db.pool;
/** The pool whose claims wait up to LONG_LOCK_WAIT_SECONDS for a held row. */
const longWaitPool = (): Pool => {
  if (!longWait) throw new Error('setup: the long-lock-wait pool is not open');
  return longWait;
};
const newJob = async () => (await admitExport(pool(), [1], { rules: timings, deadlineMs: timings.deadlineMs })).jobId;

// The tests' own statements (named, parameterised).
/** Another transaction's hold on the job row (a confirmation, a scanner pass). Parameters: [id]. */
const HOLD_JOB_ROW = 'SELECT id FROM export_jobs WHERE id = ? FOR UPDATE';
/** The scanner's cancel, by hand: a queued job with a cancel request becomes cancelled. Parameters: [id]. */
const CANCEL_QUEUED =
  "UPDATE export_jobs SET status = 'cancelled', cancel_requested = TRUE, updated_at = NOW(6) WHERE id = ? AND status = 'queued'";
/** A cancel request that no scanner has acted on yet. Parameters: [id]. */
const REQUEST_CANCEL = 'UPDATE export_jobs SET cancel_requested = TRUE WHERE id = ?';

/** A transaction of its own holding the job's row until release() (commit) is called. */
async function holdRow(jobId: string): Promise<{ tx: PoolConnection; release: () => Promise<void> }> {
  const tx = await pool().getConnection();
  await tx.beginTransaction();
  await tx.query<RowDataPacket[]>(HOLD_JOB_ROW, [jobId]);
  let released = false;
  return {
    tx,
    release: async () => {
      if (released) return;
      released = true;
      try {
        await tx.commit();
      } finally {
        tx.release();
      }
    },
  };
}

/** Cancels a queued job as the scanner will: the row and the gate counter in ONE transaction. */
async function cancelWith(tx: PoolConnection, jobId: string): Promise<void> {
  await tx.query(CANCEL_QUEUED, [jobId]);
  await tx.query(LEAVE_GATE);
}

/** Runs `claimFn` (on `on`, the 1 s lock-wait pool unless told) and tells whether it has settled yet. */
function started(claimFn: ClaimFn, jobId: string, on: Pool = pool()) {
  const t0 = Date.now();
  let settled = false;
  const result = claimFn(on, jobId, OPTIONS).then((attempt) => {
    settled = true;
    return { attempt, ms: Date.now() - t0 };
  });
  return { result, settled: () => settled };
}

const outcomeOf = (attempt: ClaimAttempt) => attempt.outcome;

// The behaviour both forms of the fixed claim share, each run below with one of them.

const waitsForLockedRow = (claimFn: ClaimFn) => async () => {
  const jobId = await newJob();
  const holder = await holdRow(jobId);
  // On the 5 s lock-wait pool: with 1 s, a slow machine could stretch the 300 ms sleep and the
  // release past the lock wait, and the claim would answer busy instead of waiting it out.
  const claiming = started(claimFn, jobId, longWaitPool());
  await sleep(300);
  expect(claiming.settled(), 'the claim must wait while the row is held').toBe(false);
  await holder.release();
  const { attempt, ms } = await claiming.result;
  expect(attempt.outcome).toBe('claimed');
  expect(ms).toBeGreaterThanOrEqual(300);
  expect(await readJob(pool(), jobId)).toMatchObject({
    status: 'running',
    attempts: 1,
    leaseToken: attempt.outcome === 'claimed' ? attempt.job.token : 'none',
  });
};

const busyPastLockWait = (claimFn: ClaimFn) => async () => {
  const jobId = await newJob();
  const holder = await holdRow(jobId);
  try {
    const { attempt, ms } = await started(claimFn, jobId).result;
    expect(attempt).toEqual({ outcome: 'busy' });
    expect(ms).toBeGreaterThanOrEqual(timings.lockWaitSeconds * 1000 - 50);
  } finally {
    await holder.release();
  }
  expect(await readJob(pool(), jobId)).toMatchObject({ status: 'queued', attempts: 0 });
  // Put back and delivered again later, it claims the job.
  expect(outcomeOf(await claimFn(pool(), jobId, OPTIONS))).toBe('claimed');
};

/** A finished job, claimed once more while `holding` holds its row; returns what that claim answered. */
const claimFinishedWhileHeld = async (claimFn: ClaimFn) => {
  const jobId = await newJob();
  const first = await claimFn(pool(), jobId, OPTIONS);
  if (first.outcome !== 'claimed') throw new Error(`setup: the first claim answered ${first.outcome}`);
  expect(await finishAndLeave(pool(), jobId, first.job.token, 'artifact.json')).toBe(true);
  expect(await claimFn(pool(), jobId, OPTIONS)).toEqual({ outcome: 'not-claimable' });
  const holder = await holdRow(jobId);
  try {
    // The row stays held until after this claim: one that waited gets the 1 s lock wait's 'busy'.
    // (A time bound here would only race a slow machine.)
    const { attempt } = await started(claimFn, jobId).result;
    return attempt;
  } finally {
    await holder.release();
    expect(await readJob(pool(), jobId)).toMatchObject({ status: 'succeeded', attempts: 1 });
  }
};

const cancelledNotClaimable = (claimFn: ClaimFn) => async () => {
  const requested = await newJob();
  await pool().query(REQUEST_CANCEL, [requested]);
  expect(await claimFn(pool(), requested, OPTIONS)).toEqual({ outcome: 'not-claimable' });
  const cancelled = await newJob();
  await withTransaction(pool(), (tx) => cancelWith(tx, cancelled));
  expect(await claimFn(pool(), cancelled, OPTIONS)).toEqual({ outcome: 'not-claimable' });
  expect(await readJob(pool(), cancelled)).toMatchObject({ status: 'cancelled', attempts: 0 });
};

const rechecksAfterWait = (claimFn: ClaimFn) => async () => {
  const jobId = await newJob();
  const gateBefore = await readGateCounter(pool());
  const holder = await holdRow(jobId);
  // On the 5 s lock-wait pool: with 1 s, a slow machine could stretch the sleep, the cancel and
  // the release past the lock wait, and the claim would answer busy before seeing the cancel.
  const claiming = started(claimFn, jobId, longWaitPool());
  await sleep(200);
  await cancelWith(holder.tx, jobId);
  await holder.release();
  expect((await claiming.result).attempt).toEqual({ outcome: 'not-claimable' });
  expect(await readJob(pool(), jobId)).toMatchObject({ status: 'cancelled', attempts: 0, leaseToken: null });
  expect(await readGateCounter(pool())).toBe(gateBefore - 1);
};

const twoAtOnceOneClaims = (claimFn: ClaimFn) => async () => {
  for (let round = 0; round < 5; round++) {
    const jobId = await newJob();
    const outcomes = (await Promise.all([claimFn(pool(), jobId, OPTIONS), claimFn(pool(), jobId, OPTIONS)]))
      .map(outcomeOf)
      .sort();
    expect(outcomes).toEqual(['claimed', 'not-claimable']);
    expect(await readJob(pool(), jobId)).toMatchObject({ status: 'running', attempts: 1 });
  }
};

const twoWaitingOneClaims = (claimFn: ClaimFn) => async () => {
  const jobId = await newJob();
  const holder = await holdRow(jobId);
  // On the 5 s lock-wait pool: with 1 s, a slow machine could stretch the sleep and the release
  // past the lock wait, and a claim would answer busy instead of waiting for the commit.
  const a = started(claimFn, jobId, longWaitPool());
  const b = started(claimFn, jobId, longWaitPool());
  await sleep(200);
  expect(a.settled() || b.settled()).toBe(false);
  await holder.release();
  const outcomes = [(await a.result).attempt, (await b.result).attempt].map(outcomeOf).sort();
  expect(outcomes).toEqual(['claimed', 'not-claimable']);
  expect(await readJob(pool(), jobId)).toMatchObject({ status: 'running', attempts: 1 });
};

/** The pool with its round trips counted: each query on it, and each connection borrowed (a transaction runs on one). */
const countingPool = () => countingCalls(pool(), ['query', 'getConnection']);

describe('claimOrWait', () => {
  it("When the job's row is locked, Then lesson 11's claim answers nothing at once: the lost wake-up's defect [test:course-claim-skips-locked-row]", async () => {
    const jobId = await newJob();
    const holder = await holdRow(jobId);
    try {
      expect(await courseClaim(pool(), jobId, OPTIONS)).toBeUndefined();
    } finally {
      await holder.release();
    }
    expect(await readJob(pool(), jobId)).toMatchObject({ status: 'queued', attempts: 0 });
  });

  it(
    'When another transaction holds the row, Then the claim waits for its commit and claims the job [test:claim-waits-for-locked-row]',
    waitsForLockedRow(claimOrWait),
  );
  it(
    'When the row stays locked past one lock wait (1 s), Then the claim answers busy and changes nothing [test:claim-busy-past-lock-wait]',
    busyPastLockWait(claimOrWait),
  );
  it('When the job is finished, Then it is not claimable, at once even while its row is locked [test:claim-finished-not-claimable]', async () => {
    // The plain read says "finished": no reason to wait for whoever holds the row.
    expect(await claimFinishedWhileHeld(claimOrWait)).toEqual({ outcome: 'not-claimable' });
  });
  it(
    'When the job is cancelled, or its cancel is requested, Then it is not claimable [test:claim-cancelled-not-claimable]',
    cancelledNotClaimable(claimOrWait),
  );
  it(
    'When the holder cancels the job while the claim waits, Then the claim re-checks under the lock and claims nothing [test:claim-rechecks-after-wait]',
    rechecksAfterWait(claimOrWait),
  );
  it(
    'When two claims of one job run at once, Then one claims it and the other answers not-claimable [test:claim-two-at-once-one-claims]',
    twoAtOnceOneClaims(claimOrWait),
  );
  it(
    'When two claims wait on the same held row, Then after the commit one claims it and the other re-checks and answers not-claimable [test:claim-two-waiting-one-claims]',
    twoWaitingOneClaims(claimOrWait),
  );
  it('When a free job is claimed, Then it takes a transaction of its own: one connection borrowed, three statements on it [test:claim-three-step-round-trips]', async () => {
    const jobId = await newJob();
    const counted = countingPool();
    expect(outcomeOf(await claimOrWait(counted.counted, jobId, OPTIONS))).toBe('claimed');
    expect({ connections: counted.calls.getConnection, poolQueries: counted.calls.query }).toEqual({
      connections: 1,
      poolQueries: 0,
    });
  });
});

describe('claimInOneUpdate', () => {
  it(
    'When another transaction holds the row, Then the UPDATE waits for its commit and claims the job [test:one-update-waits-for-locked-row]',
    waitsForLockedRow(claimInOneUpdate),
  );
  it(
    'When the row stays locked past one lock wait (1 s), Then the claim answers busy and changes nothing [test:one-update-busy-past-lock-wait]',
    busyPastLockWait(claimInOneUpdate),
  );
  it('When the job is finished, Then it is not claimable, but while its row is held the UPDATE waits for the holder: busy after one lock wait [test:one-update-finished-waits-for-holder]', async () => {
    // What the one-update form gives up: a row found by its primary key is read under its lock.
    expect(await claimFinishedWhileHeld(claimInOneUpdate)).toEqual({ outcome: 'busy' });
  });
  it(
    'When the job is cancelled, or its cancel is requested, Then it is not claimable [test:one-update-cancelled-not-claimable]',
    cancelledNotClaimable(claimInOneUpdate),
  );
  it(
    'When the holder cancels the job while the UPDATE waits, Then it is evaluated on the cancelled row and claims nothing [test:one-update-rechecks-after-wait]',
    rechecksAfterWait(claimInOneUpdate),
  );
  it(
    'When two claims of one job run at once, Then one claims it and the other answers not-claimable [test:one-update-two-at-once-one-claims]',
    twoAtOnceOneClaims(claimInOneUpdate),
  );
  it(
    'When two claims wait on the same held row, Then after the commit one claims it and the other answers not-claimable [test:one-update-two-waiting-one-claims]',
    twoWaitingOneClaims(claimInOneUpdate),
  );
  it('When a free job is claimed, Then it takes two statements on the pool and no transaction [test:one-update-two-statements]', async () => {
    const jobId = await newJob();
    const counted = countingPool();
    expect(outcomeOf(await claimInOneUpdate(counted.counted, jobId, OPTIONS))).toBe('claimed');
    expect({ connections: counted.calls.getConnection, poolQueries: counted.calls.query }).toEqual({
      connections: 0,
      poolQueries: 2,
    });
  });
  it('CLAIM_FORM names the two forms; one-update is the default [test:claim-form-default]', () => {
    expect(claimOfForm('one-update')).toBe(claimInOneUpdate);
    expect(claimOfForm('three-step')).toBe(claimOrWait);
    expect(COURSE_TIMINGS.claimForm).toBe('one-update');
  });
});

describe('putDeliveryBack', () => {
  it('When a wake-up (attempts 1) is put back as busy, Then it is delivered again and completes; a thrown error instead fails it for good [test:busy-put-back-spends-no-attempt]', async () => {
    await withResources(undefined, async (res) => {
      const prefix = scratchQueuePrefix(res, QUEUE_PREFIX);
      const address = exportsAddress(FAST_QUEUE, prefix);
      const queue = res.add(await openQueue<WakeUpMessage, DeliveryOutcome, typeof EXPORT_JOB_NAME>(address), (q) =>
        q.close(),
      );
      const deliveries = new Map<string, number>();
      const worker = startWorker<WakeUpMessage, DeliveryOutcome, typeof EXPORT_JOB_NAME>(
        address,
        {
          [EXPORT_JOB_NAME]: async (job: WakeUpJob, _signal?: AbortSignal, token?: string) => {
            const n = (deliveries.get(String(job.id)) ?? 0) + 1;
            deliveries.set(String(job.id), n);
            if (n === 1 && job.id === 'put-back') return putDeliveryBack(job, token, 100);
            if (n === 1) throw new Error('busy, thrown');
            return { job_id: job.data.job_id, claimed: true, published: false };
          },
        },
        { concurrency: 2, lockDurationMs: 30_000, stalledIntervalMs: 30_000, maxStalledCount: 1, onError: () => {} },
      );
      res.add(worker, (w) => w.close());
      await worker.waitUntilReady();
      const data = { job_id: '00000000-0000-4000-8000-000000000001' };
      await queue.add(EXPORT_JOB_NAME, data, { ...WAKE_UP_JOB_OPTIONS, jobId: 'put-back' });
      await queue.add(EXPORT_JOB_NAME, data, { ...WAKE_UP_JOB_OPTIONS, jobId: 'thrown' });
      const finalState = async (id: string) => {
        for (let i = 0; i < 100; i++) {
          const state = await queue.getJobState(id);
          if (state === 'completed' || state === 'failed') return state;
          await sleep(50);
        }
        return queue.getJobState(id);
      };
      expect(await finalState('put-back')).toBe('completed');
      expect(deliveries.get('put-back')).toBe(2);
      expect(await finalState('thrown')).toBe('failed');
      expect(deliveries.get('thrown')).toBe(1);
    });
  });
});

// lesson 11's claim is what the lab exports as courseClaim.
it("courseClaim is lesson 11's claim [test:course-claim-is-lesson-11]", () => {
  expect(courseClaim).toBe(claim);
});
