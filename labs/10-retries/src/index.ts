// Lesson 10's API, by name: retries with capped full-jitter backoff, an allow-list of
// retryable errors, a deadline that travels with the job, time limits, and an idempotent
// deduction. Lesson 08's queue layer (openQueue, enqueue, startWorker, waitForFinalState)
// is imported from @tasks-lab/08-broker-worker where it is needed.
// Job state still lives in BullMQ's Redis job hash (attempts, failedReason, progress);
// lesson 11 makes the job record durable in MySQL.
export {
  DEADLINE_EXCEEDED,
  DEFAULT_EXPORT_DEADLINE_MS,
  EXPORT_ATTEMPTS,
  INSUFFICIENT_RETRY_BUDGET,
  RETRY_POLICY_DEFAULTS,
  backoffCeilingMs,
  deadlineProblem,
  fullJitterDelayMs,
  planRetry,
  randomJitter,
  seededJitter,
  type JitterSource,
  type PlanRetryInput,
  type RandomSource,
  type RetryPlan,
  type RetryPolicy,
} from './retry-policy.ts';
export { DeadlineExceededError, FailFastError, InsufficientRetryBudgetError, InvalidJobDataError } from './errors.ts';
export {
  RETRYABLE_ERRORS,
  TemporaryExportError,
  failFastUnlessRetryable,
  isRetryable,
  plannedDelayOf,
  withPlannedDelay,
} from './export-errors.ts';
export { RETRY_FAULT_POINTS, retryFaults, type RetryFaultPoint, type RetryFaults } from './faults.ts';
export {
  checkJobData,
  isIdentifier,
  retryQueueAddress,
  type RetryJob,
  type RetryJobData,
  type RetryJobName,
  type RetryJobResult,
  type RetryQueue,
} from './jobs.ts';
export {
  gapsBetweenRuns,
  readRetryEvidence,
  recordNote,
  recordRetryRun,
  recordSourceRead,
  type RetryEvidence,
  type RetryRun,
} from './execution-log.ts';
export {
  DEFAULT_CATEGORY,
  PLANNED_BACKOFF,
  PRODUCT_CATALOGUE,
  RETRY_EXPORT_JOB_NAME,
  RETRY_EXPORT_PARTS,
  UnknownCategoryError,
  parseRetryExportData,
  plannedBackoff,
  processRetryExport,
  readProductSource,
  type Product,
  type RetryExportContext,
  type RetryExportData,
  type RetryExportParts,
  type RetryExportResult,
} from './export-job.ts';
export {
  HARD_TIME_LIMIT_EXCEEDED,
  HardTimeLimitError,
  SOFT_TIME_LIMIT_EXCEEDED,
  SoftTimeLimitError,
  TIME_LIMIT_DEFAULTS,
  runWithHardTimeLimit,
  withSoftTimeLimit,
  type HardLimitRun,
} from './time-limits.ts';
export {
  CRAWL_CHILD_SCRIPT,
  CRAWL_JOB_NAME,
  crawlPolitely,
  parseCrawlJobData,
  processCrawl,
  type CrawlContext,
  type CrawlJobData,
  type CrawlResult,
} from './crawl-job.ts';
export {
  DEDUCT_JOB_NAME,
  ReplyLostError,
  parseDeductJobData,
  processDeduction,
  type DeductionContext,
  type DeductJobData,
} from './deduct-job.ts';
export {
  countDeductions,
  insertDeductionRecord,
  readStock,
  setStock,
  takeStock,
  type Sql,
  type StockDeduction,
} from './queries.ts';
export { ER_DUP_ENTRY, InsufficientStockError, deductStockOnce, type DeductionOutcome } from './inventory.ts';
export { lazyPool, openInventoryDatabase, type LazyPool } from './database.ts';
export {
  RETRY_SUBMIT_OPTIONS,
  RETRY_WORKER_OPTIONS,
  readRetryWorkerOptions,
  type RetrySubmitOptionValues,
  type RetryWorkerOptionValues,
} from './options.ts';
export {
  RETRY_WORKER_PARTS,
  runRetryWorker,
  startRetryWorker,
  type RetryWorkerOptions,
  type RetryWorkerParts,
  type RunningRetryWorker,
} from './worker.ts';
export { submitRetryExport, submitRetryJob, type RetryExportRequest } from './submit.ts';
