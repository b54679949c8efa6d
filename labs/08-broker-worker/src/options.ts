// Lesson 08's options, each read once at start-up from its environment variable (or
// an override in code), with the course's value as the default. A zero, negative or
// non-numeric value is refused with a message naming the variable and its bounds.
//
//   EXPORTS_QUEUE        exports  the queue every process of the lab uses
//   WORKER_CONCURRENCY   2        jobs one worker process runs at once (celery --concurrency=2)
//   LOCK_DURATION_MS     30000    how long a running job's lock lasts between renewals (BullMQ's default)
//   STALLED_INTERVAL_MS  30000    how often a worker looks for jobs whose lock lapsed (BullMQ's default)
//   MAX_STALLED_COUNT    1        stall re-runs before a job fails (BullMQ's default; lesson 09)
//   SUBMIT_TIMEOUT_S     15       how long `pnpm submit` waits for the result (also --timeout-s)
//   SUBMIT_ROWS          1        how many products `pnpm submit` puts in its snapshot (also --rows)
//   PORT                 8000     the dashboard's port (0: any free port)
import { defineOptions, durationMs, name, wholeNumber } from '@tasks-lab/lab-kit';
import { SERVER_OPTIONS as STATE_SERVER_OPTIONS } from '@tasks-lab/01-state-machine';
import { EXPORTS_QUEUE } from './broker.ts';

/** The worker's options. Labs 09 and 10 spread `WORKER_OPTIONS.specs` into their own. */
export const WORKER_OPTIONS = defineOptions({
  /**
   * The BullMQ queue every process of the lab uses (producer, worker, dashboard).
   * @defaultValue EXPORTS_QUEUE (`exports`)
   */
  queueName: name('EXPORTS_QUEUE', EXPORTS_QUEUE),
  /** Jobs one worker process runs at once: the course's `celery --concurrency=2`. @defaultValue 2 */
  concurrency: wholeNumber('WORKER_CONCURRENCY', 2, { min: 1, max: 64 }),
  /**
   * How long a running job's lock lasts between two renewals; a worker that stops renewing loses the job after it
   * (BullMQ's own default). @defaultValue 30000
   */
  lockDurationMs: durationMs('LOCK_DURATION_MS', 30_000),
  /** How often a worker looks for jobs whose lock lapsed (BullMQ's own default). @defaultValue 30000 */
  stalledIntervalMs: durationMs('STALLED_INTERVAL_MS', 30_000),
  /** How many times a stalled job is run again before it fails (BullMQ's own default; lesson 09). @defaultValue 1 */
  maxStalledCount: wholeNumber('MAX_STALLED_COUNT', 1, { min: 0, max: 100 }),
});
export type WorkerOptionValues = ReturnType<typeof WORKER_OPTIONS.defaults>;

/**
 * A producer CLI: which queue, and how long the terminal waits for the result. An hour is
 * the longest wait: far below Node's timer limit (2^31-1 ms, about 24.8 days), past which
 * a timer fires at once. Lab 10's submit spreads these specs into its own.
 */
export const SUBMIT_OPTIONS = defineOptions({
  queueName: WORKER_OPTIONS.specs.queueName,
  /** How long `pnpm submit` waits for the job's result (also `--timeout-s`). @defaultValue 15 */
  waitSeconds: wholeNumber('SUBMIT_TIMEOUT_S', 15, { min: 1, max: 3600 }),
});
export type SubmitOptionValues = ReturnType<typeof SUBMIT_OPTIONS.defaults>;

/** This lab's `pnpm submit`: SUBMIT_OPTIONS plus how many products its snapshot holds. */
export const EXPORT_SUBMIT_OPTIONS = defineOptions({
  ...SUBMIT_OPTIONS.specs,
  /** How many products `pnpm submit` puts in its snapshot (also `--rows`). @defaultValue 1 */
  rows: wholeNumber('SUBMIT_ROWS', 1, { min: 1, max: 100 }),
});
export type ExportSubmitOptionValues = ReturnType<typeof EXPORT_SUBMIT_OPTIONS.defaults>;

/** `pnpm start`: which queue the dashboard shows, on which port. */
export const SERVER_OPTIONS = defineOptions({
  queueName: WORKER_OPTIONS.specs.queueName,
  port: STATE_SERVER_OPTIONS.specs.port,
});
export type ServerOptionValues = ReturnType<typeof SERVER_OPTIONS.defaults>;
