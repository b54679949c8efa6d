// Lesson 14's options: lesson 13's (the lease, the publisher, the admission rules), plus the
// schedule's. Read once at start-up, with the course's values as defaults.
//
//   SCHEDULE_ID          export-each-minute   the Job Scheduler's id (one schedule per id: upsert)
//   SCHEDULE_EVERY_MS    60000                the interval between two planned runs
//   SCHEDULE_PRODUCTS    100                  a run exports the first N products by id (the course's LIMIT 100)
//   SLOT_KEY_FROM        planned              planned: the slot is the run's PLANNED time (the lab's);
//                                             execution: the minute the signal was HANDLED (the course's)
//   USE_COURSE_TIMINGS   0                    1: the course's timings (lessons 11 to 13's)
//
// The processes' settings: lesson 13's, on lab 14's database (tasks_lab14) and BullMQ prefix
// (tasks-lab14). Verify and the tests run the schedule every second instead of every minute.
import { fileURLToPath } from 'node:url';
import { labDatabase, labPrefix } from '@tasks-lab/infra';
import { choice, defineOptions, durationMs, name, text, wholeNumber, type ReadOptions } from '@tasks-lab/lab-kit';
import {
  ADMISSION_OPTIONS,
  describeTimings as describeAdmissionTimings,
  PUBLISHER_PROCESS_OPTIONS as ADMISSION_PUBLISHER_PROCESS_OPTIONS,
  readAdmissionOptions,
  SERVER_PROCESS_OPTIONS as ADMISSION_SERVER_PROCESS_OPTIONS,
  SHORT_TIMINGS as ADMISSION_SHORT_TIMINGS,
  WORKER_PROCESS_OPTIONS as ADMISSION_WORKER_PROCESS_OPTIONS,
} from '@tasks-lab/13-admission';
import { formatDuration } from '@tasks-lab/11-mysql-leases';

export const LAB = '14';
/** The student's database: every process of the lab uses it. */
export const JOBS_DATABASE = labDatabase(LAB);
/** Verify's own database, recreated on every run. */
export const VERIFY_DATABASE = `${JOBS_DATABASE}_verify`;
/** Lesson 14's BullMQ key prefix: `tasks-lab14`. */
export const QUEUE_PREFIX = labPrefix(LAB);
/** Where the workers write artifacts by default. */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../artifacts', import.meta.url));
/** Lesson 14's nudge channel. */
export const nudgeChannel = 'tasks-lab14:outbox-nudge';

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
  const values = SCHEDULE_OPTIONS.read(options);
  const admission = readAdmissionOptions({ env: {}, overrides: pickAdmission(values) });
  const interval = values.useCourseTimings === '1' ? { scheduleEveryMs: COURSE_TIMINGS.scheduleEveryMs } : {};
  return { ...values, ...admission, ...interval };
}

/** The short timings, for verify and tests; `USE_COURSE_TIMINGS=1` still wins. */
export function readShortScheduleOptions(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<ScheduleOptionValues> = {},
): ScheduleOptionValues {
  return readScheduleOptions({ env, overrides: { ...SHORT_TIMINGS, ...overrides } });
}

function pickAdmission(values: ScheduleOptionValues) {
  return Object.fromEntries(
    Object.keys(ADMISSION_OPTIONS.specs).map((key) => [key, values[key as keyof ScheduleOptionValues]]),
  );
}

/** "…; schedule export-each-minute every 1 min, slot from the planned time" after lesson 13's words. */
export function describeTimings(options: ScheduleOptionValues): string {
  return `${describeAdmissionTimings(options)}; schedule ${options.scheduleId} every ${formatDuration(options.scheduleEveryMs)}, slot from the ${options.slotKeyFrom} time`;
}

export { formatDuration };

// ---- the processes -------------------------------------------------------------

/** The database of the jobs, the outbox and the slots. @defaultValue JOBS_DATABASE (`tasks_lab14`) */
const database = name('JOBS_DATABASE', JOBS_DATABASE);
/** The processes' BullMQ key prefix. @defaultValue QUEUE_PREFIX (`tasks-lab14`) */
const queuePrefix = name('BULLMQ_PREFIX', QUEUE_PREFIX);

/** `pnpm publisher`: lesson 13's, on lab 14's database and prefix. */
export const PUBLISHER_PROCESS_OPTIONS = defineOptions({
  ...ADMISSION_PUBLISHER_PROCESS_OPTIONS.specs,
  database,
  queuePrefix,
});
export type PublisherProcessOptionValues = ReturnType<typeof PUBLISHER_PROCESS_OPTIONS.defaults>;

/** `pnpm worker:fast` / `pnpm worker:bulk`: lesson 13's, on lab 14's database, prefix and artifacts folder. */
export const WORKER_PROCESS_OPTIONS = defineOptions({
  ...ADMISSION_WORKER_PROCESS_OPTIONS.specs,
  database,
  queuePrefix,
  /** Where the workers write artifacts. @defaultValue ARTIFACTS_DIR (`labs/14-schedule-slots/artifacts`) */
  artifactsDir: text('ARTIFACTS_DIR', ARTIFACTS_DIR),
});
export type WorkerProcessOptionValues = ReturnType<typeof WORKER_PROCESS_OPTIONS.defaults>;

/** `pnpm start`, `pnpm schedule`, `pnpm slots`: lesson 13's server options on lab 14's database and prefix. */
export const SERVER_PROCESS_OPTIONS = defineOptions({
  ...ADMISSION_SERVER_PROCESS_OPTIONS.specs,
  database,
  queuePrefix,
});
export type ServerProcessOptionValues = ReturnType<typeof SERVER_PROCESS_OPTIONS.defaults>;
