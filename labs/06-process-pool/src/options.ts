// Lesson 06's options, read once at start-up. Each has the course's value as its
// default and bounds: POOL_SIZE=0 or SCORE_ROUNDS=abc is refused with a message that
// names the variable, instead of becoming a pool that never scores anything.
// The ProcessPool class takes plain values; the entry points (`pnpm compare`, the
// drill, the verify) read them here and pass them on.
import { defineOptions, durationMs, wholeNumber } from '@tasks-lab/lab-kit';
import { DEFAULT_ROUNDS } from './scoring.ts';

export const PROCESS_POOL_OPTIONS = defineOptions({
  /** Worker processes in the pool: the course's max_workers. @defaultValue 2 */
  poolSize: wholeNumber('POOL_SIZE', 2, { min: 1, max: 16 }),
  /** Rows in the serial-versus-pool comparison. @defaultValue 8 */
  rows: wholeNumber('EXPORT_ROWS', 8, { min: 1, max: 10_000 }),
  /** How many times each row's text is hashed: the size of the CPU work per row. @defaultValue DEFAULT_ROUNDS */
  rounds: wholeNumber('SCORE_ROUNDS', DEFAULT_ROUNDS, { min: 1, max: 1_000_000 }),
  /**
   * Rows in the export the fault drill crashes a worker in (enough that the batch is surely unfinished).
   * @defaultValue 12
   */
  drillRows: wholeNumber('DRILL_ROWS', 12, { min: 2, max: 10_000 }),
  /** A worker that has not said "ready" by then fails the pool's start(). @defaultValue 20_000 */
  workerStartTimeoutMs: durationMs('WORKER_START_TIMEOUT_MS', 20_000, { max: 5 * 60_000 }),
  /** At close, how long a worker may take to exit after SIGTERM before it is SIGKILLed. @defaultValue 5_000 */
  workerStopGraceMs: durationMs('WORKER_STOP_GRACE_MS', 5_000, { max: 60_000 }),
});

export type ProcessPoolSettings = ReturnType<typeof PROCESS_POOL_OPTIONS.defaults>;
