// Lesson 11's API, by name. The job record moves into MySQL: a frozen product snapshot,
// a lease with a token, a claim and a finish that are conditional updates, and an HTTP
// API that reads the table. BullMQ only wakes a worker with a job id.
// Job store: MySqlJobStore, lesson 01's JobStore contract on MySQL (export_jobs); the
// lease functions (claim, finish, ...) work on the same rows. Every later lab builds on it.
// Lesson 08's queue layer (openQueue, enqueue, startWorker) is imported from
// @tasks-lab/08-broker-worker where it is needed.

// The database: one pool per process, short transactions, named queries.
export {
  type DatabaseSettings,
  type OpenJobsDatabaseOptions,
  sessionSetup,
  openJobsDatabase,
  withTransaction,
  ER_DUP_ENTRY,
  ER_LOCK_WAIT_TIMEOUT,
  errnoOf,
  databaseDownReason,
  readSessionSettings,
} from './mysql-pool.ts';
export {
  type FreshDatabase,
  type FreshDatabaseOptions,
  freshDatabase,
  withFreshDatabase,
  recreateVerifyDatabase,
  verifyDatabaseOnce,
  type LabDatabases,
  labDatabases,
} from './scratch-databases.ts';
export {
  type SqlFlavour,
  type VersionRow,
  READ_SERVER_VERSION,
  flavourOf,
  statementTimeLimitSql,
  STATEMENT_TIME_LIMIT_ERRNOS,
  statementTimeLimitVariable,
} from './sql-dialect.ts';
export {
  READ_PRODUCTS,
  FIND_BY_IDEMPOTENCY_KEY,
  INSERT_JOB,
  LOCK_CLAIMABLE,
  CLAIM,
  FINISH,
  REQUEUE_EXPIRED_LEASE,
  READ_JOB,
  TRANSITION,
  COUNT_JOBS,
  COUNT_JOBS_IN_STATE,
  EXPIRE_LEASE,
  PASS_DEADLINE,
} from './job-queries.ts';

// The job record and its leases.
export {
  type Snapshot,
  type SubmitResult,
  submitSnapshot,
  type Submission,
  checkSubmission,
  insertJobWith,
  readSnapshot,
  type InsertJobSteps,
  earlierAfterDuplicateKey,
  requestDigest,
  type ClaimedJob,
  claim,
  finish,
  requeueExpiredLease,
  artifactName,
  type JobRow,
  readJob,
  claimedJobFrom,
  readJobWith,
  decodeSnapshot,
  microseconds,
} from './leases.ts';
export { type MySqlJobStoreOptions, MySqlJobStore, toExportJob } from './job-store.ts';
export { seedProducts } from './seed-products.ts';
export {
  InvalidProductIdsError,
  MissingProductsError,
  IdempotencyKeyReusedError,
  InvalidIdempotencyKeyError,
  DatabaseUnavailableError,
  QueryTimeoutError,
} from './errors.ts';
export {
  VERIFY_DATABASE,
  LEASE_OPTIONS,
  type LeaseOptionValues,
  COURSE_TIMINGS,
  SHORT_TIMINGS,
  readLeaseOptions,
  readShortLeaseOptions,
  type DatabaseTimings,
  databaseTimingProblems,
  describeTimings,
} from './options.ts';
export {
  WORKER_PROCESS_OPTIONS,
  type WorkerProcessOptionValues,
  SERVER_PROCESS_OPTIONS,
  type ServerProcessOptionValues,
} from './options.ts';

// BullMQ as a wake-up, the worker, the API.
export {
  QUEUE_PREFIX,
  exportsAddress,
  type WakeUpMessage,
  type DeliveryOutcome,
  type WakeUpQueue,
  type WakeUpWorker,
  type WakeUpJob,
  WAKE_UP_JOB_OPTIONS,
  InvalidWakeUpError,
  parseWakeUp,
  wakeWorker,
} from './queue.ts';
export { ARTIFACTS_DIR, renderArtifact, writeArtifactAtomically } from './artifact.ts';
export {
  EXPORT_FAULT_POINTS,
  type ExportFaultPoint,
  type ExportFaults,
  exportFaults,
  type ExportParts,
  EXPORT_PARTS,
  type ExportContext,
  deliverExport,
  WORKER_SHUTDOWN_GRACE_MS,
  type RunningExportWorker,
  type StartExportWorkerOptions,
  startExportWorker,
  readyWithPool,
} from './export-worker.ts';
export { runExportWorker } from './worker.ts';
export {
  IDEMPOTENCY_KEY_HEADER,
  type ExportResponse,
  toExportResponse,
  idempotencyKeyOf,
  databaseDownAs500,
  type AppOptions,
  createApp,
} from './app.ts';
export {
  SHUTDOWN_GRACE_MS,
  startServer,
  serverOf,
  type StartServer,
  type ApiServices,
  openApiServices,
  type ProcessServices,
  type ApiProcessSteps,
  runApiProcess,
} from './server.ts';
export {
  waitForTerminalRow,
  ASK_FOR_WORKER,
  describeUnfinished,
  parseProductList,
  smallestProductId,
} from './submit-cli.ts';
