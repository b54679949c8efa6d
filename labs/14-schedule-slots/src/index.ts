// Lesson 14's API, by name. Durable time slots: a periodic signal (a BullMQ Job Scheduler
// on exports.fast) makes at most one export per slot. scheduleOnce writes the job, its
// unique slot and its outbox event in one transaction through lesson 13's admission; the
// export runs on exports.bulk. Slots are named by the run's planned time (the lab's) or by
// the minute the signal was handled (the course's, with its cross-minute boundary).
// The job record, the outbox and the gate are lessons 11 to 13's.

// Options and the database.
export {
  LAB,
  JOBS_DATABASE,
  VERIFY_DATABASE,
  QUEUE_PREFIX,
  ARTIFACTS_DIR,
  nudgeChannel,
  SLOT_KEY_SOURCES,
  type SlotKeySource,
  SCHEDULE_OPTIONS,
  type ScheduleOptionValues,
  COURSE_TIMINGS,
  SHORT_TIMINGS,
  readScheduleOptions,
  readShortScheduleOptions,
  describeTimings,
  PUBLISHER_PROCESS_OPTIONS,
  type PublisherProcessOptionValues,
  WORKER_PROCESS_OPTIONS,
  type WorkerProcessOptionValues,
  SERVER_PROCESS_OPTIONS,
  type ServerProcessOptionValues,
} from './options.ts';
export {
  openJobsDatabase,
  freshDatabase,
  withFreshDatabase,
  recreateVerifyDatabase,
  verifyDatabaseOnce,
} from './database.ts';

// Slots, scheduling, the signal.
export { FIND_SLOT, INSERT_SLOT, PICK_SCHEDULE_PRODUCTS, LATEST_SLOTS, SLOTS_WITH_PREFIX } from './slot-queries.ts';
export { SLOT_PREFIX, checkSlotKey, instantOf, executionSlot, plannedSlot } from './slot-keys.ts';
export { TimeZoneRequiredError, InvalidTimeError, InvalidSlotKeyError } from './errors.ts';
export { type ScheduleResult, type ScheduleOnceOptions, scheduleOnce, jobOfSlot } from './schedule-once.ts';
export {
  SCHEDULE_TICK_JOB_NAME,
  type TickMessage,
  type TickOutcome,
  type TickContext,
  plannedAtOf,
  slotKeyFor,
  handleTick,
  describeTick,
  tickMessageOf,
  type TickSettings,
  tickJobHandler,
} from './tick.ts';
export {
  TICK_JOB_OPTIONS,
  type TickQueue,
  type TickJob,
  upsertExportSchedule,
  removeExportSchedule,
  type ScheduleState,
  readScheduleState,
  describeScheduleState,
} from './schedule-registration.ts';

// The workers and the API.
export {
  type FastJobName,
  type FastJobData,
  type FastJobResult,
  type FastWorker,
  type FastJob,
  type TickHandler,
  type StartFastWorkerOptions,
  type RunningFastWorker,
  startFastWorker,
  logFastWork,
} from './fast-worker.ts';
export {
  type ScheduleSlotRouteOptions,
  scheduleSlotRequestSchema,
  type ScheduleSlotRequest,
  type ScheduleSlotResponse,
  parseScheduleSlotRequest,
  SlotKeyOrTimeError,
  slotKeyOf,
  describeSchedule,
  mountScheduleSlotRoute,
} from './schedule-slot-route.ts';
export { type AppOptions, createApp } from './app.ts';
export { SHUTDOWN_GRACE_MS, startServer } from './server.ts';
