// `pnpm worker:fast` and `pnpm worker:bulk`: one worker per queue, concurrency 1 each by
// default (the course's two Celery workers, -Q exports.fast and -Q exports.bulk). Lesson
// 11's delivery (claim -> artifact -> finish) with one change: the finish also takes the
// job out of the admission gate's counter, in the same transaction (finishAndLeave).
//
// Splitting the queues only helps because each has its OWN worker: a long bulk export
// holds the bulk worker's one slot, and the fast worker's slot is still free for small
// exports. Two queue names served by one worker would still make a small export wait.
//
//   pnpm worker:fast                                  exports.fast, the course's timings
//   pnpm worker:bulk                                  exports.bulk
//   WORKER_CONCURRENCY=2 pnpm worker:fast             two fast exports at once
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { onShutdown, runMain } from '@tasks-lab/lab-kit';
import {
  exportFaults,
  startExportWorker,
  WORKER_SHUTDOWN_GRACE_MS,
  type RunningExportWorker,
  type StartExportWorkerOptions,
} from '@tasks-lab/11-mysql-leases';
import { finishOfForm } from './gate.ts';
import {
  COURSE_TIMINGS,
  describeTimings,
  type FinishForm,
  LAB,
  readAdmissionOptions,
  WORKER_PROCESS_OPTIONS,
  type RouteQueue,
  type WorkerProcessOptionValues,
} from './options.ts';
import { exportsAddress, routeNamed } from './queue.ts';

export interface StartRouteWorkerOptions extends Omit<StartExportWorkerOptions, 'address' | 'process'> {
  queueName: RouteQueue;
  process: WorkerProcessOptionValues;
  /** How the finish leaves the gate (FINISH_FORM). @defaultValue 'one-statement' */
  finishForm?: FinishForm;
}

/** Lesson 11's worker on one of lesson 13's queues (under process.queuePrefix), finishing and leaving the gate (unless a fixture swaps the finish). */
export function startRouteWorker(options: StartRouteWorkerOptions): Promise<RunningExportWorker> {
  const { queueName, finishForm = COURSE_TIMINGS.finishForm, ...rest } = options;
  return startExportWorker({
    ...rest,
    process: { ...rest.process, queueName },
    address: exportsAddress(queueName, rest.process.queuePrefix),
    parts: { finish: finishOfForm(finishForm), ...rest.parts },
  });
}

/** One line per delivery, naming the queue: a check can tell which worker took which job. */
export function logDeliveries(
  running: RunningExportWorker,
  queueName: string,
  log: (line: string) => void = console.log,
): void {
  running.worker.on('completed', (job, outcome) => {
    log(
      `${queueName} delivered job ${outcome.job_id} (BullMQ id ${job.id}): claimed ${outcome.claimed}, published ${outcome.published}`,
    );
  });
  running.worker.on('failed', (job, err) =>
    log(`${queueName} delivery of job ${job?.data.job_id ?? '?'} (BullMQ id ${job?.id ?? '?'}) failed: ${err.message}`),
  );
}

async function main(): Promise<void> {
  const { queueName } = routeNamed(process.argv[2]);
  const settings = WORKER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  const timings = readAdmissionOptions();
  const faults = exportFaults();
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  // Safe from every process at start-up: a named lock serialises it, applied files are skipped.
  await migrateLab(LAB, { database: settings.database });
  const running = await startRouteWorker({
    queueName,
    process: settings,
    lease: timings,
    faults,
    finishForm: timings.finishForm,
  });
  logDeliveries(running, queueName);
  onShutdown(running.close, { graceMs: WORKER_SHUTDOWN_GRACE_MS });
  console.log(
    `export worker ${process.pid} ready: queue ${queueName} (prefix ${settings.queuePrefix}), database ${settings.database}, ` +
      `concurrency ${settings.concurrency}, ${describeTimings(timings)}; ${faults.describe()}`,
  );
}

runMain(import.meta.url, main);
