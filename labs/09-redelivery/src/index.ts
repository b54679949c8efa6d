// Lesson 09's API, by name; lesson 08's (the queue layer, the broker, sha256) is imported
// from @tasks-lab/08-broker-worker and lesson 07's export message from
// @tasks-lab/07-choosing-executors where they are needed. Job state still lives in
// BullMQ's Redis job hash (`tasks-lab09:<queue>:<job id>`), nowhere else, until lesson 11
// makes the job record durable in MySQL.
export {
  renderArtifactBytes,
  finalArtifactPath,
  existingDigest,
  isTempArtifact,
  writeArtifactAtomically,
  writeArtifactInPlace,
} from './artifact.ts';
export type { RenderArtifact, ArtifactOutcome, WriteArtifactOptions, ArtifactWriter } from './artifact.ts';
export { executionLogKey, recordExecution, readExecutions, clearExecutions } from './execution-log.ts';
export type { ExecutionEntry } from './execution-log.ts';
export { appendLedgerLine, ledgerPath, readLedger } from './ledger.ts';
export type { LedgerEntry } from './ledger.ts';
export { ensureServices } from './services.ts';
export type { Print } from './services.ts';
export { QUEUE_PREFIX, exportsAddress } from './queue.ts';
export type { ExportsQueue, ExportsWorker, ExportJob } from './queue.ts';
export { submitExport } from './submit.ts';
export type { SubmitExportOptions } from './submit.ts';
export { EXPORT_FAULT_POINTS, startExportWorker } from './export-worker.ts';
export type { ExportFaultPoint, DeliveryResult, ExportWorkerOptions, ExportWorkerHandle } from './export-worker.ts';
export { runWorkerProcess } from './worker.ts';
export { WORKER_OPTIONS, CPU_WORKER_OPTIONS } from './options.ts';
export { BUSY_JOB_NAME, busyLoop, runBusyJob } from './busy-work.ts';
export type { BusyJobData, BusyJobResult, BusyJobRun } from './busy-work.ts';
export { SnapshotConflictError } from './snapshot-conflict.ts';
export type { GuardedOutcome } from './snapshot-conflict.ts';
export { QUEUE_SETTINGS, settingsProblems } from './queue-settings.ts';
export type { QueueSettings } from './queue-settings.ts';
