// Lesson 12's outbox: the job and the intent to wake a worker are committed together.
//
//   submitWithEvent   ONE transaction: snapshot + job row (lesson 11's statements), then
//                     the outbox event. Both commit, or neither does. Nothing is sent here.
//   claimEvents       a publisher takes up to n unsent events: SKIP LOCKED + a claim token
//   confirmSent       marks an event sent, by the token, only while the claim still holds
//   confirmSentEvents the same for a round's events, in one statement
//   releaseFailed     a send failed: the event is given back, to be tried after a delay
//
// Why not send to BullMQ inside the transaction? The broker is another system: the
// transaction cannot roll a sent message back, and waiting on the network while holding
// row locks makes every other writer wait too. So the send happens AFTER the commit, in
// the publisher, and a lost confirmation means the event is sent again: at least once.
//
// Fault point, for the drills and the atomic-submit check (LAB_FAULTS):
//   after-job-insert   the job row is written, the event not yet, inside the transaction
import { randomUUID } from 'node:crypto';
import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { faultPoints, type FaultPoints } from '@tasks-lab/lab-kit';
import { EXPORTS_QUEUE } from '@tasks-lab/08-broker-worker';
import {
  checkSubmission,
  earlierAfterDuplicateKey,
  insertJobWith,
  microseconds,
  withTransaction,
  type InsertJobSteps,
  type Snapshot,
  type SubmitResult,
} from '@tasks-lab/11-mysql-leases';
import {
  CLAIM_EVENTS,
  CONFIRM_SENT,
  CONFIRM_SENT_EVENTS,
  FIRST_EVENT_OF_JOB,
  INSERT_EVENT,
  LOCK_CLAIMABLE_EVENTS,
  READ_CLAIMED_EVENTS,
  READ_CONFIRMED_EVENTS,
  READ_EVENT,
  RELEASE_FAILED,
} from './outbox-queries.ts';

export const SUBMIT_FAULT_POINTS = ['after-job-insert'] as const;
export type SubmitFaultPoint = (typeof SUBMIT_FAULT_POINTS)[number];
export type SubmitFaults = FaultPoints<SubmitFaultPoint>;

/** Reads LAB_FAULTS; a rule naming another point is refused. */
export const submitFaults = (env: NodeJS.ProcessEnv = process.env): SubmitFaults =>
  faultPoints(SUBMIT_FAULT_POINTS, env);

let processSubmitFaults: SubmitFaults | undefined;
/** The process's own fault points, read from LAB_FAULTS once, on the first submission. */
export const defaultSubmitFaults = (): SubmitFaults => (processSubmitFaults ??= submitFaults());

/** Anything that runs a query: the pool, or a connection inside a transaction. */
type Queryable = Pick<Pool | PoolConnection, 'query'>;

// ---------------------------------------------------------------------------------
// Submission

/** What a submission answers: lesson 11's, plus the outbox event that will wake a worker. */
export interface SubmitWithEventResult extends SubmitResult {
  eventId: string;
}

export interface SubmitWithEventOptions {
  idempotencyKey?: string;
  deadlineMs?: number;
  /** The BullMQ queue the event will wake a worker on. @defaultValue 'exports' */
  queueName?: string;
  /** The new job's id, chosen in advance (a drill looks for the rows after a failure). @defaultValue a fresh UUID */
  jobId?: string;
  /** @defaultValue this process's, from LAB_FAULTS */
  faults?: SubmitFaults;
  /** Steps a later lesson runs inside the same transaction (lesson 13's admission gate). */
  steps?: SubmitSteps;
  /** A snapshot frozen earlier, stored as it is instead of reading the products (lesson 15's replay). @defaultValue the products' current rows */
  snapshot?: readonly Snapshot[];
  /** What the Idempotency-Key names, when it is not "these product ids" (lesson 15's replay: one failed job). @defaultValue lesson 11's requestDigest(ids) */
  requestDigest?: string;
}

/** Lesson 11's step before the job's INSERT, one between the job and its event, and one just before the COMMIT. */
export interface SubmitSteps extends InsertJobSteps {
  /** The job is inserted, its event not yet: a row that must reference the job goes here (lesson 14's time slot). */
  afterJobInsert?: (tx: PoolConnection, jobId: string) => Promise<void>;
  /** The job and its event are inserted; it may still refuse them by throwing (everything rolls back). */
  beforeCommit?: (tx: PoolConnection, job: { jobId: string; eventId: string }) => Promise<void>;
}

const QUEUE_NAME = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * Accepts an export: freezes the snapshot, inserts the job and its outbox event in ONE
 * transaction, and returns after the COMMIT. Then, and only then, may the caller answer
 * 202 and nudge the publisher. It never talks to the broker: with Redis down it still
 * accepts the job, and the event waits, unsent, until a publisher can send it.
 *
 * A replay with the same Idempotency-Key returns the first job and its first event
 * (`created: false`) and writes nothing.
 */
export async function submitWithEvent(
  pool: Pool,
  productIds: readonly number[],
  options: SubmitWithEventOptions = {},
): Promise<SubmitWithEventResult> {
  const submission = checkSubmission(productIds, options);
  const queueName = options.queueName ?? EXPORTS_QUEUE;
  if (!QUEUE_NAME.test(queueName))
    throw new Error(`a queue name is 1 to 100 letters, digits, '.', '_' or '-', got "${queueName.slice(0, 40)}"`);
  const faults = options.faults ?? defaultSubmitFaults();
  try {
    return await withTransaction(pool, async (tx) => {
      const job = await insertJobWith(tx, submission, options.steps);
      if (!job.created) return { ...job, eventId: await firstEventOf(tx, job.jobId) };
      // A failure here (the process dies, the connection drops, a bug throws) rolls the
      // job back too: there is never a job that nobody will ever be told about.
      await faults.hit('after-job-insert');
      await options.steps?.afterJobInsert?.(tx, job.jobId);
      const eventId = randomUUID();
      const [inserted] = await tx.query<ResultSetHeader>(INSERT_EVENT, [eventId, job.jobId, queueName]);
      if (inserted.affectedRows !== 1)
        throw new Error(`inserting the event of job ${job.jobId} affected ${inserted.affectedRows} rows, expected 1`);
      await options.steps?.beforeCommit?.(tx, { jobId: job.jobId, eventId });
      return { ...job, eventId };
    });
  } catch (err) {
    // Two submissions with one key at once: the first one's job (and event) is the answer.
    const earlier = await earlierAfterDuplicateKey(pool, submission, err);
    if (earlier) return { ...earlier, eventId: await firstEventOf(pool, earlier.jobId) };
    throw err;
  }
}

async function firstEventOf(db: Queryable, jobId: string): Promise<string> {
  const [rows] = await db.query<RowDataPacket[]>(FIRST_EVENT_OF_JOB, [jobId]);
  const row = rows[0];
  if (!row) throw new Error(`job ${jobId} has no outbox event (was it submitted without one?)`);
  return String(row.id);
}

// ---------------------------------------------------------------------------------
// The publisher's three steps: claim, (send, in publisher.ts), confirm or release.

/** An event a publisher claimed: it may send it, and confirm it with `token` while the claim holds. */
export interface ClaimedEvent {
  eventId: string;
  jobId: string;
  queueName: string;
  token: string;
  /** Counting this claim. Above 1: an earlier send failed or was never confirmed. */
  sendAttempts: number;
  claimedUntil: Date;
}

/**
 * Claims up to `batch` unsent events, oldest first, for `claimMs`, in one short
 * transaction (no I/O inside; the locks are gone when it returns). Events another
 * publisher is claiming at this moment are skipped (SKIP LOCKED), events under a live
 * claim are not eligible. `[]` = nothing to send now.
 */
export async function claimEvents(pool: Pool, options: { batch: number; claimMs: number }): Promise<ClaimedEvent[]> {
  const token = randomUUID();
  return withTransaction(pool, async (tx) => {
    const [locked] = await tx.query<RowDataPacket[]>(LOCK_CLAIMABLE_EVENTS, [options.batch]);
    if (locked.length === 0) return [];
    const ids = locked.map((row) => String(row.id));
    await tx.query<ResultSetHeader>(CLAIM_EVENTS, [token, microseconds(options.claimMs), ids]);
    const [claimed] = await tx.query<RowDataPacket[]>(READ_CLAIMED_EVENTS, [ids, token]);
    return claimed.map((row) => ({
      eventId: String(row.id),
      jobId: String(row.job_id),
      queueName: String(row.queue_name),
      token,
      sendAttempts: Number(row.send_attempts),
      claimedUntil: row.claimed_until as Date,
    }));
  });
}

/**
 * Marks the event sent: call it only AFTER the broker accepted the message. `true` =
 * confirmed; `false` = this publisher no longer holds the event (its claim passed, and
 * another publisher may send it again): the send stands, but it is not the record.
 */
export async function confirmSent(pool: Pool, eventId: string, token: string): Promise<boolean> {
  const [confirmed] = await pool.query<ResultSetHeader>(CONFIRM_SENT, [eventId, token]);
  return confirmed.affectedRows === 1;
}

/**
 * confirmSent for the events of one claim (one token) that the broker accepted: one
 * statement for the round instead of one per event. Returns the ids it confirmed; an event
 * missing from the answer is no longer this publisher's (see confirmSent). When every event
 * is confirmed (the normal case) that is the only round trip; otherwise one read says which.
 */
export async function confirmSentEvents(
  pool: Pool,
  eventIds: readonly string[],
  token: string,
): Promise<ReadonlySet<string>> {
  if (eventIds.length === 0) return new Set();
  const [confirmed] = await pool.query<ResultSetHeader>(CONFIRM_SENT_EVENTS, [eventIds, token]);
  if (confirmed.affectedRows === eventIds.length) return new Set(eventIds);
  return confirmedOf(pool, eventIds, token);
}

/** The round's events that carry its token and are sent (READ_CONFIRMED_EVENTS). */
export async function confirmedOf(pool: Pool, eventIds: readonly string[], token: string): Promise<Set<string>> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_CONFIRMED_EVENTS, [eventIds, token]);
  return new Set(rows.map((row) => String(row.id)));
}

/**
 * The send failed: gives the event back, available again after `retryDelayMs`, with the
 * reason in last_error. `true` = released; `false` = not the holder any more (nothing changed).
 */
export async function releaseFailed(
  pool: Pool,
  eventId: string,
  token: string,
  error: string,
  options: { retryDelayMs?: number } = {},
): Promise<boolean> {
  const [released] = await pool.query<ResultSetHeader>(RELEASE_FAILED, [
    microseconds(options.retryDelayMs ?? 5000),
    error.slice(0, 500),
    eventId,
    token,
  ]);
  return released.affectedRows === 1;
}

// ---------------------------------------------------------------------------------
// Reading

/** One outbox row, as the table holds it. */
export interface OutboxEvent {
  eventId: string;
  jobId: string;
  queueName: string;
  createdAt: Date;
  availableAt: Date;
  claimToken: string | null;
  claimedUntil: Date | null;
  sentAt: Date | null;
  sendAttempts: number;
  lastError: string | null;
}

export async function readEvent(db: Queryable, eventId: string): Promise<OutboxEvent | undefined> {
  const [rows] = await db.query<RowDataPacket[]>(READ_EVENT, [eventId]);
  const row = rows[0];
  return row && toOutboxEvent(row);
}

export function toOutboxEvent(row: RowDataPacket): OutboxEvent {
  return {
    eventId: String(row.id),
    jobId: String(row.job_id),
    queueName: String(row.queue_name),
    createdAt: row.created_at as Date,
    availableAt: row.available_at as Date,
    claimToken: row.claim_token === null ? null : String(row.claim_token),
    claimedUntil: row.claimed_until as Date | null,
    sentAt: row.sent_at as Date | null,
    sendAttempts: Number(row.send_attempts),
    lastError: row.last_error === null ? null : String(row.last_error),
  };
}
