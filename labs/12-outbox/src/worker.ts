// `pnpm worker`: lesson 11's export worker, unchanged, on lesson 12's queue (prefix
// tasks-lab12) and database (tasks_lab12). The outbox changes who SENDS the wake-up (the
// publisher, with the event id as the BullMQ job id), not what a delivery does:
//   claim -> write `<job id>.<token>.json` (no transaction open) -> finish.
//
//   pnpm worker                                           the course's timings
//   LEASE_MS=1500 pnpm worker                             a short lease
//   LAB_FAULTS=before-finish:delay-3000 pnpm worker       a zombie (lesson 11's drill)
//
// At least once: the publisher may send one event twice (its confirmation was lost). A
// second delivery is harmless because lesson 11's claim and token-checked finish decide
// what counts, not the number of deliveries. Each delivery prints one line, so a drill
// can count what the worker saw.
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { onShutdown, runMain } from '@tasks-lab/lab-kit';
import {
  exportFaults,
  startExportWorker,
  WORKER_SHUTDOWN_GRACE_MS,
  type RunningExportWorker,
  type StartExportWorkerOptions,
} from '@tasks-lab/11-mysql-leases';
import { LAB, readOutboxOptions, describeTimings, WORKER_PROCESS_OPTIONS } from './options.ts';
import { exportsAddress } from './queue.ts';

/** Lesson 11's worker on lesson 12's queue: `address` defaults to prefix tasks-lab12, queue `options.process.queueName`. */
export function startOutboxWorker(options: StartExportWorkerOptions): Promise<RunningExportWorker> {
  return startExportWorker({ ...options, address: options.address ?? exportsAddress(options.process.queueName) });
}

/** One line per delivery: what BullMQ calls "completed", and what the row did. */
export function logDeliveries(running: RunningExportWorker, log: (line: string) => void = console.log): void {
  running.worker.on('completed', (job, outcome) => {
    log(
      `delivered job ${outcome.job_id} (BullMQ id ${job.id}): claimed ${outcome.claimed}, published ${outcome.published}`,
    );
  });
  running.worker.on('failed', (job, err) =>
    log(`delivery of job ${job?.data.job_id ?? '?'} (BullMQ id ${job?.id ?? '?'}) failed: ${err.message}`),
  );
}

async function main(): Promise<void> {
  const settings = WORKER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  const timings = readOutboxOptions();
  const faults = exportFaults();
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  // Safe from every process at start-up: a named lock serialises it, applied files are skipped.
  await migrateLab(LAB, { database: settings.database });
  const running = await startOutboxWorker({ process: settings, lease: timings, faults });
  logDeliveries(running);
  onShutdown(running.close, { graceMs: WORKER_SHUTDOWN_GRACE_MS });
  console.log(
    `export worker ${process.pid} ready: queue ${settings.queueName}, database ${settings.database}, ` +
      `concurrency ${settings.concurrency}, ${describeTimings(timings)}; ${faults.describe()}`,
  );
}

runMain(import.meta.url, main);
