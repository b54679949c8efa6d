// Lesson 10's options, read once at start-up from their environment variables (or
// overrides in code), with the course's values as defaults. A zero, negative or
// non-numeric timing is refused with a message naming the variable and its bounds.
// Lesson 08's worker options come along (EXPORTS_QUEUE, LOCK_DURATION_MS, ...).
//
//   WORKER_CONCURRENCY      4        jobs one worker runs at once (lesson 08's variable, this lab's default)
//   RETRY_BACKOFF_BASE_MS   1000     the first retry waits up to this; it doubles per retry
//   RETRY_BACKOFF_CAP_MS    8000     no wait is ever longer
//   RETRY_MIN_WORK_MS       100      the least time one more try needs before the deadline
//   SOFT_TIME_LIMIT_MS      8000     a crawl's signal aborts after this
//   HARD_TIME_LIMIT_MS      10000    a crawl's child process is killed after this
//   RETRY_JITTER_SEED       (none)   drills and tests only: fixes every jitter draw (see seededJitter)
//   EXPORT_DEADLINE_MS      600000   `pnpm submit`: the deadline, counted from submission
import { OptionsError, defineOptions, durationMs, text, type ReadOptions } from '@tasks-lab/lab-kit';
import { SUBMIT_OPTIONS, WORKER_OPTIONS } from '@tasks-lab/08-broker-worker';
import { DEFAULT_EXPORT_DEADLINE_MS, RETRY_POLICY_DEFAULTS } from './retry-policy.ts';
import { TIME_LIMIT_DEFAULTS } from './time-limits.ts';

export const RETRY_WORKER_OPTIONS = defineOptions({
  ...WORKER_OPTIONS.specs,
  /** Jobs one worker runs at once: lesson 08's variable and bounds, this lab's default. @defaultValue 4 */
  concurrency: { ...WORKER_OPTIONS.specs.concurrency, default: 4 },
  /**
   * The first retry waits up to this; the wait doubles with every retry.
   * @defaultValue RETRY_POLICY_DEFAULTS.backoffBaseMs (1000)
   */
  backoffBaseMs: durationMs('RETRY_BACKOFF_BASE_MS', RETRY_POLICY_DEFAULTS.backoffBaseMs),
  /** No retry ever waits longer. @defaultValue RETRY_POLICY_DEFAULTS.backoffCapMs (8000) */
  backoffCapMs: durationMs('RETRY_BACKOFF_CAP_MS', RETRY_POLICY_DEFAULTS.backoffCapMs),
  /**
   * The least time one more try needs before the deadline: with less left, the job fails instead.
   * @defaultValue RETRY_POLICY_DEFAULTS.minWorkMs (100)
   */
  minWorkMs: durationMs('RETRY_MIN_WORK_MS', RETRY_POLICY_DEFAULTS.minWorkMs),
  /**
   * A crawl's AbortSignal aborts after this (the course's soft time limit); must be below the hard one.
   * @defaultValue TIME_LIMIT_DEFAULTS.softTimeLimitMs (8000)
   */
  softTimeLimitMs: durationMs('SOFT_TIME_LIMIT_MS', TIME_LIMIT_DEFAULTS.softTimeLimitMs),
  /**
   * A crawl's child process is killed after this (the course's hard time limit).
   * @defaultValue TIME_LIMIT_DEFAULTS.hardTimeLimitMs (10000)
   */
  hardTimeLimitMs: durationMs('HARD_TIME_LIMIT_MS', TIME_LIMIT_DEFAULTS.hardTimeLimitMs),
  /**
   * Drills and tests only: a seed fixes every jitter draw (seededJitter), so a check can time the waits; empty:
   * Math.random. @defaultValue '' (no seed)
   */
  jitterSeed: text('RETRY_JITTER_SEED', ''),
});
export type RetryWorkerOptionValues = ReturnType<typeof RETRY_WORKER_OPTIONS.defaults>;

/**
 * The worker's options, with the one rule between two of them: the soft limit must
 * come before the hard one, or the work never gets its chance to clean up.
 */
export function readRetryWorkerOptions(options: ReadOptions<RetryWorkerOptionValues> = {}): RetryWorkerOptionValues {
  const values = RETRY_WORKER_OPTIONS.read(options);
  if (values.softTimeLimitMs >= values.hardTimeLimitMs) {
    throw new OptionsError([
      `SOFT_TIME_LIMIT_MS (${values.softTimeLimitMs}) must be below HARD_TIME_LIMIT_MS (${values.hardTimeLimitMs})`,
    ]);
  }
  return values;
}

/** `pnpm submit`: lesson 08's (queue, how long to wait for the result) plus the export's deadline. */
export const RETRY_SUBMIT_OPTIONS = defineOptions({
  ...SUBMIT_OPTIONS.specs,
  /**
   * `pnpm submit`: the export's deadline, counted from submission.
   * @defaultValue DEFAULT_EXPORT_DEADLINE_MS (600000, 10 min)
   */
  deadlineMs: durationMs('EXPORT_DEADLINE_MS', DEFAULT_EXPORT_DEADLINE_MS),
});
export type RetrySubmitOptionValues = ReturnType<typeof RETRY_SUBMIT_OPTIONS.defaults>;
