// The products.export handler of this lesson. It records each delivery, writes the
// artifact atomically (and, in the late-ack drill, appends its ledger line), and then
// passes the fault point `after-rename`: the work is done, BullMQ has not heard that it
// is done. That gap is the late-ack window. A drill switches a crash on there
// (LAB_FAULTS=after-rename:crash:once); the job's payload never says "crash".
// Dispatch on the job name and the refusal of unknown names come from lab 08's layer.
import { Redis } from 'ioredis';
import { redisOptions } from '@tasks-lab/infra';
import { faultPoints, idempotent, type FaultPoints } from '@tasks-lab/lab-kit';
import { decodeMessage } from '@tasks-lab/07-choosing-executors';
import { EXPORT_JOB_NAME, startWorker, type WorkerSettings } from '@tasks-lab/08-broker-worker';
import { writeArtifactAtomically, type ArtifactOutcome, type ArtifactWriter, type RenderArtifact } from './artifact.ts';
import { recordExecution } from './execution-log.ts';
import { appendLedgerLine } from './ledger.ts';
import { exportsAddress, type ExportJob, type ExportsWorker } from './queue.ts';

/** Where a drill may break this worker on purpose (LAB_FAULTS). */
export const EXPORT_FAULT_POINTS = ['after-rename'] as const;
export type ExportFaultPoint = (typeof EXPORT_FAULT_POINTS)[number];

/** What one delivery returns; BullMQ keeps it in the job hash as `returnvalue`. */
export interface DeliveryResult extends ArtifactOutcome {
  pid: number;
  bullJobId: string;
}

export interface ExportWorkerOptions extends WorkerSettings {
  queueName: string;
  artifactDir: string;
  /** How the bytes are made (a test fixture stamps the time into them). */
  render?: RenderArtifact;
  /** @defaultValue writeArtifactAtomically */
  write?: ArtifactWriter;
  /** @defaultValue faultPoints(EXPORT_FAULT_POINTS), switched on by LAB_FAULTS */
  faults?: FaultPoints<ExportFaultPoint>;
  /** 'on': also append a ledger line per delivery, the drill's non-idempotent side effect. @defaultValue 'off' */
  ledger?: 'off' | 'on';
}

export interface ExportWorkerHandle {
  worker: ExportsWorker;
  faults: FaultPoints<ExportFaultPoint>;
  /** Stops taking jobs, lets the running one finish, closes the log connection. Safe to call twice. */
  close: () => Promise<void>;
}

export function startExportWorker(options: ExportWorkerOptions): ExportWorkerHandle {
  const faults = options.faults ?? faultPoints(EXPORT_FAULT_POINTS); // a bad LAB_FAULTS is refused here
  const log = new Redis(redisOptions());
  const write = options.write ?? writeArtifactAtomically;

  const exportProducts = async (job: ExportJob): Promise<DeliveryResult> => {
    // Lesson 07's contract on the way in too: anyone with the Redis password can add a job.
    const message = decodeMessage(JSON.stringify(job.data));
    // Record first: if this process dies a millisecond later, the delivery still counts.
    await recordExecution(log, job.queueName, message.job_id, {
      bullJobId: job.id ?? '?',
      pid: process.pid,
      attemptsStarted: job.attemptsStarted,
      attemptsMade: job.attemptsMade,
      startedAt: Date.now(),
    });
    const outcome = await write(options.artifactDir, message, { render: options.render });
    if (options.ledger === 'on')
      await appendLedgerLine(options.artifactDir, message, {
        pid: process.pid,
        bullJobId: job.id ?? '?',
        at: Date.now(),
      });
    // The late-ack window opens here: the file is complete under its final name (and the
    // ledger has its line), the job is still `active` in Redis until this function returns.
    await faults.hit('after-rename');
    return { ...outcome, pid: process.pid, bullJobId: job.id ?? '?' };
  };

  const worker = startWorker(exportsAddress(options.queueName), { [EXPORT_JOB_NAME]: exportProducts }, options);
  const close = idempotent(async () => {
    await worker.close();
    log.disconnect();
  });
  return { worker, faults, close };
}
