// The scanner's batch against the real database: the course's two scripts (the retry gate,
// the queued recovery) as tests, every transition of the three passes, the route kept, the
// gate counter left on every cancel and failure, three expiries ending in one dead letter,
// and the supervised loop around the batch.
import type { RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sleep, waitFor } from '@tasks-lab/lab-kit';
import { claim, EXPIRE_LEASE, microseconds, readJob } from '@tasks-lab/11-mysql-leases';
import { admitExport, BULK_QUEUE, countActiveJobs, FAST_QUEUE, readGateCounter } from '@tasks-lab/13-admission';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { readShortRecoveryOptions } from '../src/options.ts';
import { READ_DEAD_LETTER } from '../src/dead-letter.ts';
import { MARK_EVENTS_SENT_AGO, MARK_JOB_DISPATCHED_AGO, SET_NEXT_ATTEMPT_AHEAD } from '../src/recovery-queries.ts';
import { recoverBatch, type RecoveryReport } from '../src/recovery.ts';
import { startScanner } from '../src/scanner.ts';
import {
  batchOptions,
  COUNT_DEAD_LETTERS_OF_JOB,
  COUNT_UNSENT_OF_JOB,
  DISPATCHED_AGO_MS,
  queuesOfJob,
} from '../scripts/recovery-scenarios.ts';

const timings = readShortRecoveryOptions({});
const options = batchOptions(timings);
let db: FreshDatabase;

beforeAll(async () => {
  db = await freshDatabase('recovery', { settings: timings });
}, 60_000);
afterAll(() => db?.drop());

/** Every earlier job done, the counter back to 0: each test's scan sees only its own jobs. */
beforeEach(async () => {
  await db.pool.query(
    `UPDATE export_jobs SET status = 'succeeded', lease_token = NULL WHERE status IN ('queued', 'running')`,
  );
  await db.pool.query('UPDATE export_admission_gate SET active_jobs = 0 WHERE id = 1');
});

// Times set on a test's own rows: named, parameterised.
/** The deadline `?` µs from now (negative: passed). Parameters: [micros, jobId]. */
const SET_DEADLINE = `UPDATE export_jobs SET deadline_at = TIMESTAMPADD(MICROSECOND, ?, NOW(6)) WHERE id = ?`;
/** The cancel flag, set directly (cancel.test.ts covers requestCancel). Parameters: [jobId]. */
const FLAG_CANCEL = `UPDATE export_jobs SET cancel_requested = TRUE WHERE id = ?`;
/** Attempts used up while queued. Parameters: [attempts, jobId]. */
const SET_ATTEMPTS = `UPDATE export_jobs SET attempts = ? WHERE id = ?`;
/** A job's events with their availability. Parameters: [jobId]. */
const EVENTS_OF_JOB = `SELECT id, queue_name, sent_at, available_at FROM export_outbox WHERE job_id = ? ORDER BY created_at, id`;
/** The job's next attempt, at full precision. Parameters: [jobId]. */
const NEXT_ATTEMPT = `SELECT DATE_FORMAT(next_attempt_at, '%Y-%m-%d %H:%i:%s.%f') AS at FROM export_jobs WHERE id = ?`;

const n = async (sql: string, params: unknown[]) =>
  Number(((await db.pool.query<RowDataPacket[]>(sql, params))[0][0] as RowDataPacket).n);
const admit = async (productIds: number[] = [1, 2], queueName?: typeof FAST_QUEUE | typeof BULK_QUEUE) =>
  (await admitExport(db.pool, productIds, { queueName })).jobId;
const claimed = (jobId: string) =>
  claim(db.pool, jobId, { leaseMs: timings.leaseMs, maxAttempts: timings.maxAttempts });
const find = (report: RecoveryReport, jobId: string) =>
  [...report.requeued, ...report.redispatched, ...report.cancelled, ...report.failed].find((j) => j.jobId === jobId);

/** A running job whose lease has passed: a real claim, then its lease moved 1 ms into the past. */
async function expiredRunning(
  productIds?: number[],
  queueName?: typeof FAST_QUEUE | typeof BULK_QUEUE,
): Promise<string> {
  const jobId = await admit(productIds, queueName);
  expect(await claimed(jobId)).toBeDefined();
  await db.pool.query(EXPIRE_LEASE, [jobId]);
  return jobId;
}

async function dispatchedLongAgo(jobId: string): Promise<void> {
  await db.pool.query(MARK_EVENTS_SENT_AGO, [microseconds(DISPATCHED_AGO_MS), jobId]);
  await db.pool.query(MARK_JOB_DISPATCHED_AGO, [
    microseconds(DISPATCHED_AGO_MS),
    microseconds(DISPATCHED_AGO_MS),
    microseconds(DISPATCHED_AGO_MS),
    jobId,
  ]);
}

describe("the course's scripts", () => {
  it('When next_attempt_at is ahead, Then two duplicate claims get nothing and attempts stay 0; after it, a claim gets attempts 1 [test:retry-gate-holds-duplicates]', async () => {
    const jobId = await admit();
    // 30 s ahead, not 1 s: a stalled machine could let a short gate pass before the two
    // early claims. The gate is then moved to now instead of being waited for.
    const gateMs = 30_000;
    await db.pool.query(SET_NEXT_ATTEMPT_AHEAD, [microseconds(gateMs), jobId]);
    expect(await claimed(jobId)).toBeUndefined();
    expect(await claimed(jobId)).toBeUndefined();
    expect((await readJob(db.pool, jobId))?.attempts).toBe(0);
    await db.pool.query(SET_NEXT_ATTEMPT_AHEAD, [0, jobId]); // the gate, passed
    expect((await claimed(jobId))?.attempts).toBe(1);
  });

  it('When an event was sent 61 s ago and nobody claimed the job, Then a scan writes one unsent event, a second scan none, attempts 0 [test:queued-recovery-one-pending-event]', async () => {
    const jobId = await admit();
    await dispatchedLongAgo(jobId);
    const first = await recoverBatch(db.pool, options);
    expect(find(first, jobId)).toMatchObject({
      from: 'queued',
      to: 'queued',
      reason: 'dispatch_overdue',
      queueName: FAST_QUEUE,
    });
    expect(await n(COUNT_UNSENT_OF_JOB, [jobId])).toBe(1);
    const second = await recoverBatch(db.pool, options);
    expect(find(second, jobId)).toBeUndefined();
    expect(await n(COUNT_UNSENT_OF_JOB, [jobId])).toBe(1);
    expect(await readJob(db.pool, jobId)).toMatchObject({
      status: 'queued',
      attempts: 0,
      errorCode: 'dispatch_overdue',
    });
  });
});

describe('pass a: running, lease expired', () => {
  it('When the lease of a job with attempts left expires, Then it is queued after the backoff with a new event available at that same instant, attempts kept [test:expired-lease-requeued-with-backoff]', async () => {
    const jobId = await expiredRunning();
    // A 30 s backoff, not 500 ms: a slow machine could let the 500 ms backoff pass before the
    // claim below, which must find the job still gated.
    const backoffMs = 30_000;
    const report = await recoverBatch(db.pool, { ...options, retryBackoffMs: backoffMs });
    const recovered = find(report, jobId);
    expect(report.requeued.map((j) => j.jobId)).toContain(jobId);
    expect(recovered).toMatchObject({ from: 'running', to: 'queued', reason: 'lease_expired', queueName: FAST_QUEUE });
    expect(await readJob(db.pool, jobId)).toMatchObject({
      status: 'queued',
      attempts: 1,
      leaseToken: null,
      leaseUntil: null,
      errorCode: 'lease_expired',
    });
    const [events] = await db.pool.query<RowDataPacket[]>(EVENTS_OF_JOB, [jobId]);
    expect(events).toHaveLength(2);
    const recoveryEvent = events.find((e) => e.id === recovered?.eventId);
    expect(recoveryEvent?.sent_at).toBeNull();
    // The event and the claim open at the same microsecond: the server copied it.
    const [[at]] = (await db.pool.query<RowDataPacket[]>(NEXT_ATTEMPT, [jobId])) as unknown as [[RowDataPacket]];
    const [[available]] = (await db.pool.query<RowDataPacket[]>(
      `SELECT DATE_FORMAT(available_at, '%Y-%m-%d %H:%i:%s.%f') AS at FROM export_outbox WHERE id = ?`,
      [recovered?.eventId],
    )) as unknown as [[RowDataPacket]];
    expect(available.at).toBe(at.at);
    const ahead = recovered!.nextAttemptAt!.getTime() - Date.now();
    expect(ahead).toBeGreaterThan(backoffMs - 5000); // 5 s of slack for a stalled machine; no backoff would give <= 0
    expect(await claimed(jobId)).toBeUndefined();
  });

  it('When a cancel was requested and the lease expires, Then the job is cancelled (user_cancelled) and leaves the gate [test:expired-lease-cancelled]', async () => {
    const jobId = await expiredRunning();
    await db.pool.query(FLAG_CANCEL, [jobId]);
    expect(await readGateCounter(db.pool)).toBe(1);
    const report = await recoverBatch(db.pool, options);
    expect(report.cancelled).toEqual([{ jobId, from: 'running', to: 'cancelled', reason: 'user_cancelled' }]);
    expect(await readJob(db.pool, jobId)).toMatchObject({
      status: 'cancelled',
      errorCode: 'user_cancelled',
      leaseToken: null,
    });
    expect({ gate: await readGateCounter(db.pool), active: await countActiveJobs(db.pool) }).toEqual({
      gate: 0,
      active: 0,
    });
    expect(await n(COUNT_DEAD_LETTERS_OF_JOB, [jobId])).toBe(0);
  });

  it('When the deadline passed and the lease expires, Then the job fails (deadline_exceeded) with one dead letter and leaves the gate [test:expired-lease-deadline-failed]', async () => {
    const jobId = await expiredRunning();
    await db.pool.query(SET_DEADLINE, [-1000, jobId]);
    const report = await recoverBatch(db.pool, options);
    expect(report.failed).toEqual([{ jobId, from: 'running', to: 'failed', reason: 'deadline_exceeded' }]);
    expect(await readJob(db.pool, jobId)).toMatchObject({ status: 'failed', errorCode: 'deadline_exceeded' });
    const [letters] = await db.pool.query<RowDataPacket[]>(READ_DEAD_LETTER, [jobId]);
    expect(letters.map((l) => l.reason)).toEqual(['deadline_exceeded']);
    expect(await readGateCounter(db.pool)).toBe(0);
  });

  it('When a live lease is there, Then the scan leaves it alone [test:live-lease-untouched]', async () => {
    const jobId = await admit();
    // A 30 s lease, not the short 1.5 s one: a stalled machine could let it expire before the scan.
    const held = await claim(db.pool, jobId, { leaseMs: 30_000, maxAttempts: timings.maxAttempts });
    expect(held).toBeDefined();
    const report = await recoverBatch(db.pool, options);
    expect(find(report, jobId)).toBeUndefined();
    expect(await readJob(db.pool, jobId)).toMatchObject({ status: 'running', leaseToken: held?.token });
  });

  it('When a job is claimed three times and its lease expires each time, Then it fails after the third, with one dead letter, and a fourth claim gets nothing [test:three-expiries-dead-letter]', async () => {
    const jobId = await admit();
    const seen: string[] = [];
    for (let round = 1; round <= timings.maxAttempts; round += 1) {
      await db.pool.query(SET_NEXT_ATTEMPT_AHEAD, [0, jobId]); // the backoff, skipped here (the check waits it)
      expect((await claimed(jobId))?.attempts).toBe(round);
      await db.pool.query(EXPIRE_LEASE, [jobId]);
      const recovered = find(await recoverBatch(db.pool, options), jobId);
      seen.push(`${recovered?.to} ${recovered?.reason} letters=${await n(COUNT_DEAD_LETTERS_OF_JOB, [jobId])}`);
    }
    expect(seen).toEqual([
      'queued lease_expired letters=0',
      'queued lease_expired letters=0',
      'failed attempts_exhausted letters=1',
    ]);
    await db.pool.query(SET_NEXT_ATTEMPT_AHEAD, [0, jobId]);
    expect(await claimed(jobId)).toBeUndefined();
    expect(await readJob(db.pool, jobId)).toMatchObject({
      status: 'failed',
      attempts: 3,
      errorCode: 'attempts_exhausted',
    });
    expect(await readGateCounter(db.pool)).toBe(0);
    // Another scan changes nothing: the failed job is out of every pass.
    expect(find(await recoverBatch(db.pool, options), jobId)).toBeUndefined();
    expect(await n(COUNT_DEAD_LETTERS_OF_JOB, [jobId])).toBe(1);
  });
});

describe('pass b: queued, must end', () => {
  it('When a queued job has a cancel request, Then it is cancelled and leaves the gate [test:queued-cancelled]', async () => {
    const jobId = await admit();
    await db.pool.query(FLAG_CANCEL, [jobId]);
    const report = await recoverBatch(db.pool, options);
    expect(report.cancelled).toEqual([{ jobId, from: 'queued', to: 'cancelled', reason: 'user_cancelled' }]);
    expect(await readGateCounter(db.pool)).toBe(0);
  });

  it('When a queued job is past its deadline, or out of attempts, Then it fails with one dead letter each and both leave the gate [test:queued-failed]', async () => {
    const late = await admit();
    const spent = await admit();
    await db.pool.query(SET_DEADLINE, [-1000, late]);
    await db.pool.query(SET_ATTEMPTS, [timings.maxAttempts, spent]);
    const report = await recoverBatch(db.pool, options);
    expect(report.failed.map((j) => `${j.jobId === late ? 'late' : 'spent'} ${j.from} ${j.reason}`).sort()).toEqual([
      'late queued deadline_exceeded',
      'spent queued attempts_exhausted',
    ]);
    expect(await n(COUNT_DEAD_LETTERS_OF_JOB, [late])).toBe(1);
    expect(await n(COUNT_DEAD_LETTERS_OF_JOB, [spent])).toBe(1);
    expect(await readGateCounter(db.pool)).toBe(0);
  });
});

describe('pass c: queued, dispatched, unclaimed', () => {
  it('When the dispatch is recent, or an unsent event waits, or the next attempt is not due, Then no event is added [test:unclaimed-threshold-respected]', async () => {
    const recent = await admit();
    await db.pool.query(MARK_EVENTS_SENT_AGO, [0, recent]);
    const pending = await admit(); // its first event is still unsent
    await db.pool.query(MARK_JOB_DISPATCHED_AGO, [
      microseconds(DISPATCHED_AGO_MS),
      microseconds(DISPATCHED_AGO_MS),
      microseconds(DISPATCHED_AGO_MS),
      pending,
    ]);
    // A 60 s threshold, not 1 s: a slow machine could let 1 s pass between the sends and the scan,
    // making "recent" overdue. `pending`, 61 s quiet, is still past it: only its unsent event holds it.
    const report = await recoverBatch(db.pool, { ...options, unclaimedThresholdMs: 60_000 });
    expect(find(report, recent)).toBeUndefined();
    expect(find(report, pending)).toBeUndefined();
  });

  it('When the unclaimed job was a bulk one, Then its new event goes to exports.bulk, and a fast one to exports.fast [test:recovered-job-keeps-route]', async () => {
    const bulk = await admit([1, 2], BULK_QUEUE);
    const fast = await admit([1, 2]);
    await dispatchedLongAgo(bulk);
    await dispatchedLongAgo(fast);
    const expiredBulk = await expiredRunning([3], BULK_QUEUE);
    await recoverBatch(db.pool, options);
    expect(await queuesOfJob(db.pool, bulk)).toEqual([BULK_QUEUE, BULK_QUEUE]);
    expect(await queuesOfJob(db.pool, fast)).toEqual([FAST_QUEUE, FAST_QUEUE]);
    expect(await queuesOfJob(db.pool, expiredBulk)).toEqual([BULK_QUEUE, BULK_QUEUE]);
  });
});

describe('the scanner loop', () => {
  it('When a batch fails, Then it is reported and the loop goes on; close() stops it and may be called twice [test:scanner-supervised]', async () => {
    const jobId = await expiredRunning();
    const reports: string[] = [];
    let calls = 0;
    const scanner = startScanner({
      pool: db.pool,
      timings: { ...timings, recoveryScanMs: 50 },
      report: (line) => reports.push(line),
      recover: async (pool, o) => {
        calls += 1;
        if (calls === 1) throw new Error('the first batch fails');
        return recoverBatch(pool, o);
      },
    });
    try {
      // The stats move when the batch returns, just after its COMMIT: wait for them, then read the row.
      await waitFor('the job requeued by a later batch', () => scanner.stats().requeued === 1, { timeoutMs: 5000 });
      expect((await readJob(db.pool, jobId))?.status).toBe('queued');
      expect(reports[0]).toMatch(/recovery batch failed: the first batch fails/);
      expect(scanner.stats()).toMatchObject({ errors: 1, requeued: 1 });
    } finally {
      await Promise.all([scanner.close(), scanner.close()]);
    }
    const batches = scanner.stats().batches;
    await sleep(150);
    expect(scanner.stats().batches).toBe(batches);
  });

  it('When a batch is full, Then the next one runs at once instead of after the wait [test:scanner-full-batch-again]', async () => {
    const jobs = [await expiredRunning(), await expiredRunning(), await expiredRunning()];
    const scanner = startScanner({
      pool: db.pool,
      timings: { ...timings, recoveryBatch: 1, recoveryScanMs: 60_000 },
      report: () => {},
    });
    try {
      await waitFor('all three requeued, a batch of one each', () => scanner.stats().requeued === 3, {
        timeoutMs: 5000,
      });
      expect((await Promise.all(jobs.map((id) => readJob(db.pool, id)))).map((j) => j?.status)).toEqual([
        'queued',
        'queued',
        'queued',
      ]);
      expect(scanner.stats().fullBatches).toBeGreaterThanOrEqual(3);
    } finally {
      await scanner.close();
    }
  });
});
