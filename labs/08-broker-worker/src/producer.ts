// The producer side: validate a message against lesson 07's contract, then put it
// on the exports queue under its business id. Opening the queue, listening for the
// result and waiting for it are the layer's (queue-layer.ts); this file only knows
// what an export job is. Waiting for a result belongs in a command-line script: an
// HTTP handler answers 202 at once and never blocks on a worker.
import { isDeepStrictEqual } from 'node:util';
import { encodeMessage, type ExportMessage } from '@tasks-lab/07-choosing-executors';
import { CodedError } from '@tasks-lab/lab-kit';
import type { Job, JobsOptions, Queue } from 'bullmq';
import { canonicalJobId, type ArtifactResult } from './artifacts.ts';
import { EXPORT_JOB_NAME, RESULT_RETENTION, type ExportJobName } from './broker.ts';
import { enqueue } from './queue-layer.ts';

/** The exports queue as the producer sees it: export messages in, artifact results out. */
export type ExportsQueue = Queue<ExportMessage, ArtifactResult, ExportJobName>;
export type ExportJob = Job<ExportMessage, ArtifactResult, ExportJobName>;

/** How long BullMQ keeps a finished job (its result) before a later job sweeps it away. */
export type Retention = Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'>;

/**
 * Lesson 07's contract, applied on the way out: the strict schema and the 64 KiB limit,
 * so a message with a password field, a path-like id or a bulky payload never reaches
 * Redis. Throws MessageContractError; returns the message as it will travel (plain JSON),
 * with its job_id in canonical (lower-case) form: `ABC…` and `abc…` are one export, so
 * they must be one BullMQ job id, one Redis key and one file name.
 */
export function checkExportMessage(message: unknown): ExportMessage {
  const checked = JSON.parse(encodeMessage(message).toString('utf8')) as ExportMessage;
  return { ...checked, job_id: canonicalJobId(checked.job_id) };
}

/** The id is taken: Redis holds a job under it whose snapshot differs from the one just sent. */
export class AlreadySubmittedError extends CodedError {
  constructor(
    readonly jobId: string,
    detail: string,
  ) {
    super(
      'already-submitted',
      `job ${jobId} was already submitted with another snapshot (${detail}); the queue keeps the first one. ` +
        'Submit new data under a new id.',
    );
  }
}

/**
 * Adds one export job. The business `job_id` becomes the BullMQ job id, so every later
 * lookup uses the id the client already knows. BullMQ ignores an add whose job id
 * already exists (in any state) and hands back a Job built from the data just sent, as
 * if it had been stored. So the producer reads back what Redis kept: the same snapshot
 * is a repeated submit, absorbed (the existing job is returned); a different one is
 * refused with AlreadySubmittedError instead of being dropped without a word.
 * `retention` is for the lazy-removal demonstration; every real submit keeps the course's.
 */
export async function enqueueExport(
  queue: ExportsQueue,
  message: unknown,
  retention: Retention = RESULT_RETENTION,
): Promise<ExportJob> {
  const checked = checkExportMessage(message);
  const added = await enqueue(queue, EXPORT_JOB_NAME, checked, { jobId: checked.job_id, jobOptions: retention });
  const stored = await queue.getJob(checked.job_id);
  if (!stored) return added; // already finished and swept by its retention: nothing to compare with
  if (!isDeepStrictEqual(stored.data, checked)) {
    throw new AlreadySubmittedError(
      checked.job_id,
      `Redis holds ${stored.data.products.length} product(s), this submit sent ${checked.products.length}`,
    );
  }
  return stored;
}
