// Lesson 15's recovery scanner: recoverBatch in a supervised loop, the way the publisher runs
// its rounds. "A single script is not a production scheduler" (the course): the loop runs as
// long as the process does, and
//
//   - a batch that fails (the database restarted, a lock wait timed out) is reported and the
//     loop goes on: the rows it did not move are still there for the next batch;
//   - a full batch (a pass took `recoveryBatch` rows) runs again at once: more may be waiting;
//   - otherwise it waits `recoveryScanMs` (or until scanNow());
//   - close() stops taking batches, waits for the one in flight (a short transaction per
//     pass, so never long), and resolves. Idempotent.
import type { Pool } from 'mysql2/promise';
import { errorMessage, idempotent, formatDuration } from '@tasks-lab/lab-kit';
import type { RecoveryOptionValues } from './options.ts';
import { recoverBatch, recoveredCount, type RecoverBatch, type RecoveredJob, type RecoveryReport } from './recovery.ts';

export type ScannerTimings = Pick<
  RecoveryOptionValues,
  'recoveryBatch' | 'recoveryScanMs' | 'retryBackoffMs' | 'unclaimedThresholdMs' | 'maxAttempts'
>;

export interface ScannerOptions {
  /** The process's one pool (the caller ends it, after close()). */
  pool: Pool;
  timings: ScannerTimings;
  /** One line per failed batch. @defaultValue console.error */
  report?: (line: string) => void;
  /** One line per recovered job. @defaultValue say nothing */
  log?: (line: string) => void;
  /** Called after each batch that committed (the process nudges the publisher from here). */
  onBatch?: (report: RecoveryReport) => void | Promise<void>;
  /** Only the can-fail fixtures pass a broken batch. @defaultValue recoverBatch */
  recover?: RecoverBatch;
}

export interface ScannerStats {
  batches: number;
  /** Batches that filled a pass, and so ran again at once. */
  fullBatches: number;
  requeued: number;
  redispatched: number;
  cancelled: number;
  failed: number;
  errors: number;
  lastError: string | undefined;
}

export interface RunningScanner {
  /** Stops after the batch in flight. Idempotent. */
  close(): Promise<void>;
  /** Runs the next batch now instead of after the wait. */
  scanNow(): void;
  stats(): ScannerStats;
}

/** "job 1a2b… running -> queued (lease_expired), event 3c4d… on exports.fast at 12:00:10.500Z": one recovered job. */
export function describeRecovered(job: RecoveredJob): string {
  const event = job.eventId ? `, event ${job.eventId} on ${job.queueName}` : '';
  const at = job.nextAttemptAt ? `, claimable from ${job.nextAttemptAt.toISOString()}` : '';
  return `recovered job ${job.jobId}: ${job.from} -> ${job.to} (${job.reason})${event}${at}`;
}

/** Starts the loop (the first batch runs at once). */
export function startScanner(options: ScannerOptions): RunningScanner {
  const { pool, timings } = options;
  const recover = options.recover ?? recoverBatch;
  const report = options.report ?? ((line: string) => console.error(line));
  const log = options.log ?? (() => {});
  const stats: ScannerStats = {
    batches: 0,
    fullBatches: 0,
    requeued: 0,
    redispatched: 0,
    cancelled: 0,
    failed: 0,
    errors: 0,
    lastError: undefined,
  };
  const alarm = new Alarm();
  let stopping = false;
  const batchOptions = {
    batch: timings.recoveryBatch,
    retryBackoffMs: timings.retryBackoffMs,
    unclaimedThresholdMs: timings.unclaimedThresholdMs,
    maxAttempts: timings.maxAttempts,
  };

  /** One batch. true = a pass was full: more may be waiting. Never throws. */
  async function batch(): Promise<boolean> {
    stats.batches += 1;
    try {
      const result = await recover(pool, batchOptions);
      count(result);
      for (const job of [...result.requeued, ...result.redispatched, ...result.cancelled, ...result.failed])
        log(describeRecovered(job));
      await options.onBatch?.(result);
      return isFull(result);
    } catch (err) {
      stats.errors += 1;
      stats.lastError = errorMessage(err);
      report(`recovery batch failed: ${stats.lastError}; next try in ${formatDuration(timings.recoveryScanMs)}`);
      return false;
    }
  }

  function count(result: RecoveryReport): void {
    stats.requeued += result.requeued.length;
    stats.redispatched += result.redispatched.length;
    stats.cancelled += result.cancelled.length;
    stats.failed += result.failed.length;
  }

  /**
   * Full when the batch moved at least `recoveryBatch` jobs: a pass takes at most that many, so
   * a full pass always brings the total there (a total that gets there without one costs one
   * more batch, three short queries).
   */
  function isFull(result: RecoveryReport): boolean {
    const full = recoveredCount(result) >= timings.recoveryBatch;
    if (full) stats.fullBatches += 1;
    return full;
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      const more = await batch();
      if (more || stopping) continue;
      await alarm.wait(timings.recoveryScanMs);
    }
  }

  const running = loop();
  return {
    close: idempotent(async () => {
      stopping = true;
      alarm.ring();
      await running;
    }),
    scanNow: () => alarm.ring(),
    stats: () => ({ ...stats }),
  };
}

/** The loop's wait: ends after `ms`, or at once when rung (a ring during a batch is kept for the next wait). */
class Alarm {
  #rung = false;
  #wake: (() => void) | undefined;

  ring(): void {
    if (this.#wake) this.#wake();
    else this.#rung = true;
  }

  wait(ms: number): Promise<void> {
    if (this.#rung) {
      this.#rung = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }
}
