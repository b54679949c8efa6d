// Lesson 08's API, by name. Lesson 07's export message (ExportMessage, encodeMessage,
// decodeMessage, sampleMessage) is imported from @tasks-lab/07-choosing-executors where
// it is needed. Job state lives in BullMQ's Redis job hash (`tasks-lab08:<queue>:<job id>`:
// data, state, result, failure reason) and nowhere else: it goes when the job's retention
// runs out. Lesson 11 makes the job record durable in MySQL.

// The BullMQ layer labs 09 and 10 build on.
export {
  queueConnection,
  openQueue,
  openQueueEvents,
  enqueue,
  createProcessor,
  UnknownJobNameError,
  startWorker,
  waitForFinalState,
  waitForResult,
  MAX_TIMER_MS,
  ResultTimeoutError,
} from './queue-layer.ts';
export type {
  QueueAddress,
  OpenQueueOptions,
  EnqueueOptions,
  JobHandler,
  JobHandlers,
  WorkerSettings,
  StartWorkerOptions,
  FinalState,
} from './queue-layer.ts';

// Lesson 08's broker, exports queue, producer and worker.
export {
  EXPORTS_QUEUE,
  EXPORT_JOB_NAME,
  QUEUE_PREFIX,
  exportsAddress,
  EXPORTS_ADDRESS,
  RESULT_TTL_SECONDS,
  FAILED_RESULT_TTL_SECONDS,
  RESULT_RETENTION,
  brokerConnection,
  describeBroker,
  brokerPort,
  BROKER_REACH_TIMEOUT_MS,
  BrokerUnreachableError,
  brokerHint,
  assertBrokerReachable,
  readBrokerSettings,
  jobKey,
} from './broker.ts';
export type { ExportJobName, BrokerSettings } from './broker.ts';
export { WORKER_OPTIONS, SUBMIT_OPTIONS, EXPORT_SUBMIT_OPTIONS, SERVER_OPTIONS } from './options.ts';
export type {
  WorkerOptionValues,
  SubmitOptionValues,
  ExportSubmitOptionValues,
  ServerOptionValues,
} from './options.ts';
export {
  LAB_DIR,
  ARTIFACTS_DIR,
  InvalidArtifactIdError,
  canonicalJobId,
  safeArtifactId,
  artifactPath,
  writeArtifact,
  sha256,
} from './artifacts.ts';
export type { ArtifactResult, ArtifactOptions } from './artifacts.ts';
export { checkExportMessage, enqueueExport, AlreadySubmittedError } from './producer.ts';
export type { ExportsQueue, ExportJob, Retention } from './producer.ts';
export { exportProductsHandler, exportHandlers, startExportWorker } from './export-worker.ts';
export type { ExportHandlers, ExportsWorker, StartExportWorkerOptions } from './export-worker.ts';
export { runWorkerProcess, SHUTDOWN_GRACE_MS } from './worker.ts';
export type { RunWorkerOptions } from './worker.ts';
export {
  oneProductSnapshot,
  productSnapshot,
  readSubmitOptions,
  UsageError,
  SUBMIT_USAGE,
  DEFAULT_WAIT_SECONDS,
  EXIT_USAGE,
  EXIT_CONTRACT,
  EXIT_NO_RESULT,
  EXIT_ALREADY_SUBMITTED,
} from './submit.ts';
export type { SubmitArguments } from './submit.ts';
export { createDashboardApp, DASHBOARD_PATH, READ_METHODS, PAGING_LIMITS } from './dashboard.ts';
export type { AnyQueue, DashboardAppOptions } from './dashboard.ts';
export { startDashboardServer } from './server.ts';
export type { DashboardServer, DashboardOptions } from './server.ts';
