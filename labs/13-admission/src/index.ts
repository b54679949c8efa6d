// Lesson 13's API, by name. Admission control: one gate row serialises every admission,
// so queued + running never exceeds the limit (503 + Retry-After when full; an optional
// per-client quota answers 429). Each export is routed by its row count (<= 30 ->
// exports.fast, else exports.bulk), the route is kept on the outbox event, and each
// queue has its own worker. The backlog (count and oldest age) is a query.
// The job record, the outbox and the publisher are lessons 11 and 12's: import them from
// @tasks-lab/11-mysql-leases and @tasks-lab/12-outbox.

// Options and the database.
export {
  LAB,
  JOBS_DATABASE,
  VERIFY_DATABASE,
  ARTIFACTS_DIR,
  nudgeChannel,
  QUEUE_PREFIX,
  FAST_QUEUE,
  BULK_QUEUE,
  ROUTES,
  type Route,
  type RouteQueue,
  GATE_DESIGNS,
  EARLY_REFUSAL,
  FINISH_FORMS,
  type FinishForm,
  type GateDesign,
  ADMISSION_OPTIONS,
  type AdmissionOptionValues,
  COURSE_TIMINGS,
  SHORT_TIMINGS,
  readAdmissionOptions,
  readShortAdmissionOptions,
  describeTimings,
  PUBLISHER_PROCESS_OPTIONS,
  type PublisherProcessOptionValues,
  WORKER_PROCESS_OPTIONS,
  type WorkerProcessOptionValues,
  SERVER_PROCESS_OPTIONS,
  type ServerProcessOptionValues,
} from './options.ts';
export { labNames, processPlace, processOptionsOn } from './process-place.ts';
export {
  openJobsDatabase,
  freshDatabase,
  withFreshDatabase,
  recreateVerifyDatabase,
  verifyDatabaseOnce,
} from './database.ts';

// The gate, the admission, the backlog.
export {
  ACTIVE_STATES,
  LOCK_GATE,
  COUNT_ACTIVE,
  COUNT_ACTIVE_OF_CLIENT,
  SET_CLIENT,
  SET_JOB_COLUMNS,
  type JobColumns,
  ENTER_GATE,
  LEAVE_GATE,
  FINISH_AND_LEAVE,
  READ_GATE,
  BACKLOG_BY_STATUS,
  BACKLOG_BY_QUEUE,
  UNPUBLISHED_BY_QUEUE,
  COUNT_ORPHANS,
} from './admission-queries.ts';
export {
  type GateRules,
  type GateReading,
  gateSteps,
  readGateCounter,
  countActiveJobs,
  finishAndLeave,
  finishAndLeaveInOneStatement,
  finishOfForm,
} from './gate.ts';
export {
  type AdmissionRules,
  COURSE_RULES,
  ANONYMOUS_CLIENT,
  checkClientId,
  routeFor,
  type Admission,
  type AdmitOptions,
  type AdmitResult,
  admitExport,
  CLIENT_ID_HEADER,
  describeAdmission,
} from './admission.ts';
export { type EarlyRefusalRules, refuseEarlyWhenFull, earlyRefusalStep } from './early-refusal.ts';
export {
  CapacityExceededError,
  ClientQuotaExceededError,
  AdmissionBusyError,
  DatabaseUnreachableError,
  InvalidClientIdError,
  unreachableAs503,
} from './errors.ts';
export {
  type StatusBacklog,
  type QueueBacklog,
  type UnpublishedBacklog,
  type Backlog,
  readBacklog,
  formatBacklog,
} from './backlog.ts';

// Where the wake-ups go, the workers, the API.
export { exportsAddress, routeNamed, scratchQueuePrefix } from './queue.ts';
export { type StartRouteWorkerOptions, startRouteWorker, logDeliveries } from './worker.ts';
export { type AppOptions, createApp } from './app.ts';
export { SHUTDOWN_GRACE_MS, startServer, type ServerProcessSettings, runServerProcess } from './server.ts';
