// The failure matrix's public API (lesson 16, steps 4 and 5): the rows in words and in code,
// the evidence record and its recorder, the timeline and the summary, and the runner.
// `pnpm matrix` (scripts/matrix.ts) and the checks (scripts/matrix-checks.ts) are built on it.
export { MATRIX_CASES, matrixCase, type MatrixCase } from './catalogue.ts';
export { type RecoveryPath, budgetTerms, recoveryBudgetSeconds, describeBudget } from './budget.ts';
export {
  type RowKind,
  type RowResult,
  type ObservedState,
  type DeliverySeen,
  type InjectedStep,
  type EvidenceRecord,
  SAMPLE_EVERY_MS,
  READ_JOB_STATE,
  RowRecorder,
  readJobState,
  sha256OfFile,
  secondsBetween,
  countDuplicateDeliveries,
} from './evidence.ts';
export { type TimelineInput, renderTimeline, leaseSegments } from './timeline.ts';
export {
  type SummaryOptions,
  type SummaryTotals,
  NOT_RUN_IN_THIS_RUN,
  renderSummary,
  summaryTotals,
  formatTotals,
} from './summary.ts';
export { type ProcessCommand, type MatrixParts, KILLED_WORKER, MATRIX_PARTS } from './parts.ts';
export { type RowRun, type MatrixRow, type RowSpec, defineRow, Findings } from './row.ts';
export { MATRIX_ROWS, selectRows } from './rows.ts';
export {
  SUMMARY_FILE,
  matrixTimings,
  type MatrixOptions,
  type RowFiles,
  runRow,
  judgeRecord,
  recoveryText,
  writeRowFiles,
  writeSummary,
  clearEvidence,
  MatrixSession,
  type RunMatrixOptions,
  runMatrix,
} from './run-matrix.ts';
export { displayPath } from '../display-path.ts';
