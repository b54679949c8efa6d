// Lesson 15's API, by name. Recovery, cancellation and failure isolation: a recovery scanner
// (three ordered, indexed passes in short transactions) requeues expired leases with a
// persisted backoff and a new event on the job's own route, re-sends wake-ups nobody claimed,
// cancels and fails jobs (one dead letter each, out of the admission gate); workers check
// canContinue before every chunk; a failed job is replayed as a new linked job; every process
// stops cleanly on SIGTERM. And the lost wake-up: the publisher's confirmation locks the job
// row, lab 11's SKIP LOCKED claim took "locked" for "nothing to claim"; claimOrWait tells them
// apart and waits on that one row (or puts the delivery back without spending an attempt).

// Options and the database.
export {
  LAB,
  JOBS_DATABASE,
  VERIFY_DATABASE,
  QUEUE_PREFIX,
  ARTIFACTS_DIR,
  nudgeChannel,
  RECOVERY_OPTIONS,
  type RecoveryOptionValues,
  COURSE_TIMINGS,
  SHORT_TIMINGS,
  readRecoveryOptions,
  readShortRecoveryOptions,
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

// Recovery, cancellation, replay.
export * from './recovery-queries.ts';
export {
  INSERT_DEAD_LETTER,
  READ_DEAD_LETTER,
  type DeadLetter,
  recordDeadLetter,
  readDeadLetter,
} from './dead-letter.ts';
export {
  recoverBatch,
  recoverBatchWith,
  RECOVERY_PASSES,
  recoveredCount,
  type RecoveredJob,
  type RecoveryReport,
  type RecoveryOptions,
  type RecoverBatch,
  type RecoveryPass,
  type LockedJob,
  type Decision,
} from './recovery.ts';
export {
  startScanner,
  describeRecovered,
  type ScannerTimings,
  type ScannerOptions,
  type ScannerStats,
  type RunningScanner,
} from './scanner.ts';
export { SCANNER_SHUTDOWN_GRACE_MS, type ScannerProcessSettings, runScannerProcess } from './scanner-process.ts';
export { requestCancel, type CancelOutcome, type CancelResult } from './cancel.ts';
export {
  replayJob,
  readReplaySource,
  replayDigest,
  NotReplayableError,
  type ReplayOptions,
  type ReplayResult,
  type ReplaySource,
} from './replay.ts';
export {
  decideExpiredLease,
  EXPIRED_LEASE_RULE_FILE,
  type ExpiredLease,
  type ExpiredLeaseDecision,
} from './expired-lease-rule.ts';
export { canContinue } from './can-continue.ts';

// The lost wake-up: the confirmation that holds the job's lock, and the claim that tells "locked" from "not claimable".
export {
  type ClaimAttempt,
  type ClaimOptions,
  type ClaimFn,
  courseClaim,
  courseClaimAttempt,
  READ_CLAIMABLE,
  LOCK_CLAIMABLE_WAITING,
  claimOrWait,
  claimInOneUpdate,
  CLAIM_FORMS,
  type ClaimForm,
  claimOfForm,
  isClaimableNow,
  putDeliveryBack,
} from './claim.ts';
export {
  CONFIRM_FAULT_POINTS,
  type ConfirmFaults,
  confirmFaults,
  RECOVERY_PUBLISHER_FAULT_POINTS,
  recoveryPublisherFaults,
  LOCK_JOB_FOR_DISPATCH,
  CONFIRM_EVENT_OF_JOB,
  CONFIRM_ROUND_AND_RECORD_DISPATCH,
  confirmRoundAndRecordDispatch,
  RECORD_DISPATCH,
  confirmAndRecordDispatch,
  dispatchRecordingParts,
} from './confirm.ts';

// The workers (chunks, canContinue, graceful exit) and the API.
export {
  type ChunkStopReason,
  type ChunkedWriteOptions,
  type ChunkedWriteResult,
  chunksOf,
  renderChunk,
  writeArtifactInChunks,
} from './export-chunks.ts';
export {
  RECOVERY_FAULT_POINTS,
  type RecoveryFaultPoint,
  type RecoveryFaults,
  recoveryFaults,
  type ChunkedParts,
  CHUNKED_PARTS,
  type ChunkedContext,
  type ChunkedOutcome,
  deliverInChunks,
} from './chunked-delivery.ts';
export {
  WORKER_SHUTDOWN_GRACE_MS,
  AFTER_ABORT_MS,
  SHUTDOWN_OPTIONS,
  type ClosableWorker,
  closeWithGrace,
} from './graceful-exit.ts';
export {
  type DeliveryHooks,
  type RecoveryJob,
  type StartRecoveryWorkerOptions,
  type RunningRecoveryWorker,
  startRecoveryWorker,
  describeClaim,
  describeDelivery,
} from './recovery-worker.ts';
export { type RecoveryWorkerVariant, runRecoveryWorker } from './worker.ts';
export {
  type RecoveryRouteOptions,
  type CancelResponse,
  type ReplayResponse,
  JobTerminalError,
  describeCancel,
  describeReplay,
  mountRecoveryRoutes,
} from './recovery-routes.ts';
export { type AppOptions, createApp } from './app.ts';
export { SHUTDOWN_GRACE_MS, startServer } from './server.ts';
