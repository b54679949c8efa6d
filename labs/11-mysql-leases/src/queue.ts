// BullMQ's new, smaller role from lesson 11 on: it only WAKES a worker and tells it
// which job to look at. The job record (snapshot, state, attempts, lease, deadline,
// result) lives in MySQL; the message is `{ job_id }` and nothing else.
//
// The settings below follow from that role:
//   attempts 1     BullMQ never retries. Whether and when a job runs again is decided by the
//                  row (attempts, next_attempt_at, deadline_at): lesson 15's recovery scan
//                  requeues it and wakes a worker. Two retry counters would disagree.
//   retention      a finished wake-up is kept an hour (failed: a day) for diagnosis, then
//                  removed. Losing it loses nothing a user sees: GET /exports/:id reads the table.
//   stalls         lab 08's lock and stall settings stay. A wake-up that stalls (its worker
//                  died) is delivered again; the claim decides whether it may run, so a
//                  second delivery is harmless: it finds the lease taken and claims nothing.
//   job id         a FRESH id per wake-up, never the business job id. BullMQ silently ignores
//                  an add whose id already exists, in any state (completed included) until it
//                  is removed, and hands back the old job. With the business id, a job requeued
//                  after a lost lease could never be woken again while its first wake-up is
//                  retained. A duplicate wake-up costs one claim that finds nothing.
import { randomUUID } from 'node:crypto';
import type { Job, Queue, Worker } from 'bullmq';
import { labPrefix } from '@tasks-lab/infra';
import { jobIdSchema } from '@tasks-lab/01-state-machine';
import { CodedError } from '@tasks-lab/lab-kit';
import {
  EXPORT_JOB_NAME,
  EXPORTS_QUEUE,
  enqueue,
  type ExportJobName,
  type QueueAddress,
} from '@tasks-lab/08-broker-worker';

/** Lesson 11's BullMQ key prefix: `tasks-lab11`, so labs running at once never share keys. */
export const QUEUE_PREFIX = labPrefix('11');

/** Where lesson 11's wake-ups live: prefix tasks-lab11, queue `queueName` (the course's `exports`). */
export const exportsAddress = (queueName: string = EXPORTS_QUEUE): QueueAddress => ({
  prefix: QUEUE_PREFIX,
  queueName,
});

/** The whole message: which job to look at. The worker reads everything else from the row. */
export interface WakeUpMessage {
  job_id: string;
}

/** What one delivery did, as BullMQ stores it in its job hash. "completed" in BullMQ means this was returned. */
export interface DeliveryOutcome {
  job_id: string;
  /** This delivery won the claim (false: not queued, lease taken, backoff not over, deadline passed, ...). */
  claimed: boolean;
  /** Its finish changed the row: the job is succeeded and result_ref names this delivery's artifact. */
  published: boolean;
}

export type WakeUpQueue = Queue<WakeUpMessage, DeliveryOutcome, ExportJobName>;
export type WakeUpWorker = Worker<WakeUpMessage, DeliveryOutcome, ExportJobName>;
export type WakeUpJob = Job<WakeUpMessage, DeliveryOutcome, ExportJobName>;

/** The BullMQ job options of every wake-up (see the header for why). */
export const WAKE_UP_JOB_OPTIONS = {
  attempts: 1,
  removeOnComplete: { age: 3600 },
  removeOnFail: { age: 24 * 3600 },
} as const;

/** A message that is not exactly `{ job_id: <uuid> }`: refused before Redis and again in the worker. */
export class InvalidWakeUpError extends CodedError {
  constructor(detail: string) {
    super('invalid-wake-up', `a wake-up message is exactly {"job_id": "<uuid>"}; ${detail}`);
  }
}

/** Checks a wake-up message: one field, a UUID, in lower case (one spelling per job). */
export function parseWakeUp(data: unknown): WakeUpMessage {
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new InvalidWakeUpError('got something that is not an object');
  const keys = Object.keys(data);
  if (keys.length !== 1 || keys[0] !== 'job_id')
    throw new InvalidWakeUpError(`got the fields ${JSON.stringify(keys.slice(0, 5))}`);
  const jobId = (data as { job_id: unknown }).job_id;
  if (typeof jobId !== 'string' || !jobIdSchema.safeParse(jobId).success)
    throw new InvalidWakeUpError('job_id is not a UUID');
  return { job_id: jobId.toLowerCase() };
}

/**
 * Wakes a worker for `jobId` through lab 08's `enqueue`, with a fresh BullMQ job id.
 * Call it only AFTER the row is committed: a worker woken earlier would find no row to
 * claim. (If the process dies between the commit and this call, the job stays queued
 * with nobody woken: lesson 12's outbox closes that gap.)
 */
export function wakeWorker(queue: WakeUpQueue, jobId: string): Promise<WakeUpJob> {
  return enqueue(
    queue,
    EXPORT_JOB_NAME,
    { job_id: jobId },
    {
      jobId: `wake-${randomUUID()}`,
      validate: parseWakeUp,
      jobOptions: WAKE_UP_JOB_OPTIONS,
    },
  );
}
