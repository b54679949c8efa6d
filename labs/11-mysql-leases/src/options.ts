// Lesson 11's options: the lease, the retry backoff, the business deadline and the attempts,
// and the bounds of the database session. Read once at start-up from their environment
// variables (or overrides in code); each default, at its definition below, is the course's
// value. A zero, negative or non-numeric timing is refused with a message naming the variable
// and its bounds. USE_COURSE_TIMINGS=1 puts the course's timings back over anything else.
//
// The processes (`pnpm worker`, `pnpm start`, `pnpm submit`) read lab 08's worker options
// plus the database and the artifacts folder. Verify and the tests start the same processes
// with another database and folder, so they never touch the student's tasks_lab11, and run
// the same code with SHORT_TIMINGS (a 1.5 s lease instead of 30 s), so a check that waits for
// a lease to pass takes seconds, not minutes.
import { labDatabase } from '@tasks-lab/infra';
import {
  choice,
  defineOptions,
  durationMs,
  name,
  OptionsError,
  text,
  wholeNumber,
  type ReadOptions,
  formatDuration,
  withShortTimings,
} from '@tasks-lab/lab-kit';
import { SERVER_OPTIONS } from '@tasks-lab/01-state-machine';
import { WORKER_OPTIONS } from '@tasks-lab/08-broker-worker';
import { DEFAULT_EXPORT_DEADLINE_MS } from '@tasks-lab/10-retries';
import { ARTIFACTS_DIR } from './artifact.ts';

export const LAB = '11';
/** The student's database: `pnpm start`, `pnpm worker` and `pnpm submit` use it. */
export const JOBS_DATABASE = labDatabase(LAB);
/** Verify's own database, recreated on every run so verify never touches the student's jobs. */
export const VERIFY_DATABASE = `${JOBS_DATABASE}_verify`;

export const LEASE_OPTIONS = defineOptions({
  /** How long a claim holds a job: past it, another worker may claim the job again. @defaultValue 30000 */
  leaseMs: durationMs('LEASE_MS', 30_000, { min: 100, max: 60 * 60 * 1000 }),
  /** How long a requeued job waits before its next claim. @defaultValue 10000 */
  retryBackoffMs: durationMs('RETRY_BACKOFF_MS', 10_000, { min: 1, max: 60 * 60 * 1000 }),
  /**
   * The business deadline, counted from submission: past it the job fails (deadline_exceeded).
   * @defaultValue DEFAULT_EXPORT_DEADLINE_MS (600000, 10 min; lesson 10's)
   */
  deadlineMs: durationMs('EXPORT_DEADLINE_MS', DEFAULT_EXPORT_DEADLINE_MS, { min: 1000, max: 7 * 24 * 60 * 60 * 1000 }),
  /** Claims a job may have in its whole life. @defaultValue 3 */
  maxAttempts: wholeNumber('MAX_ATTEMPTS', 3, { min: 1, max: 100 }),
  /** The server's `innodb_lock_wait_timeout`: a statement waiting for a row lock fails with 1205 after it. @defaultValue 1 */
  lockWaitSeconds: wholeNumber('LOCK_WAIT_SECONDS', 1, { min: 1, max: 60 }),
  /** The server stops a statement that runs longer (MySQL: read-only SELECTs only; sql-dialect.ts). @defaultValue 3000 */
  statementTimeLimitMs: durationMs('STATEMENT_TIME_LIMIT_MS', 3000, { min: 100, max: 60_000 }),
  /**
   * The client's bound on opening a connection: the TCP connect, the server's greeting and the
   * login (mysql2's `connectTimeout`). The course's `connect_timeout=3`. @defaultValue 3000
   */
  connectTimeoutMs: durationMs('DB_CONNECT_TIMEOUT_MS', 3000, { min: 100, max: 60_000 }),
  /**
   * The client's bound on one query, from sending it to its last byte of answer (mysql2's
   * per-query `timeout`, given to every query of the pool by mysql-pool.ts). The course's
   * `read_timeout=3, write_timeout=3`: mysql2 has no socket read or write timeout, and a
   * Node socket write never blocks, so one bound covers both. @defaultValue 3000
   */
  queryTimeoutMs: durationMs('DB_QUERY_TIMEOUT_MS', 3000, { min: 100, max: 60_000 }),
  /**
   * `on`: each query captures the caller's stack first, so a failed query's error shows where it
   * was sent from (mysql2's `trace`, on in mysql2 by default); `off`: no capture, and an error
   * shows mysql2's own frames and the SQL. The capture costs about 20-30 µs of CPU per query (a
   * pool's sequential `SELECT` by id, measured on a 2-core machine: 73-86 µs off, 101-107 on), on
   * every query of every process. Turn it on while you debug a query. @defaultValue 'off'
   */
  queryStackTraces: choice('DB_QUERY_STACK_TRACES', 'off', ['off', 'on']),
  /**
   * `1`: the course's timings, whatever the variables above say (readLeaseOptions applies it); `0`: the variables,
   * or the caller's short timings. @defaultValue '0'
   */
  useCourseTimings: choice('USE_COURSE_TIMINGS', '0', ['0', '1']),
});
export type LeaseOptionValues = ReturnType<typeof LEASE_OPTIONS.defaults>;

/** The course's values: what `USE_COURSE_TIMINGS=1` forces. */
export const COURSE_TIMINGS: Readonly<LeaseOptionValues> = LEASE_OPTIONS.defaults();

/**
 * What verify and the tests run with: the same code paths, shorter waits. The lease is
 * long enough for a claim, a small artifact and a finish on a busy 2-core machine, and
 * short enough that waiting for it to pass costs a second or two.
 */
export const SHORT_TIMINGS: Readonly<Partial<LeaseOptionValues>> = {
  leaseMs: 1500,
  retryBackoffMs: 500,
  deadlineMs: 60_000,
};

/** Reads the options; `USE_COURSE_TIMINGS=1` puts the course's timings back over anything else. */
export function readLeaseOptions(options: ReadOptions<LeaseOptionValues> = {}): LeaseOptionValues {
  const values = LEASE_OPTIONS.read(options);
  const problems = databaseTimingProblems(values);
  if (problems.length > 0) throw new OptionsError(problems);
  if (values.useCourseTimings !== '1') return values;
  const { leaseMs, retryBackoffMs, deadlineMs, maxAttempts } = COURSE_TIMINGS;
  return { ...values, leaseMs, retryBackoffMs, deadlineMs, maxAttempts };
}

/** The database's timings, as openJobsDatabase takes them (and whether queries capture a stack: off unless said). */
export type DatabaseTimings = Pick<
  LeaseOptionValues,
  'lockWaitSeconds' | 'statementTimeLimitMs' | 'connectTimeoutMs' | 'queryTimeoutMs'
> &
  Partial<Pick<LeaseOptionValues, 'queryStackTraces'>>;

/**
 * What is wrong with a set of database timings, one sentence per problem ([] when nothing).
 * A statement waiting for a row lock is a running statement, and a query the client is waiting
 * for: with a shorter statement limit the server would stop it as "too slow" (1969/3024), and
 * with a shorter query bound the client would close the connection, before the lock wait could
 * say "locked" (1205), the one answer the lab (and lesson 13's retry) acts on.
 */
export function databaseTimingProblems(values: DatabaseTimings): string[] {
  const lockWaitMs = values.lockWaitSeconds * 1000;
  const problems: string[] = [];
  if (values.statementTimeLimitMs <= lockWaitMs) {
    problems.push(
      `STATEMENT_TIME_LIMIT_MS (${values.statementTimeLimitMs}) must be above LOCK_WAIT_SECONDS (${values.lockWaitSeconds} s)`,
    );
  }
  if (values.queryTimeoutMs <= lockWaitMs) {
    problems.push(
      `DB_QUERY_TIMEOUT_MS (${values.queryTimeoutMs}) must be above LOCK_WAIT_SECONDS (${values.lockWaitSeconds} s)`,
    );
  }
  return problems;
}

/** The short timings, for verify and tests; `USE_COURSE_TIMINGS=1` still wins. */
export const readShortLeaseOptions = withShortTimings(readLeaseOptions, SHORT_TIMINGS);

/** The words every printed observation uses for the timings it ran with: "lease 1.5 s, backoff 0.5 s, deadline 60 s, 3 attempts". */
export function describeTimings(
  options: Pick<LeaseOptionValues, 'leaseMs' | 'retryBackoffMs' | 'deadlineMs' | 'maxAttempts'>,
): string {
  const course = (['leaseMs', 'retryBackoffMs', 'deadlineMs', 'maxAttempts'] as const).every(
    (key) => options[key] === COURSE_TIMINGS[key],
  );
  return (
    `lease ${formatDuration(options.leaseMs)}, backoff ${formatDuration(options.retryBackoffMs)}, ` +
    `deadline ${formatDuration(options.deadlineMs)}, ${options.maxAttempts} attempts${course ? " (the course's timings)" : ''}`
  );
}

// ---- the processes -------------------------------------------------------------

/** The database holding export_jobs and products. @defaultValue JOBS_DATABASE (`tasks_lab11`) */
const database = name('JOBS_DATABASE', JOBS_DATABASE);

export const WORKER_PROCESS_OPTIONS = defineOptions({
  ...WORKER_OPTIONS.specs,
  database,
  /** Where the worker writes artifacts. @defaultValue ARTIFACTS_DIR (`labs/11-mysql-leases/artifacts`) */
  artifactsDir: text('ARTIFACTS_DIR', ARTIFACTS_DIR),
});
export type WorkerProcessOptionValues = ReturnType<typeof WORKER_PROCESS_OPTIONS.defaults>;

export const SERVER_PROCESS_OPTIONS = defineOptions({
  ...SERVER_OPTIONS.specs,
  queueName: WORKER_OPTIONS.specs.queueName,
  database,
});
export type ServerProcessOptionValues = ReturnType<typeof SERVER_PROCESS_OPTIONS.defaults>;
