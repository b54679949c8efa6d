// Lesson 15's graceful exit of a worker (SIGTERM or Ctrl-C): it stops taking jobs at once, gives
// the running deliveries a bounded grace to finish, then aborts what still runs. The abort reaches
// writeArtifactInChunks through its signal: the delivery stops at the next chunk boundary, leaves
// no artifact and does not finish, so its lease runs out and the recovery scanner requeues the job.
// Without the bound, one hung export would keep the process (and its lease) alive for ever; without
// the abort, the supervisor's SIGKILL would cut the write at an arbitrary point instead.
import { defineOptions, durationMs, SECOND } from '@tasks-lab/lab-kit';
import { WORKER_SHUTDOWN_GRACE_MS as LESSON11_GRACE_MS } from '@tasks-lab/11-mysql-leases';

/** Lesson 11's grace (10 s): a running export gets this long after SIGTERM before it is aborted. */
export const WORKER_SHUTDOWN_GRACE_MS = LESSON11_GRACE_MS;
/** After the abort: the next chunk boundary (one chunk, one canContinue) and closing the pool. */
export const AFTER_ABORT_MS = 5 * SECOND;

export const SHUTDOWN_OPTIONS = defineOptions({
  /** After SIGTERM, how long a running export may go on before it is aborted. @defaultValue WORKER_SHUTDOWN_GRACE_MS (10000) */
  shutdownGraceMs: durationMs('WORKER_SHUTDOWN_GRACE_MS', WORKER_SHUTDOWN_GRACE_MS, { min: 0, max: 10 * 60 * SECOND }),
});

/** What closeWithGrace needs of a BullMQ worker. */
export interface ClosableWorker {
  close(): Promise<void>;
  cancelAllJobs(reason?: string): void;
}

/**
 * BullMQ's close (no new job is fetched from now on; it resolves when the running ones end), with
 * a bound: after `graceMs` the deliveries still running are aborted, through `abort` (the signal
 * every delivery's chunked write watches) and BullMQ's own per-job signals.
 */
export async function closeWithGrace(
  worker: ClosableWorker,
  abort: AbortController,
  graceMs: number,
  log: (line: string) => void,
): Promise<void> {
  const closed = worker.close();
  const timer = setTimeout(() => {
    log(
      `worker ${process.pid}: deliveries still running after ${graceMs} ms: aborting them (they stop at the next chunk boundary)`,
    );
    abort.abort();
    worker.cancelAllJobs('worker shutdown');
  }, graceMs);
  try {
    await closed;
  } finally {
    clearTimeout(timer);
  }
}
