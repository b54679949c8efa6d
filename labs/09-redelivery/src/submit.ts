// The producer side: one business export (job_id + frozen snapshot) becomes one BullMQ
// job. The BullMQ job id names a *delivery*, the message's job_id names the *business
// job*. Lab 08 used one id for both; this lesson pulls them apart on purpose, so every
// submit is a fresh delivery unless the caller picks the BullMQ id.
import { randomUUID } from 'node:crypto';
import type { ExportMessage } from '@tasks-lab/07-choosing-executors';
import { checkExportMessage, enqueue, EXPORT_JOB_NAME } from '@tasks-lab/08-broker-worker';
import type { ExportJob, ExportsQueue } from './queue.ts';

export interface SubmitExportOptions {
  /** The BullMQ job id. A fresh UUID unless given; a repeat add with an existing id is ignored while that job exists. */
  jobId?: string;
}

/** Checks the message against lesson 07's contract, then adds it. Returns BullMQ's job (maybe an existing one). */
export function submitExport(
  queue: ExportsQueue,
  message: ExportMessage,
  options: SubmitExportOptions = {},
): Promise<ExportJob> {
  return enqueue(queue, EXPORT_JOB_NAME, message, {
    jobId: options.jobId ?? randomUUID(),
    validate: checkExportMessage,
  });
}
