// Lesson 13's options: lesson 12's (the lease, the publisher, the database session), plus
// the admission gate's and the routing's. Read once at start-up, from environment variables
// or overrides in code, with the course's values as defaults.
//
// The processes run on lab 13's database and BullMQ prefix (verify runs its experiments under
// prefixes of their own, so it never takes or drops the wake-ups of a student's jobs); each
// worker runs one job at a time, as the course's two workers do.
import {
  choice,
  defineOptions,
  text,
  wholeNumber,
  readOnTopOf,
  withShortTimings,
  type ReadOptions,
} from '@tasks-lab/lab-kit';
import {
  describeTimings as describeOutboxTimings,
  OUTBOX_OPTIONS,
  PUBLISHER_PROCESS_OPTIONS as OUTBOX_PUBLISHER_PROCESS_OPTIONS,
  readOutboxOptions,
  SERVER_PROCESS_OPTIONS as OUTBOX_SERVER_PROCESS_OPTIONS,
  SHORT_TIMINGS as OUTBOX_SHORT_TIMINGS,
  WORKER_PROCESS_OPTIONS as OUTBOX_WORKER_PROCESS_OPTIONS,
} from '@tasks-lab/12-outbox';
import { labNames, processPlace } from './process-place.ts';

export const LAB = '13';
export const { JOBS_DATABASE, VERIFY_DATABASE, QUEUE_PREFIX, ARTIFACTS_DIR, nudgeChannel } = labNames(
  LAB,
  import.meta.url,
);

/** The two queues, and which one an export goes to: decided at admission, kept on the event. */
export const FAST_QUEUE = 'exports.fast';
export const BULK_QUEUE = 'exports.bulk';
export const ROUTES = { fast: FAST_QUEUE, bulk: BULK_QUEUE } as const;
export type Route = keyof typeof ROUTES;
export type RouteQueue = (typeof ROUTES)[Route];

export const GATE_DESIGNS = ['counter', 'count'] as const;
export type GateDesign = (typeof GATE_DESIGNS)[number];
export const EARLY_REFUSAL = ['on', 'off'] as const;
/** How a worker finishes a job and leaves the gate (src/gate.ts's finishOfForm); the first is the default. */
export const FINISH_FORMS = ['one-statement', 'transaction'] as const;
export type FinishForm = (typeof FINISH_FORMS)[number];

export const ADMISSION_OPTIONS = defineOptions({
  ...OUTBOX_OPTIONS.specs,
  /**
   * Lesson 12's nudge channel, lab 13's own (a lab 12 publisher never hears lab 13's submissions).
   * @defaultValue nudgeChannel (`tasks-lab13:outbox-nudge`)
   */
  nudgeChannel: text('OUTBOX_NUDGE_CHANNEL', nudgeChannel),
  /** Jobs that may be queued or running at once, for the whole service. @defaultValue 100 */
  admissionLimit: wholeNumber('ADMISSION_LIMIT', 100, { min: 1, max: 1_000_000 }),
  /**
   * Jobs one client (the Client-Id header) may have queued or running; 0: no per-client quota (the course's).
   * @defaultValue 0
   */
  clientQuota: wholeNumber('CLIENT_QUOTA', 0, { min: 0, max: 1_000_000 }),
  /** An export of at most this many products goes to exports.fast, a larger one to exports.bulk. @defaultValue 30 */
  fastMaxRows: wholeNumber('FAST_MAX_ROWS', 30, { min: 1, max: 100 }),
  /**
   * `counter`: the lab's gate (reads a counter kept in the gate row); `count`: the course's (COUNTs the jobs under
   * the lock). @defaultValue 'counter'
   */
  admissionGate: choice('ADMISSION_GATE', 'counter', GATE_DESIGNS),
  /**
   * A lock-wait timeout or deadlock re-runs the whole admission transaction this many times before answering 503.
   * @defaultValue 3
   */
  admissionRetries: wholeNumber('ADMISSION_RETRIES', 3, { min: 0, max: 10 }),
  /** The Retry-After header of a 503 or 429. @defaultValue 5 */
  retryAfterSeconds: wholeNumber('RETRY_AFTER_SECONDS', 5, { min: 1, max: 3600 }),
  /**
   * `on`: a POST /exports without an Idempotency-Key is answered 503 as soon as the gate's counter,
   * read without its lock, says the service is full: before the body is read and before any
   * transaction (src/early-refusal.ts). `off`: the course's: every refusal is decided under the
   * gate's lock. Admission itself is decided under the lock either way. @defaultValue 'on'
   */
  earlyRefusal: choice('ADMISSION_EARLY_REFUSAL', 'on', EARLY_REFUSAL),
  /**
   * How a worker publishes a job and takes it out of the gate (src/gate.ts): `one-statement`,
   * one multi-table UPDATE of the job and the gate row; `transaction`, the course's shape,
   * lesson 11's FINISH and then LEAVE_GATE in one transaction. Both change both rows or neither.
   * @defaultValue 'one-statement'
   */
  finishForm: choice('FINISH_FORM', 'one-statement', FINISH_FORMS),
  /**
   * The most admissions one transaction may carry (src/admission-group.ts, group commit): requests that
   * arrive while a group commits wait and form the next group, which reads the products once, inserts
   * the jobs and events in one statement each, and updates the gate row once. `1`: every admission in
   * its own transaction (the course's). Requests under a client quota or the count gate always go
   * alone. @defaultValue 32
   */
  admissionGroupMax: wholeNumber('ADMISSION_GROUP_MAX', 32, { min: 1, max: 1000 }),
});
export type AdmissionOptionValues = ReturnType<typeof ADMISSION_OPTIONS.defaults>;

/** The course's values (capacity 100, fast <= 30 rows, Retry-After 5) and lesson 12's timings. */
export const COURSE_TIMINGS: Readonly<AdmissionOptionValues> = ADMISSION_OPTIONS.defaults();

/** What verify and the tests run with: lesson 12's short timings; the admission values stay the course's. */
export const SHORT_TIMINGS: Readonly<Partial<AdmissionOptionValues>> = { ...OUTBOX_SHORT_TIMINGS };

/** Reads the options (lesson 12's own checks included); `USE_COURSE_TIMINGS=1` puts the course's timings back. */
export function readAdmissionOptions(options: ReadOptions<AdmissionOptionValues> = {}): AdmissionOptionValues {
  return readOnTopOf(ADMISSION_OPTIONS, OUTBOX_OPTIONS, readOutboxOptions, options);
}

/** The short timings, for verify and tests; the caller's overrides win, `USE_COURSE_TIMINGS=1` still wins over both. */
export const readShortAdmissionOptions = withShortTimings(readAdmissionOptions, SHORT_TIMINGS);

/** "…; limit 100 (counter gate, early refusal on), client quota off, fast <= 30 rows" after lesson 12's words. */
export function describeRules(options: AdmissionOptionValues): string {
  const quota = options.clientQuota === 0 ? 'client quota off' : `client quota ${options.clientQuota}`;
  const group = options.admissionGroupMax > 1 ? `, groups of up to ${options.admissionGroupMax}` : ', no groups';
  return `limit ${options.admissionLimit} (${options.admissionGate} gate, early refusal ${options.earlyRefusal}${group}), ${quota}, fast <= ${options.fastMaxRows} rows, ${options.admissionRetries} retries on a lock wait`;
}

export function describeTimings(options: AdmissionOptionValues): string {
  return `${describeOutboxTimings(options)}; ${describeRules(options)}`;
}

// ---- the processes -------------------------------------------------------------

const { database, queuePrefix, artifactsDir } = processPlace(LAB, ARTIFACTS_DIR);

/** `pnpm publisher`: lesson 12's publisher on lab 13's database; each event names its queue. */
export const PUBLISHER_PROCESS_OPTIONS = defineOptions({
  ...OUTBOX_PUBLISHER_PROCESS_OPTIONS.specs,
  database,
  queuePrefix,
});
export type PublisherProcessOptionValues = ReturnType<typeof PUBLISHER_PROCESS_OPTIONS.defaults>;

/**
 * `pnpm worker:fast` / `pnpm worker:bulk`: lesson 12's worker options; the queue comes from
 * the route, and each worker runs one job at a time by default, as the course's two workers do.
 */
export const WORKER_PROCESS_OPTIONS = defineOptions({
  ...OUTBOX_WORKER_PROCESS_OPTIONS.specs,
  /**
   * Jobs one worker runs at once: the course's `--concurrency=1` (lesson 08's variable and bounds).
   * @defaultValue 1
   */
  concurrency: { ...OUTBOX_WORKER_PROCESS_OPTIONS.specs.concurrency, default: 1 },
  database,
  queuePrefix,
  artifactsDir,
});
export type WorkerProcessOptionValues = ReturnType<typeof WORKER_PROCESS_OPTIONS.defaults>;

// The queue is chosen per job now (its route), so the server no longer reads EXPORTS_QUEUE.
const { queueName: _chosenPerJob, ...serverSpecs } = OUTBOX_SERVER_PROCESS_OPTIONS.specs;

/** `pnpm start`: lesson 12's server options on lab 13's database, without the queue name. */
export const SERVER_PROCESS_OPTIONS = defineOptions({
  ...serverSpecs,
  database,
});
export type ServerProcessOptionValues = ReturnType<typeof SERVER_PROCESS_OPTIONS.defaults>;
