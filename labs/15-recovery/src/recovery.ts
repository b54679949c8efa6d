// Lesson 15's recovery: one batch of the scanner. It finds the jobs nobody is looking after
// any more, from the durable state alone, and moves each one on, with its new outbox event
// or its dead letter, in the same short transaction:
//
//   a. running, lease expired   cancel requested -> cancelled; deadline passed -> failed
//                               (deadline_exceeded); attempts used up -> failed
//                               (attempts_exhausted); else -> queued after the backoff, with a
//                               new event available at that same instant (lease_expired)
//   b. queued, must end         cancel requested -> cancelled; deadline passed or attempts used
//                               up -> failed
//   c. queued, unclaimed        dispatched, quiet past the threshold, no unsent event -> a new
//                               event (attempts unchanged: only a real claim counts one)
//
// Each pass is its own transaction (`SELECT … ORDER BY <its index> LIMIT n FOR UPDATE SKIP
// LOCKED`, then conditional updates by primary key): see recovery-queries.ts for why not the
// course's single OR query. No I/O while the rows are locked: the events are written to the
// outbox and the publisher sends them after the COMMIT. Nothing is nudged here (the caller may).
//
// What ends a job is ONE rule, the lesson's exercise (src/expired-lease-rule.ts: the reference
// answer in solutions/, or the student's own exercise/ file with LAB_EXERCISE=student): a cancel
// first, then the deadline, then the attempts. Pass a asks it about every expired lease; pass b
// asks it about every queued job it took because that job must end.
//
// Every exit from queued/running (cancelled, failed) takes the job out of lesson 13's gate
// counter in the SAME transaction (LEAVE_GATE), last, just before the COMMIT: the lock order
// stays job, outbox, gate, and the hot gate row is held for the fewest statements.
//
// The route: a recovered job's event names the queue of its first event, so a fast job stays on
// exports.fast. The course sends every recovery event to exports.bulk: a 3-row export would then
// wait behind the long ones, and the fast worker's promise (short jobs are not stuck behind long
// ones) would break on the first crash.
import { randomUUID } from 'node:crypto';
import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { microseconds, withTransaction } from '@tasks-lab/11-mysql-leases';
import { BULK_QUEUE, LEAVE_GATE } from '@tasks-lab/13-admission';
import { recordDeadLetter } from './dead-letter.ts';
import {
  END_JOB,
  INSERT_RECOVERY_EVENT,
  LOCK_EXPIRED_LEASES,
  LOCK_QUEUED_TO_END,
  LOCK_UNCLAIMED,
  MARK_REDISPATCHED,
  READ_NEXT_ATTEMPT,
  REQUEUE_EXPIRED,
  ROUTE_OF_JOB,
} from './recovery-queries.ts';
import { decideExpiredLease, type ExpiredLeaseDecision } from './expired-lease-rule.ts';

/** One job the scanner moved on: from which state to which, why, and its new event if any. */
export interface RecoveredJob {
  jobId: string;
  from: string;
  to: string;
  /** The error code written: lease_expired, dispatch_overdue, user_cancelled, deadline_exceeded, attempts_exhausted. */
  reason: string;
  eventId?: string;
  queueName?: string;
  /** When the retry may be claimed (requeued jobs; ms precision). */
  nextAttemptAt?: Date;
}

export interface RecoveryReport {
  /** Expired leases, queued again after the backoff, each with a new event. */
  requeued: RecoveredJob[];
  /** Unclaimed dispatches, each with a new event. */
  redispatched: RecoveredJob[];
  cancelled: RecoveredJob[];
  /** Each with one dead letter. */
  failed: RecoveredJob[];
}

export interface RecoveryOptions {
  /** Rows each pass takes at most. */
  batch: number;
  /** How long an expired lease waits before its retry may be claimed. */
  retryBackoffMs: number;
  /** How long a dispatched job may stay unclaimed before it gets a new event. */
  unclaimedThresholdMs: number;
  /** Claims a job may have; the job that used them all fails. */
  maxAttempts: number;
}

export type RecoverBatch = (pool: Pool, options: RecoveryOptions) => Promise<RecoveryReport>;

/** A row a pass locked, as it was when locked: the CAS compares against it. */
export interface LockedJob {
  id: string;
  status: 'queued' | 'running';
  leaseToken: string | null;
  attempts: number;
  cancelRequested: boolean;
  pastDeadline: boolean;
}

/** What happens to a locked job: its end, or the way it is woken again. */
export type Decision =
  | { to: 'cancelled' | 'failed'; reason: string; message: string }
  | { to: 'queued'; reason: 'lease_expired' | 'dispatch_overdue' };

/** One pass: the statement that locks its rows (with its parameters) and what it decides for each. */
export interface RecoveryPass {
  name: string;
  lockSql: string;
  params: (options: RecoveryOptions) => unknown[];
  decide: (job: LockedJob, options: RecoveryOptions) => Decision;
}

/** The three passes, in the order a batch runs them. */
export const RECOVERY_PASSES: readonly RecoveryPass[] = [
  { name: 'expired leases', lockSql: LOCK_EXPIRED_LEASES, params: (o) => [o.batch], decide: decideExpired },
  {
    name: 'queued to end',
    lockSql: LOCK_QUEUED_TO_END,
    params: (o) => [o.maxAttempts, o.batch],
    decide: decideQueuedToEnd,
  },
  {
    name: 'unclaimed',
    lockSql: LOCK_UNCLAIMED,
    params: (o) => [o.maxAttempts, microseconds(o.unclaimedThresholdMs), o.batch],
    decide: () => ({ to: 'queued', reason: 'dispatch_overdue' }),
  },
];

/**
 * One batch: the three passes, in order, each at most `batch` rows. A pass that fails rolls
 * back alone (its rows are untouched and the next batch finds them again) and the error is
 * thrown after the passes before it committed.
 */
export const recoverBatch: RecoverBatch = recoverBatchWith(RECOVERY_PASSES);

/** A batch of these passes (the can-fail fixtures build broken ones from the lab's). */
export function recoverBatchWith(passes: readonly RecoveryPass[]): RecoverBatch {
  return async (pool, options) => {
    const report: RecoveryReport = { requeued: [], redispatched: [], cancelled: [], failed: [] };
    for (const pass of passes) {
      for (const job of await runPass(pool, pass, options)) {
        if (job.to === 'cancelled') report.cancelled.push(job);
        else if (job.to === 'failed') report.failed.push(job);
        else if (job.from === 'running') report.requeued.push(job);
        else report.redispatched.push(job);
      }
    }
    return report;
  };
}

/** How many jobs a report moved: a batch whose pass took `batch` rows is run again at once. */
export const recoveredCount = (report: RecoveryReport): number =>
  report.requeued.length + report.redispatched.length + report.cancelled.length + report.failed.length;

// ---------------------------------------------------------------------------------
// The decisions (pure: the locked row says everything)

/** A running job whose holder is gone: the exercise's rule decides (cancel, deadline, attempts, else queued again). */
function decideExpired(job: LockedJob, options: RecoveryOptions): Decision {
  return endOf(job, options) ?? { to: 'queued', reason: 'lease_expired' };
}

/** A queued job the pass found because it must end. */
function decideQueuedToEnd(job: LockedJob, options: RecoveryOptions): Decision {
  const end = endOf(job, options);
  // The pass's WHERE chose it because it is cancelled, past its deadline or out of attempts: a
  // rule that would queue it again contradicts that (the batch rolls this pass back).
  if (!end) {
    throw new Error(
      `job ${job.id}: locked as one to end (cancel ${job.cancelRequested}, deadline passed ${job.pastDeadline}, attempts ${job.attempts} of ${options.maxAttempts}), ` +
        'but decideExpiredLease says it may be queued again',
    );
  }
  return end;
}

/** The rule's answer as the pass writes it: an end with its message, or undefined (it may run again). */
function endOf(
  job: LockedJob,
  options: RecoveryOptions,
): Extract<Decision, { to: 'cancelled' | 'failed' }> | undefined {
  const decision = decideExpiredLease(
    { attempts: job.attempts, cancelRequested: job.cancelRequested, deadlinePassed: job.pastDeadline },
    options.maxAttempts,
  );
  return decision.to === 'queued' ? undefined : { ...decision, message: messageOf(decision, job) };
}

/** The sentence written beside the error code, for people. */
function messageOf(decision: Exclude<ExpiredLeaseDecision, { to: 'queued' }>, job: LockedJob): string {
  switch (decision.reason) {
    case 'user_cancelled':
      return 'cancelled at the request of the user';
    case 'deadline_exceeded':
      return 'the deadline passed before the export finished';
    case 'attempts_exhausted':
      return `no attempts left after ${job.attempts} claim(s)`;
  }
}

// ---------------------------------------------------------------------------------
// One pass: lock, decide, write, leave the gate, commit

async function runPass(pool: Pool, pass: RecoveryPass, options: RecoveryOptions): Promise<RecoveredJob[]> {
  return withTransaction(pool, async (tx) => {
    const [rows] = await tx.query<RowDataPacket[]>(pass.lockSql, pass.params(options));
    const recovered: RecoveredJob[] = [];
    for (const row of rows) {
      const job = toLockedJob(row);
      const decision = pass.decide(job, options);
      recovered.push(
        decision.to === 'queued' ? await wakeAgain(tx, job, decision.reason, options) : await endJob(tx, job, decision),
      );
    }
    // The gate last (lock order: jobs, outbox, gate), one exit per job that ended.
    const exits = recovered.filter((r) => r.to !== 'queued').length;
    for (let i = 0; i < exits; i += 1) await leaveGate(tx);
    return recovered;
  });
}

function toLockedJob(row: RowDataPacket): LockedJob {
  return {
    id: String(row.id),
    status: row.status as LockedJob['status'],
    leaseToken: row.lease_token === null ? null : String(row.lease_token),
    attempts: Number(row.attempts),
    cancelRequested: Boolean(Number(row.cancel_requested)),
    pastDeadline: Boolean(Number(row.past_deadline)),
  };
}

/** Cancelled or failed; a failure leaves one dead letter. */
async function endJob(
  tx: PoolConnection,
  job: LockedJob,
  decision: Extract<Decision, { to: 'cancelled' | 'failed' }>,
): Promise<RecoveredJob> {
  const [ended] = await tx.query<ResultSetHeader>(END_JOB, [
    decision.to,
    decision.reason,
    decision.message,
    job.id,
    job.status,
    job.leaseToken,
  ]);
  expectOne(ended, job, `moving it to ${decision.to}`);
  if (decision.to === 'failed') {
    const quarantined = await recordDeadLetter(tx, job.id, decision.reason);
    expectOne(quarantined, job, 'recording its dead letter');
  }
  return { jobId: job.id, from: job.status, to: decision.to, reason: decision.reason };
}

/** Queued again (after the backoff, for an expired lease) with a new event on the job's own route. */
async function wakeAgain(
  tx: PoolConnection,
  job: LockedJob,
  reason: 'lease_expired' | 'dispatch_overdue',
  options: RecoveryOptions,
): Promise<RecoveredJob> {
  const [moved] =
    reason === 'lease_expired'
      ? await tx.query<ResultSetHeader>(REQUEUE_EXPIRED, [microseconds(options.retryBackoffMs), job.id, job.leaseToken])
      : await tx.query<ResultSetHeader>(MARK_REDISPATCHED, [job.id, job.leaseToken]);
  expectOne(moved, job, reason === 'lease_expired' ? 'queueing it again' : 'marking it redispatched');
  const queueName = await routeOf(tx, job.id);
  const eventId = randomUUID();
  const [inserted] = await tx.query<ResultSetHeader>(INSERT_RECOVERY_EVENT, [eventId, queueName, job.id]);
  expectOne(inserted, job, 'writing its recovery event');
  const [next] = await tx.query<RowDataPacket[]>(READ_NEXT_ATTEMPT, [job.id]);
  return {
    jobId: job.id,
    from: job.status,
    to: 'queued',
    reason,
    eventId,
    queueName,
    nextAttemptAt: next[0]?.next_attempt_at as Date,
  };
}

/**
 * The queue of the job's first event. A job without any event (submitted before lesson 12,
 * or by hand) has no route to keep: it goes to exports.bulk, whose worker takes any size.
 */
async function routeOf(tx: PoolConnection, jobId: string): Promise<string> {
  const [rows] = await tx.query<RowDataPacket[]>(ROUTE_OF_JOB, [jobId]);
  return rows[0] ? String(rows[0].queue_name) : BULK_QUEUE;
}

async function leaveGate(tx: PoolConnection): Promise<void> {
  const [left] = await tx.query<ResultSetHeader>(LEAVE_GATE);
  if (left.affectedRows !== 1) throw new Error('the admission gate has no row: run the lab 13 migrations');
}

/** A CAS on a row this transaction holds locked must match it: anything else rolls the pass back. */
function expectOne(result: ResultSetHeader, job: LockedJob, what: string): void {
  if (result.affectedRows !== 1)
    throw new Error(
      `job ${job.id}: ${what} affected ${result.affectedRows} rows, expected 1 (the locked row did not match what the pass read)`,
    );
}
