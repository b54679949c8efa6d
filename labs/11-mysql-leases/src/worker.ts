// `pnpm worker`: lesson 11's export worker (src/export-worker.ts) as its own OS process. It
// takes wake-ups from BullMQ and does everything else against MySQL:
//   claim -> write `<job id>.<token>.json` (no transaction open) -> finish.
//
//   pnpm worker                                           the course's timings
//   LEASE_MS=1500 pnpm worker                             a short lease (see src/options.ts)
//   LAB_FAULTS=before-finish:delay-3000 pnpm worker       a zombie: it finishes after its lease
//
// One pool per process, opened at start, shared by every delivery. SIGTERM or Ctrl-C
// stops taking wake-ups, lets running deliveries end, then closes the pool.
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { onShutdown, runMain } from '@tasks-lab/lab-kit';
import { LAB } from './database.ts';
import { exportFaults, startExportWorker, WORKER_SHUTDOWN_GRACE_MS, type ExportParts } from './export-worker.ts';
import { describeTimings, readLeaseOptions, WORKER_PROCESS_OPTIONS } from './options.ts';

/** The process: options from the environment, one line per delivery, a ready line naming the timings. */
export async function runExportWorker(parts: Partial<ExportParts> = {}): Promise<void> {
  const settings = WORKER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  const lease = readLeaseOptions();
  const faults = exportFaults();
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  // Safe from every process at start-up: a named lock serialises it, applied files are skipped.
  await migrateLab(LAB, { database: settings.database });
  const running = await startExportWorker({ process: settings, lease, faults, parts });
  running.worker.on('completed', (job, outcome) => {
    // "completed" is BullMQ's word for "delivered": claimed and published say what the row did.
    console.log(`delivered job ${outcome.job_id}: claimed ${outcome.claimed}, published ${outcome.published}`);
  });
  running.worker.on('failed', (job, err) =>
    console.log(`delivery of job ${job?.data.job_id ?? '?'} failed: ${err.message}`),
  );
  onShutdown(running.close, { graceMs: WORKER_SHUTDOWN_GRACE_MS });
  console.log(
    `export worker ${process.pid} ready: queue ${settings.queueName}, database ${settings.database}, ` +
      `concurrency ${settings.concurrency}, ${describeTimings(lease)}; ${faults.describe()}`,
  );
}

runMain(import.meta.url, () => runExportWorker());
