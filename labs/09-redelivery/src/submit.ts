// The producer side: one business export (job_id + frozen snapshot) becomes one BullMQ
// job. The BullMQ job id names a *delivery channel*, the message's job_id names the
// *business job*; this lesson keeps the two apart on purpose.
import { randomUUID } from 'node:crypto';
import type { Job, Queue } from 'bullmq';
import { createMessageCodec, type ExportMessage } from '@tasks-lab/08-broker-worker';
import { EXPORT_TASK_NAME } from './queue.ts';

const codec = createMessageCodec();

export interface SubmitExportOptions {
  /** The BullMQ job id. A fresh one per call unless you pass one (then a repeat add is ignored while it exists). */
  bullJobId?: string;
}

/** Checks the message against lesson 07's contract, then adds it. Returns BullMQ's job (maybe an existing one). */
export async function submitExport(queue: Queue, message: ExportMessage, options: SubmitExportOptions = {}): Promise<Job<ExportMessage>> {
  const checked = codec.decode(codec.encode(message));
  // BullMQ ids must not contain ':' and must not be plain integers; a UUID is neither.
  return queue.add(EXPORT_TASK_NAME, checked, { jobId: options.bullJobId ?? randomUUID() });
}
