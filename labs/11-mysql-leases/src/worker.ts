// `pnpm worker`: lesson 11's export worker as its own OS process. It takes wake-ups from
// BullMQ (lab 08's startWorker) and does everything else against MySQL:
//   claim -> write `<job id>.<token>.json` (no transaction open) -> finish.
//
//   pnpm worker                                           the course's timings
//   LEASE_MS=1500 pnpm worker                             a short lease (see src/options.ts)
//   LAB_FAULTS=before-finish:delay-3000 pnpm worker       a zombie: it finishes after its lease
//
// One pool per process, opened at start, shared by every delivery. SIGTERM or Ctrl-C
// stops taking wake-ups, lets running deliveries end, then closes the pool.
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { idempotent, onShutdown, runMain, SECOND } from '@tasks-lab/lab-kit';
import type { RedisOptions } from 'ioredis';
import type { Pool } from 'mysql2/promise';
import { EXPORT_JOB_NAME, startWorker, type QueueAddress } from '@tasks-lab/08-broker-worker';
import { LAB, openJobsDatabase } from './database.ts';
import { deliverExport, exportFaults, type ExportFaults, type ExportParts } from './export-worker.ts';
import { describeTimings, readLeaseOptions, type LeaseOptionValues } from './options.ts';
import { WORKER_PROCESS_OPTIONS, type WorkerProcessOptionValues } from './options.ts';
import { exportsAddress, type WakeUpWorker } from './queue.ts';

/** A delivery is a claim, a small file and a finish: far below this. */
export const WORKER_SHUTDOWN_GRACE_MS = 10 * SECOND;

export interface RunningExportWorker {
  worker: WakeUpWorker;
  /** Stops taking wake-ups, waits for running deliveries, closes the pool. Idempotent. */
  close(): Promise<void>;
}

export interface StartExportWorkerOptions {
  process: WorkerProcessOptionValues;
  lease: LeaseOptionValues;
  faults?: ExportFaults;
  /** Steps to swap: the can-fail fixtures pass broken ones; lesson 13 its finish that also leaves the admission gate. */
  parts?: Partial<ExportParts>;
  /** Where the wake-ups live. @defaultValue lesson 11's: prefix tasks-lab11, queue settings.queueName (lesson 12 passes its own) */
  address?: QueueAddress;
  /** The Redis to take them from. @defaultValue the lab's (a drill passes a private one) */
  connection?: RedisOptions;
  /** Where connection trouble is reported. @defaultValue lab 08's (console.error) */
  onError?: (err: Error) => void;
}

export async function startExportWorker(options: StartExportWorkerOptions): Promise<RunningExportWorker> {
  const { process: settings, lease } = options;
  const faults = options.faults ?? exportFaults();
  const pool = await openJobsDatabase({ database: settings.database });
  const context = {
    pool,
    leaseMs: lease.leaseMs,
    maxAttempts: lease.maxAttempts,
    artifactsDir: settings.artifactsDir,
    faults,
    parts: options.parts,
  };
  const worker: WakeUpWorker = startWorker(
    options.address ?? exportsAddress(settings.queueName),
    { [EXPORT_JOB_NAME]: (job) => deliverExport(job.data, context) },
    { ...settings, connection: options.connection, onError: options.onError },
  );
  return { worker, close: await readyWithPool(worker, pool) };
}

/**
 * Waits until `worker` is connected; if it never is, closes it and `pool`, so a failed start
 * leaves nothing open. Returns the close for later: the worker (its running jobs finish), then
 * the pool they used. Idempotent. Lesson 14's fast worker uses it too.
 */
export async function readyWithPool(
  worker: { waitUntilReady(): Promise<unknown>; close(): Promise<void> },
  pool: Pool,
): Promise<() => Promise<void>> {
  try {
    await worker.waitUntilReady();
  } catch (err) {
    await worker.close().catch(() => {});
    await pool.end().catch(() => {});
    throw err;
  }
  return idempotent(async () => {
    await worker.close();
    await pool.end();
  });
}

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
