// Lesson 15's step 3: the publisher's confirmation records WHEN the job was dispatched.
//
// Lesson 12 confirmed an event with one UPDATE on the outbox. The recovery scanner now asks
// "dispatched more than 60 s ago and still not claimed?", so the confirmation also writes
// the job's last_dispatched_at, in the SAME transaction as sent_at: both or neither.
//
//   1. lock the JOB row (SELECT … FOR UPDATE)        the scanner's lock order: job, then outbox
//   2. the outbox CAS by token                       only the publisher that still holds the claim
//   3. last_dispatched_at = NOW(6), only if 2 matched an old token must not move the dispatch time
//
// Why the job first: the scanner locks the job, then writes the outbox. A confirmation that
// locked the outbox row first and the job second could hold what the scanner wants next
// while waiting for what the scanner holds: a deadlock. One order everywhere: job → outbox
// → admission gate.
//
// The price, and lesson 15's lost wake-up: the wake-up was SENT before this transaction
// starts (never send inside a transaction), so a worker can receive it while step 1 holds
// the job row. Lesson 11's claim (SKIP LOCKED) then skips the row and claims nothing; the
// message is consumed and the job waits for the scanner. src/claim.ts is the fix.
//
// The round form (lesson 12's OUTBOX_CONFIRM_FORM=per-round, the default): the three steps for
// every accepted send of a round, as ONE multi-table UPDATE (CONFIRM_ROUND_AND_RECORD_DISPATCH):
// STRAIGHT_JOIN reads, and so locks, the job rows first, then their events, the same order; the
// token condition is judged per event, and a job is stamped only through an event that matched.
// One statement in autocommit: the job rows are held for that statement only, so the window a
// worker's claim can fall into is one statement long, not three round trips (the claim still
// has to wait for the row: src/claim.ts). The course's per-event form keeps the fault point.
//
// Fault point, for the reproduction (LAB_FAULTS):
//   confirm-holding-job-lock   the job row is locked, the outbox not yet touched
//                              delay-500:always  widens the window a worker's claim falls into
import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { faultPoints, type FaultPoints } from '@tasks-lab/lab-kit';
import { withTransaction } from '@tasks-lab/11-mysql-leases';
import {
  confirmedOf,
  PUBLISHER_FAULT_POINTS,
  tokenOf,
  type ClaimedEvent,
  type PublisherParts,
} from '@tasks-lab/12-outbox';

export const CONFIRM_FAULT_POINTS = ['confirm-holding-job-lock'] as const;
export type ConfirmFaultPoint = (typeof CONFIRM_FAULT_POINTS)[number];
export type ConfirmFaults = FaultPoints<ConfirmFaultPoint>;
/** What the confirmation needs of a FaultPoints: its hit (a process's wider set, RecoveryPublisherFaults, fits). */
export type ConfirmFaultHit = Pick<ConfirmFaults, 'hit'>;

/** Reads LAB_FAULTS for the confirmation's point only (a rule naming another point is refused). */
export const confirmFaults = (env: NodeJS.ProcessEnv = process.env): ConfirmFaults =>
  faultPoints(CONFIRM_FAULT_POINTS, env);

/** Lesson 12's publisher points plus the confirmation's: what lesson 15's publisher process declares. */
export const RECOVERY_PUBLISHER_FAULT_POINTS = [...PUBLISHER_FAULT_POINTS, ...CONFIRM_FAULT_POINTS] as const;
export type RecoveryPublisherFaults = FaultPoints<(typeof RECOVERY_PUBLISHER_FAULT_POINTS)[number]>;

/**
 * ONE reading of LAB_FAULTS for the whole publisher process: pass it both as startPublisher's
 * `faults` and to dispatchRecordingParts, so `always`/`once` count per process and a rule for
 * any of the three points is accepted.
 */
export const recoveryPublisherFaults = (env: NodeJS.ProcessEnv = process.env): RecoveryPublisherFaults =>
  faultPoints(RECOVERY_PUBLISHER_FAULT_POINTS, env);

// ---------------------------------------------------------------------------------
// The statements (named, parameterised; nothing is built from input)

/**
 * Step 1: the event's job row, locked for the rest of the transaction. A plain FOR UPDATE
 * (it waits for a claim or a scanner pass holding the row: both are short transactions).
 * Rows returned: 1, or 0 when the event names no job (the foreign key makes that a bug).
 * Parameters: [jobId].
 */
export const LOCK_JOB_FOR_DISPATCH = `
  SELECT id
  FROM export_jobs
  WHERE id = ?
  FOR UPDATE`;

/**
 * Step 2: the outbox CAS, lesson 12's CONFIRM_SENT plus the job: only the publisher whose
 * token still holds a live claim on this event, of THIS job, confirms it.
 * Affected rows: 1 = confirmed; 0 = an old token, the claim passed, already sent, or another job's event.
 * Parameters: [eventId, jobId, token].
 */
export const CONFIRM_EVENT_OF_JOB = `
  UPDATE export_outbox
  SET sent_at = NOW(6), claimed_until = NULL, last_error = NULL
  WHERE id = ? AND job_id = ? AND claim_token = ? AND sent_at IS NULL AND claimed_until > NOW(6)`;

/**
 * Step 3, only after step 2 matched: the dispatch time the scanner's "unclaimed" pass
 * reads (the course's statement). Affected rows: 1. Parameters: [jobId].
 */
export const RECORD_DISPATCH = `
  UPDATE export_jobs
  SET last_dispatched_at = NOW(6)
  WHERE id = ?`;

/**
 * Steps 1 to 3 for a round's events, in one statement: the jobs' rows read (and locked) first,
 * by their ids, then each event by its id and token; both rows of an event that matches are
 * changed, nothing of one that does not. Affected rows: one per event confirmed plus one per
 * job stamped (so 2 per event when each is its own job's). Parameters: [jobIds, eventIds, token].
 */
export const CONFIRM_ROUND_AND_RECORD_DISPATCH = `
  UPDATE export_jobs AS j
  STRAIGHT_JOIN export_outbox AS o ON o.job_id = j.id
  SET o.sent_at = NOW(6), o.claimed_until = NULL, o.last_error = NULL,
      j.last_dispatched_at = NOW(6)
  WHERE j.id IN (?) AND o.id IN (?) AND o.claim_token = ? AND o.sent_at IS NULL AND o.claimed_until > NOW(6)`;

// ---------------------------------------------------------------------------------

/**
 * Marks the event sent and records the job's dispatch time, in one short transaction,
 * locking the job row first. Call it only AFTER the broker accepted the wake-up. `true` =
 * confirmed (sent_at and last_dispatched_at set together); `false` = this publisher no
 * longer holds the event: neither changes, so an old publisher never postpones the scanner.
 * `faults` undefined: no fault point is switched on.
 */
export async function confirmAndRecordDispatch(
  pool: Pool,
  eventId: string,
  token: string,
  jobId: string,
  faults?: ConfirmFaultHit,
): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    const [locked] = await tx.query<RowDataPacket[]>(LOCK_JOB_FOR_DISPATCH, [jobId]);
    if (locked.length === 0) throw new Error(`event ${eventId} names job ${jobId}, which has no row`);
    // The job row is ours until the COMMIT: a worker's SKIP LOCKED claim skips it right now.
    await faults?.hit('confirm-holding-job-lock');
    const [confirmed] = await tx.query<ResultSetHeader>(CONFIRM_EVENT_OF_JOB, [eventId, jobId, token]);
    if (confirmed.affectedRows !== 1) return false;
    await tx.query<ResultSetHeader>(RECORD_DISPATCH, [jobId]);
    return true;
  });
}

/**
 * confirmAndRecordDispatch for the accepted sends of one round (one claim, one token), in one
 * statement. Returns the event ids it confirmed; the others' rows, and their jobs', are
 * unchanged. One round trip when every event matched, a read of which ones otherwise.
 */
export async function confirmRoundAndRecordDispatch(
  pool: Pool,
  events: readonly ClaimedEvent[],
): Promise<ReadonlySet<string>> {
  if (events.length === 0) return new Set();
  const eventIds = events.map((event) => event.eventId);
  const jobIds = [...new Set(events.map((event) => event.jobId))];
  const token = tokenOf(events);
  const [changed] = await pool.query<ResultSetHeader>(CONFIRM_ROUND_AND_RECORD_DISPATCH, [jobIds, eventIds, token]);
  if (changed.affectedRows === eventIds.length + jobIds.length) return new Set(eventIds);
  return confirmedOf(pool, eventIds, token);
}

/**
 * The publisher's confirmations for lesson 12's startPublisher (`parts`), in both of its forms:
 * the claimed event names its job, so each can lock and stamp it.
 */
export function dispatchRecordingParts(faults?: ConfirmFaultHit): Pick<PublisherParts, 'confirmSent' | 'confirmRound'> {
  return {
    confirmSent: (pool: Pool, eventId: string, token: string, event: ClaimedEvent) =>
      confirmAndRecordDispatch(pool, eventId, token, event.jobId, faults),
    confirmRound: confirmRoundAndRecordDispatch,
  };
}
