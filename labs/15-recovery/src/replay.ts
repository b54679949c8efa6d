// Lesson 15's replay: once the cause of a failure is fixed, a failed job is run again as a
// NEW job that names the old one (replay_of). The old job stays failed, with its attempts,
// its error and its dead letter: the evidence of what went wrong is never erased.
//
// The new job carries the failed job's snapshot, copied by value (as the course copies its
// payload): the same input runs before and after the fix, so the two runs can be compared,
// even if a product has been repriced or deleted since. Nothing reads the products again.
//
// Otherwise it is an ordinary admission (lesson 13's admitExport, given that snapshot): it
// passes the gate (a replay is one more active job, so a full service refuses it with 503 like
// any other), it gets the deadline a new job gets (the server's EXPORT_DEADLINE_MS; the course
// writes 10 minutes), and its event goes to the failed job's route (the queue of its first
// event: a fast job is replayed on exports.fast; the course sends every replay to exports.bulk).
// The link is written in the admission's own transaction, between the job's insert and its
// event's (`afterJobInsert`): the job and its replay_of commit together or not at all.
//
// An Idempotency-Key names ONE request. A submission's key names its product ids (lesson 11's
// requestDigest); a replay's key names the failed job it repeats (replayDigest). The two can
// never match, so a key used by POST /exports is refused by a replay (409), and a replay's key
// is refused by POST /exports (409), instead of one answering with the other's job.
import { createHash } from 'node:crypto';
import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { AppError, JobNotFoundError } from '@tasks-lab/01-state-machine';
import { decodeSnapshot, type Snapshot } from '@tasks-lab/11-mysql-leases';
import { admitExport, type AdmissionRules, type RouteQueue } from '@tasks-lab/13-admission';
import { READ_REPLAY_SOURCE, ROUTE_OF_JOB, SET_REPLAY_OF } from './recovery-queries.ts';

/** Only a failed job may be replayed (409): a queued or running one is still being looked after, a succeeded or cancelled one needs no repair. */
export class NotReplayableError extends AppError {
  constructor(
    readonly jobId: string,
    readonly jobStatus: string,
  ) {
    super('not-replayable', `Job ${jobId} is ${jobStatus}: only a failed job can be replayed`, 409);
  }
}

export interface ReplayOptions {
  rules?: Partial<AdmissionRules>;
  /** A retried replay request with the same key answers the first replay (created: false). */
  idempotencyKey?: string;
  /** How long the new job has before its deadline: the same setting as a new job's (the API passes its EXPORT_DEADLINE_MS). @defaultValue the course's 10 minutes */
  deadlineMs?: number;
}

export interface ReplayResult {
  jobId: string;
  eventId: string;
  replayOf: string;
  /** false: the Idempotency-Key found an earlier replay of the same job. */
  created: boolean;
}

/** What a failed job hands its replay: its snapshot, as stored, and its route. */
export interface ReplaySource {
  snapshot: Snapshot[];
  route: RouteQueue | undefined;
}

/**
 * What a replay's Idempotency-Key names: the failed job it repeats. Lesson 11's requestDigest
 * hashes `{productIds}`, this hashes `{replayOf}`: no submission and no replay of another job
 * can have the same digest, so the key is refused (409) rather than answered with their job.
 */
export function replayDigest(failedJobId: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ replayOf: failedJobId }))
    .digest('hex');
}

/**
 * Replays the failed job `failedJobId` with its own snapshot. Throws JobNotFoundError (404),
 * NotReplayableError (409), lesson 13's admission refusals (503/429), and lesson 11's
 * IdempotencyKeyReusedError (409) when the key already named another request (a submission,
 * or a replay of another job).
 */
export async function replayJob(pool: Pool, failedJobId: string, options: ReplayOptions = {}): Promise<ReplayResult> {
  const source = await readReplaySource(pool, failedJobId);
  const admitted = await admitExport(
    pool,
    source.snapshot.map((product) => product.id),
    {
      snapshot: source.snapshot,
      requestDigest: replayDigest(failedJobId),
      rules: options.rules,
      idempotencyKey: options.idempotencyKey,
      deadlineMs: options.deadlineMs,
      queueName: source.route,
      afterJobInsert: (tx, jobId) => linkReplay(tx, jobId, failedJobId),
    },
  );
  return { jobId: admitted.jobId, eventId: admitted.eventId, replayOf: failedJobId, created: admitted.created };
}

/** The failed job's snapshot (decoded, so it is checked) and route. A plain read: failed is terminal, it cannot change. */
export async function readReplaySource(pool: Pool, jobId: string): Promise<ReplaySource> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_REPLAY_SOURCE, [jobId]);
  const row = rows[0];
  if (!row) throw new JobNotFoundError(jobId);
  if (row.status !== 'failed') throw new NotReplayableError(jobId, String(row.status));
  const [events] = await pool.query<RowDataPacket[]>(ROUTE_OF_JOB, [jobId]);
  // No event (a job submitted without the outbox): the route by row count, as at admission.
  const route = events[0] ? (String(events[0].queue_name) as RouteQueue) : undefined;
  return { snapshot: decodeSnapshot(row.snapshot), route };
}

async function linkReplay(tx: PoolConnection, newJobId: string, failedJobId: string): Promise<void> {
  const [linked] = await tx.query<ResultSetHeader>(SET_REPLAY_OF, [failedJobId, newJobId]);
  if (linked.affectedRows !== 1)
    throw new Error(`linking replay ${newJobId} to ${failedJobId} affected ${linked.affectedRows} rows, expected 1`);
}
