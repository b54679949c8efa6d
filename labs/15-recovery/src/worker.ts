// `pnpm worker:fast` and `pnpm worker:bulk`: lesson 15's worker (src/recovery-worker.ts) as a
// process, on lab 15's database and BullMQ prefix, one OS process per queue.
//
// SIGTERM (or Ctrl-C): lesson 15's graceful exit (src/graceful-exit.ts): no new job, a grace of
// WORKER_SHUTDOWN_GRACE_MS for the running deliveries, then an abort; then the pool closes.
//
//   pnpm worker:fast                                        exports.fast: small exports and the signals
//   pnpm worker:bulk                                        exports.bulk: the big and the scheduled exports
//   LAB_FAULTS=before-chunk:delay-500:always pnpm worker:bulk   a slow export (0.5 s per chunk)
//   WORKER_SHUTDOWN_GRACE_MS=2000 pnpm worker:bulk          abort running exports 2 s after SIGTERM
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { onShutdown, runMain } from '@tasks-lab/lab-kit';
import { EXPORT_JOB_NAME } from '@tasks-lab/08-broker-worker';
import { FAST_QUEUE, routeNamed } from '@tasks-lab/13-admission';
import { SCHEDULE_TICK_JOB_NAME } from '@tasks-lab/14-schedule-slots';
import { type ChunkedParts, type RecoveryFaults, recoveryFaults } from './chunked-delivery.ts';
import { AFTER_ABORT_MS, SHUTDOWN_OPTIONS } from './graceful-exit.ts';
import {
  describeTimings,
  LAB,
  readRecoveryOptions,
  WORKER_PROCESS_OPTIONS,
  type RecoveryOptionValues,
  type WorkerProcessOptionValues,
} from './options.ts';
import { type DeliveryHooks, startRecoveryWorker } from './recovery-worker.ts';

/** What the process runs with besides the environment: a fixture's broken parts, or a later lesson's own lab. */
export interface RecoveryWorkerVariant {
  /** Broken parts (the drills' can-fail fixtures). */
  parts?: Partial<ChunkedParts>;
  /** Said in the ready line ("broken: …"). */
  note?: string;
  /** Whose migrations to apply at start-up (a later lab passes its own). @defaultValue '15' */
  lab?: string;
  /** The process's settings, already read. @defaultValue WORKER_PROCESS_OPTIONS.read() */
  settings?: WorkerProcessOptionValues;
  /** @defaultValue readRecoveryOptions() */
  timings?: RecoveryOptionValues;
  /** The process's one reading of LAB_FAULTS (lesson 16 declares one more point). @defaultValue recoveryFaults() */
  faults?: RecoveryFaults;
  /** The ready line's account of the timings. @defaultValue lesson 15's describeTimings */
  describe?: () => string;
  /** Lesson 16's observers of each delivery (its phase logs and trace context). */
  hooks?: DeliveryHooks;
  /** Where the per-job lines go (lesson 16 drops them below LOG_LEVEL=info). @defaultValue console.log */
  logEachJob?: (line: string) => void;
}

/** The process: options from the environment, one line per claim and delivery, a ready line. A fixture passes broken parts; lesson 16 its own lab. */
export async function runRecoveryWorker(variant: RecoveryWorkerVariant = {}): Promise<void> {
  const { queueName } = routeNamed(process.argv[2]);
  const settings = variant.settings ?? WORKER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  const { shutdownGraceMs } = SHUTDOWN_OPTIONS.read();
  const timings = variant.timings ?? readRecoveryOptions();
  const faults = variant.faults ?? recoveryFaults();
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  // Safe from every process at start-up: a named lock serialises it, applied files are skipped.
  await migrateLab(variant.lab ?? LAB, { database: settings.database });
  const running = await startRecoveryWorker({
    queueName,
    process: settings,
    timings,
    faults,
    shutdownGraceMs,
    parts: variant.parts,
    hooks: variant.hooks,
    logEachJob: variant.logEachJob,
  });
  // lab-kit's own limit comes after ours: the grace, the abort, one chunk boundary, the pool.
  onShutdown(running.close, { graceMs: shutdownGraceMs + AFTER_ABORT_MS });
  const jobs =
    queueName === FAST_QUEUE ? `jobs ${EXPORT_JOB_NAME} and ${SCHEDULE_TICK_JOB_NAME}` : `job ${EXPORT_JOB_NAME}`;
  const timingsText = variant.describe ? variant.describe() : describeTimings(timings);
  console.log(
    `export worker ${process.pid} ready${variant.note ? ` (${variant.note})` : ''}: queue ${queueName} (prefix ${settings.queuePrefix}), database ${settings.database}, concurrency ${settings.concurrency}, ` +
      `${jobs}; shutdown grace ${shutdownGraceMs} ms; ${timingsText}; ${faults.describe()}`,
  );
}

runMain(import.meta.url, () => runRecoveryWorker());
