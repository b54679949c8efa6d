// Lesson 15's options: lesson 14's, plus the recovery scanner's and the worker's. The course's
// values are the defaults: a 10 s backoff after an expired lease (lesson 11's RETRY_BACKOFF_MS),
// 60 s before an unclaimed dispatch is sent again, 3 attempts, a 10-minute deadline, batches of 50.
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
import { labNames, processOptionsOn } from '@tasks-lab/13-admission';
import {
  describeTimings as describeScheduleTimings,
  PUBLISHER_PROCESS_OPTIONS as SCHEDULE_PUBLISHER_PROCESS_OPTIONS,
  readScheduleOptions,
  SCHEDULE_OPTIONS,
  SERVER_PROCESS_OPTIONS as SCHEDULE_SERVER_PROCESS_OPTIONS,
  SHORT_TIMINGS as SCHEDULE_SHORT_TIMINGS,
  WORKER_PROCESS_OPTIONS as SCHEDULE_WORKER_PROCESS_OPTIONS,
} from '@tasks-lab/14-schedule-slots';
import { CLAIM_FORMS } from './claim.ts';

export const LAB = '15';
export const { JOBS_DATABASE, VERIFY_DATABASE, QUEUE_PREFIX, ARTIFACTS_DIR, nudgeChannel } = labNames(
  LAB,
  import.meta.url,
);

const HOUR_MS = 60 * 60 * 1000;

export const RECOVERY_OPTIONS = defineOptions({
  ...SCHEDULE_OPTIONS.specs,
  /** Lesson 12's nudge channel, lab 15's own. @defaultValue nudgeChannel (`tasks-lab15:outbox-nudge`) */
  nudgeChannel: text('OUTBOX_NUDGE_CHANNEL', nudgeChannel),
  /** Jobs one scanner pass takes at most. @defaultValue 50 */
  recoveryBatch: wholeNumber('RECOVERY_BATCH', 50, { min: 1, max: 1000 }),
  /** How often the scanner looks (a full batch looks again at once). @defaultValue 5000 */
  recoveryScanMs: durationMs('RECOVERY_SCAN_MS', 5000, { min: 50, max: HOUR_MS }),
  /** A dispatched job nobody claimed for this long gets a new outbox event. @defaultValue 60000 */
  unclaimedThresholdMs: durationMs('UNCLAIMED_THRESHOLD_MS', 60_000, { min: 100, max: 24 * HOUR_MS }),
  /** The worker checks canContinue before each chunk of this many rows. @defaultValue 10 */
  chunkRows: wholeNumber('EXPORT_CHUNK_ROWS', 10, { min: 1, max: 100 }),
  /** A claim that found its row locked puts the delivery back for this long. @defaultValue 200 */
  claimBusyRetryMs: durationMs('CLAIM_BUSY_RETRY_MS', 200, { min: 10, max: 60_000 }),
  /**
   * How the worker claims a job (src/claim.ts): `one-update`, lesson 11's conditional UPDATE alone
   * and a read (2 statements); `three-step`, claimOrWait (the SKIP LOCKED claim, a plain read, a
   * waiting claim: 5 statements on its common path). Both wait for a locked row.
   * @defaultValue 'one-update'
   */
  claimForm: choice('CLAIM_FORM', 'one-update', CLAIM_FORMS),
});
export type RecoveryOptionValues = ReturnType<typeof RECOVERY_OPTIONS.defaults>;

/** The course's values (and lessons 11 to 14's). */
export const COURSE_TIMINGS: Readonly<RecoveryOptionValues> = RECOVERY_OPTIONS.defaults();

/** Verify and tests: lesson 14's short timings, a 1 s unclaimed threshold and a 200 ms scan. */
export const SHORT_TIMINGS: Readonly<Partial<RecoveryOptionValues>> = {
  ...SCHEDULE_SHORT_TIMINGS,
  unclaimedThresholdMs: 1000,
  recoveryScanMs: 200,
};

const RECOVERY_TIMING_KEYS = ['recoveryScanMs', 'unclaimedThresholdMs', 'claimBusyRetryMs'] as const;

/** Reads the options (lesson 14's checks included); `USE_COURSE_TIMINGS=1` puts the course's timings back. */
export function readRecoveryOptions(options: ReadOptions<RecoveryOptionValues> = {}): RecoveryOptionValues {
  const values = readOnTopOf(RECOVERY_OPTIONS, SCHEDULE_OPTIONS, readScheduleOptions, options);
  if (values.useCourseTimings !== '1') return values;
  const course = Object.fromEntries(RECOVERY_TIMING_KEYS.map((key) => [key, COURSE_TIMINGS[key]]));
  return { ...values, ...course };
}

/** The short timings, for verify and tests; the caller's overrides win, `USE_COURSE_TIMINGS=1` still wins over both. */
export const readShortRecoveryOptions = withShortTimings(readRecoveryOptions, SHORT_TIMINGS);

export function describeTimings(options: RecoveryOptionValues): string {
  return (
    `${describeScheduleTimings(options)}; recovery: batch ${options.recoveryBatch}, scan every ${formatDuration(options.recoveryScanMs)}, ` +
    `unclaimed after ${formatDuration(options.unclaimedThresholdMs)}, chunks of ${options.chunkRows} rows, claim ${options.claimForm}`
  );
}

// ---- the processes -------------------------------------------------------------

/**
 * `pnpm publisher`, the two workers, `pnpm start` and `pnpm scanner`: lesson 14's, on lab 15's
 * database, prefix and artifacts folder.
 */
export const { PUBLISHER_PROCESS_OPTIONS, WORKER_PROCESS_OPTIONS, SERVER_PROCESS_OPTIONS } = processOptionsOn(
  LAB,
  ARTIFACTS_DIR,
  {
    publisher: SCHEDULE_PUBLISHER_PROCESS_OPTIONS,
    worker: SCHEDULE_WORKER_PROCESS_OPTIONS,
    server: SCHEDULE_SERVER_PROCESS_OPTIONS,
  },
);
export type PublisherProcessOptionValues = OptionValues<typeof PUBLISHER_PROCESS_OPTIONS>;
export type WorkerProcessOptionValues = OptionValues<typeof WORKER_PROCESS_OPTIONS>;
export type ServerProcessOptionValues = OptionValues<typeof SERVER_PROCESS_OPTIONS>;
