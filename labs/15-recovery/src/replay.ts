// Lesson 15's replay: once the cause of a failure is fixed, a failed job is run again as a
// NEW job that names the old one (replay_of). The old job stays failed, with its attempts,
// its error and its dead letter: the evidence of what went wrong is never erased.
//
// The new job is an ordinary admission (lesson 13's admitExport): it passes the gate (a replay
// is one more active job, so a full service refuses it with 503 like any other), its
// snapshot is read again for the failed job's product ids (the course copies the old payload;
// here the products are exported as they are now, after the fix, through the one submission
// path), and its event goes to the failed job's route (the queue of its first event: a
// fast job is replayed on exports.fast; the course's replay sends everything to exports.bulk).
// The link is written in the admission's own transaction, between the job's insert and its
// event's (`afterJobInsert`): the job and its replay_of commit together or not at all.
import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { AppError, JobNotFoundError } from '@tasks-lab/01-state-machine';
import { decodeSnapshot, IdempotencyKeyReusedError } from '@tasks-lab/11-mysql-leases';
import { admitExport, type AdmissionRules, type RouteQueue } from '@tasks-lab/13-admission';
import { READ_REPLAY_OF, READ_REPLAY_SOURCE, ROUTE_OF_JOB, SET_REPLAY_OF } from './recovery-queries.ts';

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
}

export interface ReplayResult {
  jobId: string;
  eventId: string;
  replayOf: string;
  /** false: the Idempotency-Key found an earlier replay of the same job. */
  created: boolean;
}

/**
 * Replays the failed job `failedJobId`. Throws JobNotFoundError (404), NotReplayableError
 * (409), lesson 13's admission refusals (503/429), MissingProductsError (422) when a product
 * is gone, IdempotencyKeyReusedError (409) when the key already named another request.
 */
export async function replayJob(pool: Pool, failedJobId: string, options: ReplayOptions = {}): Promise<ReplayResult> {
  const source = await readSource(pool, failedJobId);
  const admitted = await admitExport(pool, source.productIds, {
    rules: options.rules,
    idempotencyKey: options.idempotencyKey,
    queueName: source.route,
    afterJobInsert: (tx, jobId) => linkReplay(tx, jobId, failedJobId),
  });
  if (!admitted.created) await expectSameSource(pool, admitted.jobId, failedJobId, options.idempotencyKey);
  return { jobId: admitted.jobId, eventId: admitted.eventId, replayOf: failedJobId, created: admitted.created };
}

/** The failed job's product ids (its snapshot's, in order) and route. A plain read: failed is terminal, it cannot change. */
async function readSource(pool: Pool, jobId: string): Promise<{ productIds: number[]; route: RouteQueue | undefined }> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_REPLAY_SOURCE, [jobId]);
  const row = rows[0];
  if (!row) throw new JobNotFoundError(jobId);
  if (row.status !== 'failed') throw new NotReplayableError(jobId, String(row.status));
  const [events] = await pool.query<RowDataPacket[]>(ROUTE_OF_JOB, [jobId]);
  // No event (a job submitted without the outbox): the route by row count, as at admission.
  const route = events[0] ? (String(events[0].queue_name) as RouteQueue) : undefined;
  return { productIds: decodeSnapshot(row.snapshot).map((product) => product.id), route };
}

async function linkReplay(tx: PoolConnection, newJobId: string, failedJobId: string): Promise<void> {
  const [linked] = await tx.query<ResultSetHeader>(SET_REPLAY_OF, [failedJobId, newJobId]);
  if (linked.affectedRows !== 1) throw new Error(`linking replay ${newJobId} to ${failedJobId} affected ${linked.affectedRows} rows, expected 1`);
}

/** A key that found an earlier job must have found a replay of THIS failed job, not of another one. */
async function expectSameSource(pool: Pool, jobId: string, failedJobId: string, key: string | undefined): Promise<void> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_REPLAY_OF, [jobId]);
  const replayOf = rows[0]?.replay_of ?? null;
  if (replayOf !== failedJobId && key !== undefined) throw new IdempotencyKeyReusedError(key, jobId);
}
