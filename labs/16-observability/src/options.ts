// Lesson 16's options: lesson 15's, plus the log level, the monitoring's alert and latency
// targets, and the retention of housekeeping. The course keeps sent events and finished jobs
// forever; the lab prunes them after a retention (the course gives no values: a week for sent
// events, thirty days for terminal jobs, a day of grace for unreferenced files).
import { fileURLToPath } from 'node:url';
import {
  choice,
  defineOptions,
  durationMs,
  text,
  wholeNumber,
  readOnTopOf,
  type OptionValues,
  withShortTimings,
  type ReadOptions,
  formatDuration,
} from '@tasks-lab/lab-kit';
import {
  describeTimings as describeRecoveryTimings,
  PUBLISHER_PROCESS_OPTIONS as RECOVERY_PUBLISHER_PROCESS_OPTIONS,
  readRecoveryOptions,
  RECOVERY_OPTIONS,
  SERVER_PROCESS_OPTIONS as RECOVERY_SERVER_PROCESS_OPTIONS,
  SHORT_TIMINGS as RECOVERY_SHORT_TIMINGS,
  WORKER_PROCESS_OPTIONS as RECOVERY_WORKER_PROCESS_OPTIONS,
} from '@tasks-lab/15-recovery';
import { labNames, processOptionsOn } from '@tasks-lab/13-admission';
import { MONITORING_OPTIONS } from './monitoring-targets.ts';

export const LAB = '16';
export const { JOBS_DATABASE, VERIFY_DATABASE, QUEUE_PREFIX, ARTIFACTS_DIR, nudgeChannel } = labNames(
  LAB,
  import.meta.url,
);
/** Where `pnpm matrix` (and `pnpm lab 16`) write the evidence records, the timelines and the summary. */
export const EVIDENCE_DIR = fileURLToPath(new URL('../evidence', import.meta.url));

const DAY_MS = 24 * 60 * 60 * 1000;

/** pino's levels, most severe first; `silent` prints nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const OBSERVABILITY_OPTIONS = defineOptions({
  ...RECOVERY_OPTIONS.specs,
  ...MONITORING_OPTIONS.specs,
  /** Lesson 12's nudge channel, lab 16's own. @defaultValue nudgeChannel (`tasks-lab16:outbox-nudge`) */
  nudgeChannel: text('OUTBOX_NUDGE_CHANNEL', nudgeChannel),
  /** pino's level for the phase logs. @defaultValue 'info' */
  logLevel: choice('LOG_LEVEL', 'info', LOG_LEVELS),
  /** Sent outbox events older than this are deleted. @defaultValue 7 * DAY_MS (604800000, 7 days) */
  outboxRetentionMs: durationMs('OUTBOX_RETENTION_MS', 7 * DAY_MS, { min: 0, max: 365 * DAY_MS }),
  /** Terminal jobs untouched this long are deleted. @defaultValue 30 * DAY_MS (2592000000, 30 days) */
  jobRetentionMs: durationMs('JOB_RETENTION_MS', 30 * DAY_MS, { min: 0, max: 3650 * DAY_MS }),
  /** An artifact no job references is deleted after this. @defaultValue DAY_MS (86400000, 1 day) */
  artifactGraceMs: durationMs('ARTIFACT_GRACE_MS', DAY_MS, { min: 0, max: 365 * DAY_MS }),
  /**
   * A temp file (`<artifact>.tmp-<hex>`) untouched this long is deleted: its writer was killed (a
   * SIGKILL runs no clean-up). A live writer touches it at every chunk and stops at the next chunk
   * boundary once its job's deadline (EXPORT_DEADLINE_MS, 10 min) has passed: keep this well above it.
   * @defaultValue 3600000 (1 hour)
   */
  tempFileGraceMs: durationMs('TEMP_FILE_GRACE_MS', 60 * 60 * 1000, { min: 0, max: 365 * DAY_MS }),
  /** Rows one housekeeping statement deletes at most. @defaultValue 500 */
  housekeepingBatch: wholeNumber('HOUSEKEEPING_BATCH', 500, { min: 1, max: 10_000 }),
  /**
   * A recovery's budget is its timers plus this (queue wait, the export itself): with the course's timers a lease
   * path of 30 + 5 + 10 s plus 15 s is the course's 60 s target. @defaultValue 15000
   */
  recoveryAllowanceMs: durationMs('RECOVERY_ALLOWANCE_MS', 15_000, { min: 0, max: DAY_MS }),
});
export type ObservabilityOptionValues = ReturnType<typeof OBSERVABILITY_OPTIONS.defaults>;

/** The course's values (and lessons 11 to 15's). */
export const COURSE_TIMINGS: Readonly<ObservabilityOptionValues> = OBSERVABILITY_OPTIONS.defaults();

/** Verify and tests: lesson 15's short timings, and 4 s of allowance on top of a recovery's timers. */
export const SHORT_TIMINGS: Readonly<Partial<ObservabilityOptionValues>> = {
  ...RECOVERY_SHORT_TIMINGS,
  recoveryAllowanceMs: 4000,
};

/** Reads the options (lesson 15's checks included); `USE_COURSE_TIMINGS=1` puts the course's timings back. */
export function readObservabilityOptions(
  options: ReadOptions<ObservabilityOptionValues> = {},
): ObservabilityOptionValues {
  return readOnTopOf(OBSERVABILITY_OPTIONS, RECOVERY_OPTIONS, readRecoveryOptions, options);
}

/** The short timings, for verify and tests; the caller's overrides win, `USE_COURSE_TIMINGS=1` still wins over both. */
export const readShortObservabilityOptions = withShortTimings(readObservabilityOptions, SHORT_TIMINGS);

export function describeTimings(options: ObservabilityOptionValues): string {
  return (
    `${describeRecoveryTimings(options)}; housekeeping: sent events kept ${formatDuration(options.outboxRetentionMs)}, ` +
    `terminal jobs ${formatDuration(options.jobRetentionMs)}, unreferenced artifacts ${formatDuration(options.artifactGraceMs)}`
  );
}

// ---- the processes -------------------------------------------------------------

/** `pnpm publisher` and the two workers: lesson 15's, on lab 16's database, prefix and artifacts folder. */
const onLab = processOptionsOn(LAB, ARTIFACTS_DIR, {
  publisher: RECOVERY_PUBLISHER_PROCESS_OPTIONS,
  worker: RECOVERY_WORKER_PROCESS_OPTIONS,
  server: RECOVERY_SERVER_PROCESS_OPTIONS,
});
export const { PUBLISHER_PROCESS_OPTIONS, WORKER_PROCESS_OPTIONS } = onLab;
/** `pnpm start`, `pnpm scanner` and `pnpm housekeeping`: lesson 15's, and the artifacts folder housekeeping looks in. */
export const SERVER_PROCESS_OPTIONS = defineOptions({
  ...onLab.SERVER_PROCESS_OPTIONS.specs,
  artifactsDir: WORKER_PROCESS_OPTIONS.specs.artifactsDir,
});
export type PublisherProcessOptionValues = OptionValues<typeof PUBLISHER_PROCESS_OPTIONS>;
export type WorkerProcessOptionValues = OptionValues<typeof WORKER_PROCESS_OPTIONS>;
export type ServerProcessOptionValues = OptionValues<typeof SERVER_PROCESS_OPTIONS>;
