// Lesson 06's API, by name: CPU-bound scoring, the process pool and its messages, the
// scoring export and the serial-versus-pool comparison. Lesson 01's names (the job
// store) are imported from @tasks-lab/01-state-machine where they are needed.
// Job store: lesson 01's MemoryJobStore (in memory, this process only; lesson 11 moves
// the jobs into MySQL).
export {
  DEFAULT_ROUNDS,
  type ExportRow,
  type RowScore,
  scoreText,
  scoreExportRow,
  exportRowFor,
  exportRowsFor,
  type ScorerModule,
  DEFAULT_SCORER_URL,
  loadScorer,
} from './scoring.ts';
export { PROCESS_POOL_OPTIONS, type ProcessPoolSettings } from './options.ts';
export {
  type ScoreRequest,
  type EchoRequest,
  type ToScoringWorker,
  type FromScoringWorker,
  WORKER_FAULT_POINTS,
  type WorkerFaultPoint,
} from './pool-messages.ts';
export {
  type ProcessPoolOptions,
  type ScoreBatchOptions,
  type ScoreBatchOutcome,
  type WorkerExit,
  describeWorkerExit,
  WorkerProcessLostError,
  NotSendableError,
  WorkerStartError,
  RowFailedError,
  ProcessPoolClosedError,
  ProcessPoolBrokenError,
  type PendingScoreBatch,
  ProcessPool,
  assertSendable,
} from './process-pool.ts';
export { type ScoringExportRun, runScoringExport } from './export-job.ts';
export { scoreSerially, findScoreDifference, type Measured, measureCpu, firstProductIds } from './compare.ts';
