// Lesson 02's API, by name: the bounded queue, the task group, the deadline and the
// batch export. Lesson 01's names (the job store, the schemas) are imported from
// @tasks-lab/01-state-machine where they are needed.
// Job store: lesson 01's MemoryJobStore (in memory, this process only).
export { BATCH_OPTIONS, type BatchOptions, BATCH_DEFAULTS } from './options.ts';
export { QueueClosedError, BoundedQueue } from './bounded-queue.ts';
export {
  type Product,
  type ReadProduct,
  DEFAULT_READ_DELAY_MS,
  ProductReadError,
  abortableDelay,
  simulatedRead,
  withReadTimeout,
  failingOn,
} from './read-product.ts';
export { type GroupTask, runTaskGroup } from './task-group.ts';
export {
  type ConsumerCloseReason,
  type BatchEvent,
  type ConsumerContext,
  type Consumer,
  type CollectOptions,
  BatchFailedError,
  consumeProducts,
  collectProducts,
} from './batch.ts';
export { BatchRecorder } from './batch-recorder.ts';
export { BatchTimeoutError, withDeadline } from './deadline.ts';
export { type ExportBatchOptions, runExportBatch, type RunExportBatch } from './export-batch.ts';
