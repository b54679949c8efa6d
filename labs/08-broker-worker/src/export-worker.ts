// The worker side: one BullMQ processor that dispatches on the job name. BullMQ has
// no task registry or decorator like Celery's @app.task; a worker registers job
// names by handling them here, and anything else is refused with a clear error.
import { decodeMessage } from '@tasks-lab/07-choosing-executors';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { writeArtifact, type ArtifactOptions, type ArtifactResult } from './artifacts.ts';
import { brokerConnection, queueConnection, EXPORT_JOB_NAME, EXPORTS_QUEUE, QUEUE_PREFIX } from './broker.ts';

export type JobHandler = (job: Job) => Promise<unknown>;
/** Job name -> handler: the worker's "registered tasks". */
export type JobHandlers = Record<string, JobHandler>;

/**
 * A job name this worker does not handle. Unrecoverable: running it again on the
 * same code would fail the same way, so BullMQ must not retry it.
 */
export class UnknownJobNameError extends UnrecoverableError {
  constructor(name: string, registered: readonly string[]) {
    super(`no processor registered for job name "${name}"; this worker handles: ${registered.join(', ')}`);
    this.name = 'UnknownJobNameError';
  }
}

/** products.export: check the message against the contract again (on the way in), then write the file. */
export function exportProductsHandler(options: ArtifactOptions = {}): JobHandler {
  return async (job): Promise<ArtifactResult> => {
    const message = decodeMessage(JSON.stringify(job.data));
    return writeArtifact(message.job_id, message.products, options);
  };
}

export function exportHandlers(options: ArtifactOptions = {}): JobHandlers {
  return { [EXPORT_JOB_NAME]: exportProductsHandler(options) };
}

/** The single processor BullMQ calls for every job: look the name up, or refuse it. */
export function createProcessor(handlers: JobHandlers): (job: Job) => Promise<unknown> {
  return async (job) => {
    const handler = Object.hasOwn(handlers, job.name) ? handlers[job.name] : undefined;
    if (!handler) throw new UnknownJobNameError(job.name, Object.keys(handlers));
    return handler(job);
  };
}

export interface StartExportWorkerOptions {
  /** @defaultValue EXPORTS_QUEUE ("exports") */
  queueName?: string;
  /** How many jobs this process runs at once. @defaultValue 2 (the course's --concurrency=2) */
  concurrency?: number;
  /** @defaultValue exportHandlers() */
  handlers?: JobHandlers;
  /** @defaultValue brokerConnection() from @tasks-lab/infra */
  connection?: RedisOptions;
  /** How long a running job's lock lasts before it is renewed. @defaultValue 30000 (BullMQ's default) */
  lockDurationMs?: number;
  /** How often this worker looks for jobs whose lock lapsed. @defaultValue 30000 (BullMQ's default) */
  stalledIntervalMs?: number;
}

export function startExportWorker(options: StartExportWorkerOptions = {}): Worker {
  const handlers = options.handlers ?? exportHandlers();
  return new Worker(options.queueName ?? EXPORTS_QUEUE, createProcessor(handlers), {
    connection: queueConnection(options.connection ?? brokerConnection()),
    prefix: QUEUE_PREFIX,
    concurrency: options.concurrency ?? 2,
    lockDuration: options.lockDurationMs ?? 30_000,
    stalledInterval: options.stalledIntervalMs ?? 30_000,
  });
}
