// The producer side: validate a message against lesson 07's contract, then put it
// on the `exports` queue under its business id. Waiting for the result
// (waitForExportResult) belongs in a command-line acceptance script only: an HTTP
// handler answers 202 at once and never blocks on a worker.
import { encodeMessage, type ExportMessage } from '@tasks-lab/07-choosing-executors';
import { Queue, QueueEvents, type Job } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import type { ArtifactResult } from './artifacts.ts';
import { brokerConnection, queueConnection, EXPORT_JOB_NAME, EXPORTS_QUEUE, QUEUE_PREFIX, RESULT_RETENTION } from './broker.ts';

export type QueuedExport = Job<ExportMessage, ArtifactResult>;

export function openExportsQueue(queueName = EXPORTS_QUEUE, connection: RedisOptions = brokerConnection()): Queue<ExportMessage, ArtifactResult> {
  return new Queue<ExportMessage, ArtifactResult>(queueName, { connection: queueConnection(connection), prefix: QUEUE_PREFIX });
}

export function openExportsEvents(queueName = EXPORTS_QUEUE, connection: RedisOptions = brokerConnection()): QueueEvents {
  return new QueueEvents(queueName, { connection: queueConnection(connection), prefix: QUEUE_PREFIX });
}

/**
 * Adds one export job. The message is checked first (strict schema, < 64 KiB), so a
 * message with a password field or a huge payload never reaches Redis. The business
 * id becomes the BullMQ job id, so every later lookup uses the id the client knows.
 * Note: BullMQ silently ignores an add whose job id already exists (in any state).
 */
export async function enqueueExport(queue: Queue<ExportMessage, ArtifactResult>, message: unknown): Promise<QueuedExport> {
  const checked = JSON.parse(encodeMessage(message).toString('utf8')) as ExportMessage;
  return queue.add(EXPORT_JOB_NAME, checked, { jobId: checked.job_id, ...RESULT_RETENTION });
}

/** The wait ran out; the job itself is untouched and may still finish later. */
export class ResultTimeoutError extends Error {
  constructor(
    readonly jobId: string,
    readonly waitedMs: number,
    readonly state: string,
  ) {
    super(`no result within ${formatSeconds(waitedMs)} s; the job is still ${state} (id ${jobId})`);
    this.name = 'ResultTimeoutError';
  }
}

const formatSeconds = (ms: number) => String(Math.round((ms / 1000) * 10) / 10);

/**
 * Waits for the job's final outcome through QueueEvents, for at most `ttlMs`.
 * A timeout is not a failure of the job: it reports the job's current state instead.
 */
export async function waitForExportResult(job: QueuedExport, events: QueueEvents, ttlMs: number): Promise<ArtifactResult> {
  try {
    return await job.waitUntilFinished(events, ttlMs);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (!/timed out before finishing/.test(message)) throw err;
    const state = await job.getState();
    throw new ResultTimeoutError(job.id ?? '?', ttlMs, state);
  }
}
