// `pnpm worker`: one export worker process. Its settings come from the environment
// (src/options.ts: EXPORTS_QUEUE, WORKER_CONCURRENCY, LOCK_DURATION_MS,
// STALLED_INTERVAL_MS, MAX_STALLED_COUNT, ARTIFACT_DIR, EXPORT_LEDGER) and its faults from LAB_FAULTS.
// The drills start several of these and SIGKILL them; SIGTERM or Ctrl-C closes it cleanly.
// It makes sure the lab's Redis runs before anything else, and says so ([infra] ...).
import { onShutdown, runMain } from '@tasks-lab/lab-kit';
import { EXPORT_JOB_NAME } from '@tasks-lab/08-broker-worker';
import { startExportWorker, type ExportWorkerOptions } from './export-worker.ts';
import { WORKER_OPTIONS } from './options.ts';
import { ensureServices } from './services.ts';

/** Runs the worker until a signal stops it. `parts` lets a test fixture swap the renderer or writer. */
export async function runWorkerProcess(parts: Pick<ExportWorkerOptions, 'render' | 'write'> = {}): Promise<void> {
  const options = WORKER_OPTIONS.read(); // a bad value stops the process here, before Redis is touched
  await ensureServices(['redis']);
  const { worker, faults, close } = startExportWorker({ ...options, ...parts });
  onShutdown(close);
  await worker.waitUntilReady();
  // Lesson 08's ready line, plus this lesson's subject: the lock and stall settings, and the faults switched on.
  console.log(
    `worker ${process.pid} ready: queue ${options.queueName}, concurrency ${options.concurrency}, registered: ${EXPORT_JOB_NAME}; ` +
      `lockDuration ${options.lockDurationMs} ms, stalledInterval ${options.stalledIntervalMs} ms, maxStalledCount ${options.maxStalledCount}; ${faults.describe()}` +
      (options.ledger === 'on' ? '; ledger on (one line per delivery, not idempotent)' : ''),
  );
}

runMain(import.meta.url, () => runWorkerProcess());
