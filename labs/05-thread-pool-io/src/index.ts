// Lesson 05's API, by name: the blocking read, the read gauge, the I/O thread pool and
// waiting with a timeout or a deadline. Earlier lessons' names are imported from the lab
// that defines them (@tasks-lab/01-state-machine, @tasks-lab/04-worker-threads).
// Job store: this lab's SyncJobStore (lesson 01's records and state machine, in memory,
// with synchronous methods; sync-job-store.ts says why).
export {
  IO_POOL_OPTIONS,
  type IoPoolSettings,
  BLOCKING_READ_OPTIONS,
  type BlockingReadSettings,
} from './options.ts';
export { SyncJobStore } from './sync-job-store.ts';
export {
  type ReadPlan,
  type ReadOutcome,
  STOP_CELL,
  SLICES_DONE_CELL,
  TASK_CELLS,
  createTaskCells,
  type ReadControl,
  controlFrom,
  blockThread,
  readSync,
} from './blocking-read.ts';
export {
  IN_READ_CELL,
  PEAK_IN_READ_CELL,
  createReadGauge,
  enterRead,
  leaveRead,
  readGauge,
} from './read-gauge.ts';
export type { WorkerSetup, ToWorker, FromWorker } from './worker-protocol.ts';
export {
  type TaskState,
  type TaskHandle,
  type SubmitOptions,
  type PoolOptions,
  TaskCancelledError,
  TaskFailedError,
  PoolFullError,
  PoolClosedError,
  type PoolSnapshot,
  type ThreadSlot,
  BlockingIoPool,
} from './io-pool.ts';
export { type WaitResult, waitWithTimeout, type DeadlineResult, readWithDeadline } from './waiting.ts';
export { exportAll } from './batch-export.ts';
