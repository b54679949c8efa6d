// Lesson 15's claim: the fix for the lost wake-up.
//
// The race. The publisher sends a wake-up, THEN confirms it in a short transaction that
// locks the job row first (src/confirm.ts: it records last_dispatched_at, in the scanner's
// lock order). A worker whose message arrives during that transaction runs lesson 11's
// claim: `SELECT … FOR UPDATE SKIP LOCKED` skips the locked row and returns nothing, which
// looks exactly like "nothing to claim". The delivery completes with claimed=false, the
// message is gone, and the job sits queued until the recovery scanner finds it unclaimed
// (60 s by default). Nothing is wrong with SKIP LOCKED for picking ANY free row from many
// (the outbox claim, the scanner); for ONE given id it cannot tell "locked right now" from
// "not claimable".
//
// The fix, claimOrWait, in three steps:
//   1. lesson 11's claim (SKIP LOCKED): the common case, the row is free → claimed.
//   2. nothing? a PLAIN read (no lock, READ COMMITTED: the last committed row) says whether
//      the row is claimable at all. Not claimable (running, finished, cancelled, backoff not
//      over, attempts used, no such job) → 'not-claimable', at once: a duplicate wake-up of
//      a job already running never waits.
//   3. claimable but skipped → someone holds its lock right now. Wait for THAT row with a
//      blocking FOR UPDATE, bounded by innodb_lock_wait_timeout (1 s), then check the
//      conditions AGAIN under the lock and claim with lesson 11's token CAS. The holder may
//      have changed the row meanwhile (another worker's claim of a duplicate delivery, a
//      cancel): the re-check is what keeps a job from being claimed twice.
//      Still locked after one lock wait (error 1205) → 'busy'.
//
// Two fixes for the lost wake-up: (a) wait on the locked row for one lock wait (step 3),
// and (b) when it is still locked, answer 'busy' so the caller puts the delivery back for a
// short delay. The claim uses both. Waiting on the row handles what actually holds a job row (a confirmation, a claim, a scanner pass, a finish: short transactions
// with no I/O inside, lesson 11's rule), usually in milliseconds, with no trip back through
// Redis and no delay for the job. Waiting is safe because it is ONE row, by primary key, in
// a transaction that holds nothing else yet: the waiter can be no part of a deadlock cycle,
// and it holds the worker's slot for at most the lock wait. A holder slower than that (a
// stuck transaction) gets 'busy', and the CALLER puts the delivery back for a short delay
// (putDeliveryBack: moveToDelayed + BullMQ's DelayedError) instead of throwing: a thrown
// error spends a BullMQ attempt, and lesson 11's wake-ups have attempts 1, so the first
// throw would fail the wake-up for good, and the job would wait for the scanner again.
//
// The lab's default claim, claimInOneUpdate (CLAIM_FORM=one-update), keeps both fixes in fewer
// round trips: lesson 11's CLAIM on its own, in autocommit, then one read of the row. An UPDATE
// never skips a locked row: InnoDB makes it wait for the holder's commit (one lock wait at
// most) and then evaluates the WHERE on the row as the holder left it, which is what steps 2
// and 3 do by hand. Two statements and no transaction, where claimOrWait's common path takes
// five (BEGIN, the SKIP LOCKED read, the UPDATE, the read, COMMIT). What it gives up: it
// cannot see that a locked row is not claimable without waiting for the lock (MariaDB and
// MySQL read a row found by its primary key under its lock, even at READ COMMITTED), so a
// duplicate wake-up of a running job whose row is held waits for that holder too, or answers
// 'busy' after one lock wait and is put back. Rows are held only by short transactions. And
// NOW(6) is the statement's start: a claim that waited gets a lease counted from before its
// wait (shorter by at most one lock wait); the read gives the worker the real lease_until.
// CLAIM_FORM=three-step runs claimOrWait instead; the wake-up checks grade both.
import { randomUUID } from 'node:crypto';
import { DelayedError, type Job } from 'bullmq';
import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { statesThatMayMoveTo } from '@tasks-lab/01-state-machine';
import {
  claim,
  CLAIM,
  claimedJobFrom,
  ER_LOCK_WAIT_TIMEOUT,
  errnoOf,
  microseconds,
  readJob,
  readJobWith,
  withTransaction,
  type ClaimedJob,
} from '@tasks-lab/11-mysql-leases';

export type { ClaimedJob };

/** What one claim of one job id answered. 'busy' = the row stayed locked past one lock wait: put the delivery back. */
export type ClaimAttempt = { outcome: 'claimed'; job: ClaimedJob } | { outcome: 'not-claimable' } | { outcome: 'busy' };

export interface ClaimOptions {
  leaseMs: number;
  maxAttempts: number;
  /**
   * The claim's UPDATE, with lesson 11's CLAIM's parameters: a later lesson's may set one more
   * column in the same statement (lesson 16 records the job's first claim). @defaultValue CLAIM
   */
  claimStatement?: string;
}

/** A claim of one job id, the shape the lesson 15 workers (and the checks' broken variants) share. */
export type ClaimFn = (pool: Pool, jobId: string, options: ClaimOptions) => Promise<ClaimAttempt>;

/** The course's claim = lesson 11's: SKIP LOCKED, so "locked right now" looks like "nothing to claim" (undefined). */
export const courseClaim = claim;

const NOT_CLAIMABLE: ClaimAttempt = { outcome: 'not-claimable' };
const BUSY: ClaimAttempt = { outcome: 'busy' };

/** lesson 01's table says which states may move to running (queued); never restated here. */
const CLAIMABLE_STATES = statesThatMayMoveTo('running');

// ---------------------------------------------------------------------------------
// The statements (named, parameterised; the conditions are lesson 11's LOCK_CLAIMABLE's)

/**
 * Step 2: is the row claimable at all, by its last COMMITTED state? A plain read: it takes
 * no lock and never waits for one (READ COMMITTED reads the committed version of a row
 * another transaction holds). Rows returned: 0 or 1.
 * Parameters: [id, statesThatMayMoveTo('running'), maxAttempts].
 */
export const READ_CLAIMABLE = `
  SELECT id
  FROM export_jobs
  WHERE id = ? AND status IN (?) AND cancel_requested = FALSE
    AND attempts < ? AND deadline_at > NOW(6) AND next_attempt_at <= NOW(6)`;

/**
 * Step 3: lesson 11's LOCK_CLAIMABLE WITHOUT SKIP LOCKED: waits for the holder of this one
 * row (at most innodb_lock_wait_timeout, then error 1205), then evaluates the conditions on
 * the row as the holder left it. Rows returned: 1 = locked and still claimable; 0 = the
 * holder made it unclaimable (claimed, cancelled, finished).
 * Parameters: [id, statesThatMayMoveTo('running'), maxAttempts].
 */
export const LOCK_CLAIMABLE_WAITING = `
  SELECT id
  FROM export_jobs
  WHERE id = ? AND status IN (?) AND cancel_requested = FALSE
    AND attempts < ? AND deadline_at > NOW(6) AND next_attempt_at <= NOW(6)
  FOR UPDATE`;

// ---------------------------------------------------------------------------------

/**
 * Claims job `jobId` if it may be claimed, waiting briefly when its row is locked right now
 * (see the header). 'claimed': this caller holds the lease and the token; 'not-claimable':
 * nothing to do for this delivery; 'busy': locked past one lock wait, put the delivery back.
 */
export async function claimOrWait(pool: Pool, jobId: string, options: ClaimOptions): Promise<ClaimAttempt> {
  const quick = await courseClaim(pool, jobId, options);
  if (quick) return { outcome: 'claimed', job: quick };
  if (!(await isClaimableNow(pool, jobId, options.maxAttempts))) return NOT_CLAIMABLE;
  return claimAfterWaiting(pool, jobId, options);
}

/** Step 2: the committed row says the job may be claimed now (a plain read, no lock, no wait). */
export async function isClaimableNow(pool: Pool, jobId: string, maxAttempts: number): Promise<boolean> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_CLAIMABLE, [jobId, CLAIMABLE_STATES, maxAttempts]);
  return rows.length === 1;
}

/** Step 3: wait for the row's lock, re-check, and claim with a new token (lesson 11's CAS); 1205 → 'busy'. */
async function claimAfterWaiting(pool: Pool, jobId: string, options: ClaimOptions): Promise<ClaimAttempt> {
  const token = randomUUID();
  try {
    return await withTransaction(pool, async (tx) => {
      const [locked] = await tx.query<RowDataPacket[]>(LOCK_CLAIMABLE_WAITING, [
        jobId,
        CLAIMABLE_STATES,
        options.maxAttempts,
      ]);
      // The holder committed a change that makes the job unclaimable: do NOT claim it.
      if (locked.length === 0) return NOT_CLAIMABLE;
      if (!(await sendClaim(tx, jobId, token, options))) return NOT_CLAIMABLE;
      const job = claimedJobFrom(await readJobWith(tx, jobId), jobId, token);
      // We hold the row lock: nobody else can have changed it since our update.
      if (!job) throw new Error(`job ${jobId}: the claim's row changed inside its own locked transaction`);
      return { outcome: 'claimed', job };
    });
  } catch (err) {
    // InnoDB gave up waiting: the holder is slower than one lock wait. withTransaction rolled
    // back (nothing was changed); the caller puts the delivery back.
    if (errnoOf(err) === ER_LOCK_WAIT_TIMEOUT) return BUSY;
    throw err;
  }
}

/**
 * The lab's claim (see the header): lesson 11's CLAIM alone, which waits for a locked row and
 * then checks every condition on it, and a read of what the worker needs. 'busy' when the row
 * stayed locked past one lock wait (error 1205: the UPDATE changed nothing).
 */
export async function claimInOneUpdate(pool: Pool, jobId: string, options: ClaimOptions): Promise<ClaimAttempt> {
  const token = randomUUID();
  try {
    if (!(await sendClaim(pool, jobId, token, options))) return NOT_CLAIMABLE;
  } catch (err) {
    if (errnoOf(err) === ER_LOCK_WAIT_TIMEOUT) return BUSY;
    throw err;
  }
  // The claim is committed and the row holds our token; only an expired lease (the scanner's
  // requeue and another claim, a lease's length later) could hand the job on before this read.
  const job = claimedJobFrom(await readJob(pool, jobId), jobId, token);
  return job ? { outcome: 'claimed', job } : NOT_CLAIMABLE;
}

/** Lesson 11's CLAIM (the token compare-and-set) on `db`: true when it made `token` the holder. */
async function sendClaim(
  db: Pick<Pool, 'query'>,
  jobId: string,
  token: string,
  options: ClaimOptions,
): Promise<boolean> {
  const [claimed] = await db.query<ResultSetHeader>(options.claimStatement ?? CLAIM, [
    token,
    microseconds(options.leaseMs),
    jobId,
    CLAIMABLE_STATES,
    options.maxAttempts,
  ]);
  return claimed.affectedRows === 1;
}

/** The two claims that fix the lost wake-up, by the name CLAIM_FORM gives them; the first is the lab's default. */
export const CLAIM_FORMS = ['one-update', 'three-step'] as const;
export type ClaimForm = (typeof CLAIM_FORMS)[number];

/** The claim a CLAIM_FORM names. */
export function claimOfForm(form: ClaimForm): ClaimFn {
  return form === 'one-update' ? claimInOneUpdate : claimOrWait;
}

/** lesson 11's claim in ClaimAttempt's words: a row = 'claimed'; nothing = 'not-claimable' (locked or not, it cannot tell). */
export const courseClaimAttempt: ClaimFn = async (pool, jobId, options) => {
  const job = await courseClaim(pool, jobId, options);
  return job ? { outcome: 'claimed', job } : NOT_CLAIMABLE;
};

/**
 * What a worker does with a 'busy' claim: the wake-up goes back to BullMQ's delayed set for
 * `delayMs` and is delivered again then, WITHOUT spending an attempt (a thrown error would
 * spend one, and the wake-ups have attempts 1). `token` is the worker's lock on this job
 * (lab 08's handlers get it as their third argument). Never returns: the DelayedError tells
 * the BullMQ worker not to complete the job it just moved.
 */
export async function putDeliveryBack(
  job: Pick<Job<unknown, unknown, string>, 'moveToDelayed'>,
  token: string | undefined,
  delayMs: number,
): Promise<never> {
  if (!token)
    throw new Error(
      "putting a delivery back needs the worker's lock token (lab 08 passes it to handlers as the third argument)",
    );
  await job.moveToDelayed(Date.now() + delayMs, token);
  throw new DelayedError();
}
