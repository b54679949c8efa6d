// Lesson 16's options: lesson 15's, plus the log level, the retention of housekeeping and the
// folder the failure matrix writes its evidence to. The course keeps sent events and finished
// jobs forever; the lab prunes them after a retention (the course's values are not given: a
// week for sent events, thirty days for terminal jobs, a day of grace for unreferenced files).
//
//   LOG_LEVEL                  info       pino's level for the phase logs
//   OUTBOX_RETENTION_MS        604800000  sent outbox events older than this are deleted (7 days)
//   JOB_RETENTION_MS           2592000000 terminal jobs untouched this long are deleted (30 days)
//   ARTIFACT_GRACE_MS          86400000   an artifact no job references is deleted after this (1 day)
//   HOUSEKEEPING_BATCH         500        rows one housekeeping statement deletes at most
//   RECOVERY_ALLOWANCE_MS      15000      a recovery's budget is its timers plus this (queue wait, the
//                                         export itself): with the course's timers, a lease path of
//                                         30 + 5 + 10 s plus 15 s is the course's 60 s target
//
// The processes' settings: lesson 15's, on lab 16's database (tasks_lab16) and prefix (tasks-lab16).
import { fileURLToPath } from 'node:url';
import { labDatabase, labPrefix } from '@tasks-lab/infra';
import { choice, defineOptions, durationMs, name, text, wholeNumber, type ReadOptions } from '@tasks-lab/lab-kit';
import {
  describeTimings as describeRecoveryTimings,
  PUBLISHER_PROCESS_OPTIONS as RECOVERY_PUBLISHER_PROCESS_OPTIONS,
  readRecoveryOptions,
  RECOVERY_OPTIONS,
  SERVER_PROCESS_OPTIONS as RECOVERY_SERVER_PROCESS_OPTIONS,
  SHORT_TIMINGS as RECOVERY_SHORT_TIMINGS,
  WORKER_PROCESS_OPTIONS as RECOVERY_WORKER_PROCESS_OPTIONS,
} from '@tasks-lab/15-recovery';
import { formatDuration } from '@tasks-lab/11-mysql-leases';

export const LAB = '16';
export const JOBS_DATABASE = labDatabase(LAB);
export const VERIFY_DATABASE = `${JOBS_DATABASE}_verify`;
export const QUEUE_PREFIX = labPrefix(LAB);
export const ARTIFACTS_DIR = fileURLToPath(new URL('../artifacts', import.meta.url));
/** Where `pnpm matrix` (and `pnpm lab 16`) write the evidence records, the timelines and the summary. */
export const EVIDENCE_DIR = fileURLToPath(new URL('../evidence', import.meta.url));
export const nudgeChannel = 'tasks-lab16:outbox-nudge';

const DAY_MS = 24 * 60 * 60 * 1000;

export const LOG_LEVELS: readonly [LogLevel, ...LogLevel[]] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export const OBSERVABILITY_OPTIONS = defineOptions({
  ...RECOVERY_OPTIONS.specs,
  nudgeChannel: text('OUTBOX_NUDGE_CHANNEL', nudgeChannel),
  logLevel: choice('LOG_LEVEL', 'info', LOG_LEVELS),
  outboxRetentionMs: durationMs('OUTBOX_RETENTION_MS', 7 * DAY_MS, { min: 0, max: 365 * DAY_MS }),
  jobRetentionMs: durationMs('JOB_RETENTION_MS', 30 * DAY_MS, { min: 0, max: 3650 * DAY_MS }),
  artifactGraceMs: durationMs('ARTIFACT_GRACE_MS', DAY_MS, { min: 0, max: 365 * DAY_MS }),
  housekeepingBatch: wholeNumber('HOUSEKEEPING_BATCH', 500, { min: 1, max: 10_000 }),
  recoveryAllowanceMs: durationMs('RECOVERY_ALLOWANCE_MS', 15_000, { min: 0, max: DAY_MS }),
});
export type ObservabilityOptionValues = ReturnType<typeof OBSERVABILITY_OPTIONS.defaults>;

/** The course's values (and lessons 11 to 15's). */
export const COURSE_TIMINGS: Readonly<ObservabilityOptionValues> = OBSERVABILITY_OPTIONS.defaults();

/** Verify and tests: lesson 15's short timings, and 4 s of allowance on top of a recovery's timers. */
export const SHORT_TIMINGS: Readonly<Partial<ObservabilityOptionValues>> = { ...RECOVERY_SHORT_TIMINGS, recoveryAllowanceMs: 4000 };

/** Reads the options (lesson 15's checks included); `COURSE_TIMINGS=1` puts the course's timings back. */
export function readObservabilityOptions(options: ReadOptions<ObservabilityOptionValues> = {}): ObservabilityOptionValues {
  const values = OBSERVABILITY_OPTIONS.read(options);
  const recovery = readRecoveryOptions({ env: {}, overrides: pickRecovery(values) });
  return { ...values, ...recovery };
}

export function readShortObservabilityOptions(env: NodeJS.ProcessEnv = process.env, overrides: Partial<ObservabilityOptionValues> = {}): ObservabilityOptionValues {
  return readObservabilityOptions({ env, overrides: { ...SHORT_TIMINGS, ...overrides } });
}

function pickRecovery(values: ObservabilityOptionValues) {
  return Object.fromEntries(Object.keys(RECOVERY_OPTIONS.specs).map((key) => [key, values[key as keyof ObservabilityOptionValues]]));
}

export function describeTimings(options: ObservabilityOptionValues): string {
  return (
    `${describeRecoveryTimings(options)}; housekeeping: sent events kept ${formatDuration(options.outboxRetentionMs)}, ` +
    `terminal jobs ${formatDuration(options.jobRetentionMs)}, unreferenced artifacts ${formatDuration(options.artifactGraceMs)}`
  );
}

export { formatDuration };

// ---- the processes -------------------------------------------------------------

const database = name('JOBS_DATABASE', JOBS_DATABASE);
const queuePrefix = name('BULLMQ_PREFIX', QUEUE_PREFIX);

export const PUBLISHER_PROCESS_OPTIONS = defineOptions({ ...RECOVERY_PUBLISHER_PROCESS_OPTIONS.specs, database, queuePrefix });
export type PublisherProcessOptionValues = ReturnType<typeof PUBLISHER_PROCESS_OPTIONS.defaults>;

export const WORKER_PROCESS_OPTIONS = defineOptions({
  ...RECOVERY_WORKER_PROCESS_OPTIONS.specs,
  database,
  queuePrefix,
  artifactsDir: text('ARTIFACTS_DIR', ARTIFACTS_DIR),
});
export type WorkerProcessOptionValues = ReturnType<typeof WORKER_PROCESS_OPTIONS.defaults>;

/** `pnpm start`, `pnpm scanner` and `pnpm housekeeping`: the database, the prefix and the artifacts folder. */
export const SERVER_PROCESS_OPTIONS = defineOptions({ ...RECOVERY_SERVER_PROCESS_OPTIONS.specs, database, queuePrefix, artifactsDir: text('ARTIFACTS_DIR', ARTIFACTS_DIR) });
export type ServerProcessOptionValues = ReturnType<typeof SERVER_PROCESS_OPTIONS.defaults>;
