// The worker side: what products.export does, and a worker that runs it. BullMQ has
// no task registry or decorator like Celery's @app.task: the layer's startWorker
// dispatches on the job name through a table of handlers, and refuses any other name
// with UnknownJobNameError (unrecoverable: never retried).
import { decodeMessage, type ExportMessage } from '@tasks-lab/07-choosing-executors';
import type { Worker } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { writeArtifact, type ArtifactOptions, type ArtifactResult } from './artifacts.ts';
import { EXPORT_JOB_NAME, exportsAddress, type ExportJobName } from './broker.ts';
import { WORKER_OPTIONS, type WorkerOptionValues } from './options.ts';
import { startWorker, type JobHandler, type JobHandlers } from './queue-layer.ts';

/** Job name -> handler for export messages; `Name` is products.export unless a fixture says otherwise. */
export type ExportHandlers<Name extends string = ExportJobName> = JobHandlers<ExportMessage, ArtifactResult, Name>;
export type ExportsWorker<Name extends string = ExportJobName> = Worker<ExportMessage, ArtifactResult, Name>;

/**
 * products.export: check the message against the contract again, on the way in (the
 * job may come from a producer that skipped the check, or from an older one), then
 * write the file. A message that breaks the contract fails the job; no file is written.
 */
export function exportProductsHandler<Name extends string = ExportJobName>(
  options: ArtifactOptions = {},
): JobHandler<ExportMessage, ArtifactResult, Name> {
  return async (job) => {
    const message = decodeMessage(JSON.stringify(job.data));
    return writeArtifact(message.job_id, message.products, options);
  };
}

/** The handlers the lesson's worker registers: products.export, and nothing else. */
export function exportHandlers(options: ArtifactOptions = {}): ExportHandlers {
  return { [EXPORT_JOB_NAME]: exportProductsHandler(options) };
}

export interface StartExportWorkerOptions<Name extends string> extends Partial<WorkerOptionValues> {
  /** Usually exportHandlers(); the can-fail fixtures register broken ones. */
  handlers: ExportHandlers<Name>;
  /** @defaultValue brokerConnection() */
  connection?: RedisOptions;
}

/**
 * A worker on the exports queue. Timings not given take the course's values (they are
 * checked like WORKER_OPTIONS from the environment: a concurrency of 0 is refused);
 * the environment itself is read by the worker process, not here.
 */
export function startExportWorker<Name extends string = ExportJobName>(
  options: StartExportWorkerOptions<Name>,
): ExportsWorker<Name> {
  const settings = WORKER_OPTIONS.read({ env: {}, overrides: options });
  return startWorker(exportsAddress(settings.queueName), options.handlers, {
    ...settings,
    connection: options.connection,
  });
}
