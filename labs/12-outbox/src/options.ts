// Lesson 12's options: lesson 11's (the lease, the deadline, the database session), plus
// the outbox publisher's. Read once at start-up from their environment variables (or
// overrides in code), with the course's values as defaults; a zero, negative or
// non-numeric timing is refused with a message naming the variable and its bounds.
//
// Verify and the tests run the same code with SHORT_TIMINGS (a 1.5 s claim instead of
// 30 s), so a check that waits for a claim to pass takes seconds, not minutes.
import { fileURLToPath } from 'node:url';
import { labDatabase } from '@tasks-lab/infra';
import {
  choice,
  defineOptions,
  durationMs,
  name,
  text,
  wholeNumber,
  readOnTopOf,
  withShortTimings,
  type ReadOptions,
  formatDuration,
} from '@tasks-lab/lab-kit';
import { WORKER_OPTIONS } from '@tasks-lab/08-broker-worker';
import {
  describeTimings as describeLeaseTimings,
  LEASE_OPTIONS,
  readLeaseOptions,
  SERVER_PROCESS_OPTIONS as LEASE_SERVER_PROCESS_OPTIONS,
  SHORT_TIMINGS as LEASE_SHORT_TIMINGS,
  WORKER_PROCESS_OPTIONS as LEASE_WORKER_PROCESS_OPTIONS,
} from '@tasks-lab/11-mysql-leases';

export const LAB = '12';
/** The student's database: `pnpm start`, `pnpm worker`, `pnpm publisher` and `pnpm submit` use it. */
export const JOBS_DATABASE = labDatabase(LAB);
/** Verify's own database, recreated on every run. */
export const VERIFY_DATABASE = `${JOBS_DATABASE}_verify`;
/** Where `pnpm worker` writes artifacts by default. */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../artifacts', import.meta.url));
/** The Redis pub/sub channel a submission nudges the publisher on (a hint, not a message). */
export const nudgeChannel = 'tasks-lab12:outbox-nudge';

const HOUR_MS = 60 * 60 * 1000;

/** OUTBOX_CONFIRM_FORM's values: confirmSentEvents once per round, or the course's confirmSent per event. */
export const CONFIRM_FORMS = ['per-round', 'per-event'] as const;
export type ConfirmForm = (typeof CONFIRM_FORMS)[number];

export const OUTBOX_OPTIONS = defineOptions({
  ...LEASE_OPTIONS.specs,
  /**
   * How long a publisher's claim on an event lasts: past it, another publisher may send the event again.
   * @defaultValue 30000
   */
  claimMs: durationMs('OUTBOX_CLAIM_MS', 30_000, { min: 100, max: HOUR_MS }),
  /** The publisher's fallback: with no nudge, it looks for unsent events this often. @defaultValue 5000 */
  pollMs: durationMs('OUTBOX_POLL_MS', 5000, { min: 50, max: HOUR_MS }),
  /** Events claimed (and sent) per round. @defaultValue 10 */
  batch: wholeNumber('OUTBOX_BATCH', 10, { min: 1, max: 500 }),
  /** A send that failed is tried again after this. @defaultValue 5000 */
  retryDelayMs: durationMs('OUTBOX_RETRY_DELAY_MS', 5000, { min: 1, max: HOUR_MS }),
  /**
   * The bound on one send: a broker that does not answer within it is reported as down (no send waits for ever).
   * @defaultValue 2000
   */
  sendTimeoutMs: durationMs('OUTBOX_SEND_TIMEOUT_MS', 2000, { min: 50, max: 60_000 }),
  /**
   * The Redis pub/sub channel a submission nudges the publisher on.
   * @defaultValue nudgeChannel (`tasks-lab12:outbox-nudge`)
   */
  nudgeChannel: text('OUTBOX_NUDGE_CHANNEL', nudgeChannel),
  /**
   * How the publisher confirms what the broker accepted: a round's sends in one statement, or each on its own.
   * @defaultValue 'per-round'
   */
  confirmForm: choice('OUTBOX_CONFIRM_FORM', 'per-round', CONFIRM_FORMS),
});
export type OutboxOptionValues = ReturnType<typeof OUTBOX_OPTIONS.defaults>;

/** The course's values: what `USE_COURSE_TIMINGS=1` forces (the claim is the course's 30 s). */
export const COURSE_TIMINGS: Readonly<OutboxOptionValues> = OUTBOX_OPTIONS.defaults();

/**
 * What verify and the tests run with: lesson 11's short lease, and a claim short enough
 * that waiting for it to pass costs a second or two, long enough for a send and a confirm
 * on a busy 2-core machine.
 */
export const SHORT_TIMINGS: Readonly<Partial<OutboxOptionValues>> = {
  ...LEASE_SHORT_TIMINGS,
  claimMs: 1500,
  pollMs: 1000,
  retryDelayMs: 500,
  sendTimeoutMs: 1000,
};

/** The timings `USE_COURSE_TIMINGS=1` puts back: lesson 11's, and the publisher's. */
const OUTBOX_TIMING_KEYS = ['claimMs', 'pollMs', 'retryDelayMs', 'sendTimeoutMs'] as const;

/** Reads the options (lesson 11's own checks included); `USE_COURSE_TIMINGS=1` puts the course's timings back. */
export function readOutboxOptions(options: ReadOptions<OutboxOptionValues> = {}): OutboxOptionValues {
  // Lesson 11's reader checks the lease and session options and applies its own course switch.
  const values = readOnTopOf(OUTBOX_OPTIONS, LEASE_OPTIONS, readLeaseOptions, options);
  if (values.useCourseTimings !== '1') return values;
  const course = Object.fromEntries(OUTBOX_TIMING_KEYS.map((key) => [key, COURSE_TIMINGS[key]]));
  return { ...values, ...course };
}

/** The short timings, for verify and tests; the caller's overrides win, `USE_COURSE_TIMINGS=1` still wins over both. */
export const readShortOutboxOptions = withShortTimings(readOutboxOptions, SHORT_TIMINGS);

/** The words every printed observation uses: lesson 11's timings, then the outbox's: "…; claim 1.5 s, poll 1 s, send bound 1 s". */
export function describeTimings(options: OutboxOptionValues): string {
  const course = OUTBOX_TIMING_KEYS.every((key) => options[key] === COURSE_TIMINGS[key]);
  return (
    `${describeLeaseTimings(options)}; claim ${formatDuration(options.claimMs)}, poll ${formatDuration(options.pollMs)}, ` +
    `batch ${options.batch}, retry after ${formatDuration(options.retryDelayMs)}, send bound ${formatDuration(options.sendTimeoutMs)}` +
    (course ? " (the course's publisher timings)" : '')
  );
}

// ---- the processes -------------------------------------------------------------

/** The database holding export_jobs and export_outbox. @defaultValue JOBS_DATABASE (`tasks_lab12`) */
const database = name('JOBS_DATABASE', JOBS_DATABASE);

/** `pnpm publisher`: which database it reads events from; the queue comes from each event's row. */
export const PUBLISHER_PROCESS_OPTIONS = defineOptions({
  database,
});
export type PublisherProcessOptionValues = ReturnType<typeof PUBLISHER_PROCESS_OPTIONS.defaults>;

/** `pnpm worker`: lesson 11's worker options on lab 12's database and artifacts folder. */
export const WORKER_PROCESS_OPTIONS = defineOptions({
  ...LEASE_WORKER_PROCESS_OPTIONS.specs,
  database,
  /** Where `pnpm worker` writes artifacts. @defaultValue ARTIFACTS_DIR (`labs/12-outbox/artifacts`) */
  artifactsDir: text('ARTIFACTS_DIR', ARTIFACTS_DIR),
});
export type WorkerProcessOptionValues = ReturnType<typeof WORKER_PROCESS_OPTIONS.defaults>;

/** `pnpm start`: lesson 11's server options on lab 12's database; the queue name goes into each event. */
export const SERVER_PROCESS_OPTIONS = defineOptions({
  ...LEASE_SERVER_PROCESS_OPTIONS.specs,
  queueName: WORKER_OPTIONS.specs.queueName,
  database,
});
export type ServerProcessOptionValues = ReturnType<typeof SERVER_PROCESS_OPTIONS.defaults>;
