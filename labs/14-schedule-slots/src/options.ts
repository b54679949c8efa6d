// Lesson 14's options: lesson 13's (the lease, the publisher, the admission rules), plus the
// schedule's. Read once at start-up, with the course's values as defaults. Verify and the
// tests run the schedule every second instead of every minute.
import {
  choice,
  defineOptions,
  durationMs,
  name,
  text,
  wholeNumber,
  readOnTopOf,
  type OptionValues,
  withShortTimings,
  type ReadOptions,
  formatDuration,
} from '@tasks-lab/lab-kit';
import {
  ADMISSION_OPTIONS,
  describeTimings as describeAdmissionTimings,
  labNames,
  processOptionsOn,
  PUBLISHER_PROCESS_OPTIONS as ADMISSION_PUBLISHER_PROCESS_OPTIONS,
  readAdmissionOptions,
  SERVER_PROCESS_OPTIONS as ADMISSION_SERVER_PROCESS_OPTIONS,
  SHORT_TIMINGS as ADMISSION_SHORT_TIMINGS,
  WORKER_PROCESS_OPTIONS as ADMISSION_WORKER_PROCESS_OPTIONS,
} from '@tasks-lab/13-admission';

export const LAB = '14';
export const { JOBS_DATABASE, VERIFY_DATABASE, QUEUE_PREFIX, ARTIFACTS_DIR, nudgeChannel } = labNames(
  LAB,
  import.meta.url,
);

export const SLOT_KEY_SOURCES = ['planned', 'execution'] as const;
export type SlotKeySource = (typeof SLOT_KEY_SOURCES)[number];

const DAY_MS = 24 * 60 * 60 * 1000;

export const SCHEDULE_OPTIONS = defineOptions({
  ...ADMISSION_OPTIONS.specs,
  /** Lesson 12's nudge channel, lab 14's own. @defaultValue nudgeChannel (`tasks-lab14:outbox-nudge`) */
  nudgeChannel: text('OUTBOX_NUDGE_CHANNEL', nudgeChannel),
  /** The Job Scheduler's id: one schedule per id (upsert). @defaultValue 'export-each-minute' */
  scheduleId: name('SCHEDULE_ID', 'export-each-minute'),
  /** The interval between two planned runs. @defaultValue 60000 */
  scheduleEveryMs: durationMs('SCHEDULE_EVERY_MS', 60_000, { min: 200, max: DAY_MS }),
  /** A run exports the first N products by id (the course's LIMIT 100). @defaultValue 100 */
  scheduleProducts: wholeNumber('SCHEDULE_PRODUCTS', 100, { min: 1, max: 100 }),
  /**
   * `planned`: the slot is the run's PLANNED time (the lab's); `execution`: the minute the signal was HANDLED (the
   * course's). @defaultValue 'planned'
   */
  slotKeyFrom: choice('SLOT_KEY_FROM', 'planned', SLOT_KEY_SOURCES),
});
export type ScheduleOptionValues = ReturnType<typeof SCHEDULE_OPTIONS.defaults>;

/** The course's values: a run every 60 s, the first 100 products. */
export const COURSE_TIMINGS: Readonly<ScheduleOptionValues> = SCHEDULE_OPTIONS.defaults();

/** What verify and the tests run with: lesson 13's short timings and a run every second. */
export const SHORT_TIMINGS: Readonly<Partial<ScheduleOptionValues>> = {
  ...ADMISSION_SHORT_TIMINGS,
  scheduleEveryMs: 1000,
};

/** Reads the options (lesson 13's checks included); `USE_COURSE_TIMINGS=1` puts the course's timings back, the interval included. */
export function readScheduleOptions(options: ReadOptions<ScheduleOptionValues> = {}): ScheduleOptionValues {
  const values = readOnTopOf(SCHEDULE_OPTIONS, ADMISSION_OPTIONS, readAdmissionOptions, options);
  const interval = values.useCourseTimings === '1' ? { scheduleEveryMs: COURSE_TIMINGS.scheduleEveryMs } : {};
  return { ...values, ...interval };
}

/** The short timings, for verify and tests; the caller's overrides win, `USE_COURSE_TIMINGS=1` still wins over both. */
export const readShortScheduleOptions = withShortTimings(readScheduleOptions, SHORT_TIMINGS);

/** "…; schedule export-each-minute every 1 min, slot from the planned time" after lesson 13's words. */
export function describeTimings(options: ScheduleOptionValues): string {
  return `${describeAdmissionTimings(options)}; schedule ${options.scheduleId} every ${formatDuration(options.scheduleEveryMs)}, slot from the ${options.slotKeyFrom} time`;
}

// ---- the processes -------------------------------------------------------------

/**
 * `pnpm publisher`, `pnpm worker:fast` / `pnpm worker:bulk`, `pnpm start` (and `schedule`, `slots`):
 * lesson 13's, on lab 14's database, prefix and artifacts folder.
 */
export const { PUBLISHER_PROCESS_OPTIONS, WORKER_PROCESS_OPTIONS, SERVER_PROCESS_OPTIONS } = processOptionsOn(
  LAB,
  ARTIFACTS_DIR,
  {
    publisher: ADMISSION_PUBLISHER_PROCESS_OPTIONS,
    worker: ADMISSION_WORKER_PROCESS_OPTIONS,
    server: ADMISSION_SERVER_PROCESS_OPTIONS,
  },
);
export type PublisherProcessOptionValues = OptionValues<typeof PUBLISHER_PROCESS_OPTIONS>;
export type WorkerProcessOptionValues = OptionValues<typeof WORKER_PROCESS_OPTIONS>;
export type ServerProcessOptionValues = OptionValues<typeof SERVER_PROCESS_OPTIONS>;
