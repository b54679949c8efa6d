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
  readBrokerSettings,
  jobKey,
} from './broker.ts';
export type { ExportJobName, BrokerSettings } from './broker.ts';
export { WORKER_OPTIONS, SUBMIT_OPTIONS, SERVER_OPTIONS } from './options.ts';
export type { WorkerOptionValues, SubmitOptionValues, ServerOptionValues } from './options.ts';
export { LAB_DIR, ARTIFACTS_DIR, InvalidArtifactIdError, safeArtifactId, artifactPath, writeArtifact, sha256 } from './artifacts.ts';
export type { ArtifactResult, ArtifactOptions } from './artifacts.ts';
export { checkExportMessage, enqueueExport } from './producer.ts';
export type { ExportsQueue, ExportJob, Retention } from './producer.ts';
export { exportProductsHandler, exportHandlers, startExportWorker } from './export-worker.ts';
export type { ExportHandlers, ExportsWorker, StartExportWorkerOptions } from './export-worker.ts';
export { runWorkerProcess, SHUTDOWN_GRACE_MS } from './worker.ts';
export { oneProductSnapshot, readSubmitOptions, DEFAULT_WAIT_SECONDS, EXIT_CONTRACT, EXIT_NO_RESULT } from './submit.ts';
export { createDashboardApp, DASHBOARD_PATH } from './dashboard.ts';
export type { AnyQueue } from './dashboard.ts';
export { startDashboardServer } from './server.ts';
export type { DashboardServer, DashboardOptions } from './server.ts';
