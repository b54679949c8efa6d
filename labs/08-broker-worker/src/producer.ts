// The producer side: validate a message against lesson 07's contract, then put it
// on the exports queue under its business id. Opening the queue, listening for the
// result and waiting for it are the layer's (queue-layer.ts); this file only knows
// what an export job is. Waiting for a result belongs in a command-line script: an
// HTTP handler answers 202 at once and never blocks on a worker.
import { encodeMessage, type ExportMessage } from '@tasks-lab/07-choosing-executors';
import type { Job, JobsOptions, Queue } from 'bullmq';
import type { ArtifactResult } from './artifacts.ts';
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
 * Redis. Throws MessageContractError; returns the message as it will travel (plain JSON).
 */
export function checkExportMessage(message: unknown): ExportMessage {
  return JSON.parse(encodeMessage(message).toString('utf8')) as ExportMessage;
}

/**
 * Adds one export job. The business `job_id` becomes the BullMQ job id, so every later
 * lookup uses the id the client already knows. BullMQ silently ignores an add whose
 * job id already exists (in any state), so a repeated submit is absorbed, not doubled.
 * `retention` is for the lazy-removal demonstration; every real submit keeps the course's.
 */
export async function enqueueExport(queue: ExportsQueue, message: unknown, retention: Retention = RESULT_RETENTION): Promise<ExportJob> {
  const checked = checkExportMessage(message);
  return enqueue(queue, EXPORT_JOB_NAME, checked, { jobId: checked.job_id, jobOptions: retention });
}
