// The failure matrix's sixteen rows, in the course's order (its step 4 table), then the drill's
// closing fault-free regression. Each row is a scenario that runs the fault FOR REAL on its own
// database, prefix and artifacts folder, and a pure judge of what it saw (row.ts); the words of
// each row are in catalogue.ts.
import { MATRIX_CASES } from './catalogue.ts';
import type { MatrixRow } from './row.ts';
import {
  attemptsExhausted,
  cancelRunning,
  dispatchedNeverClaimed,
  duplicateDuringBackoff,
  failsBeforeClaim,
  oldTokenLate,
  pendingEventSuppresses,
  workerKilledHoldingLease,
} from './rows-recovery.ts';
import { sameSlotTwice, signalCrossesMinute } from './rows-schedule.ts';
import {
  brokerDownAtSubmit,
  dbFailsBeforeCommit,
  queueFull,
  regressionCleanExport,
  resultCacheExpired,
  sentNotConfirmed,
} from './rows-submit.ts';

export type { MatrixRow } from './row.ts';

export const MATRIX_ROWS: readonly MatrixRow[] = [
  dbFailsBeforeCommit,
  brokerDownAtSubmit,
  sentNotConfirmed,
  workerKilledHoldingLease,
  oldTokenLate,
  cancelRunning,
  attemptsExhausted,
  resultCacheExpired,
  queueFull,
  sameSlotTwice,
  signalCrossesMinute,
  dispatchedNeverClaimed,
  failsBeforeClaim,
  duplicateDuringBackoff,
  pendingEventSuppresses,
  regressionCleanExport,
];

// The catalogue and the code must list the same rows in the same order: the summary reads one, the runner the other.
if (MATRIX_ROWS.map((r) => r.id).join() !== MATRIX_CASES.map((c) => c.id).join()) {
  throw new Error('src/matrix/rows.ts and src/matrix/catalogue.ts list different rows');
}

/** The rows with these ids, in the matrix's order; an unknown id is an error naming the ids there are. */
export function selectRows(only?: readonly string[]): MatrixRow[] {
  if (!only || only.length === 0) return [...MATRIX_ROWS];
  const unknown = only.filter((id) => !MATRIX_ROWS.some((row) => row.id === id));
  if (unknown.length > 0)
    throw new Error(
      `no matrix row ${unknown.map((id) => `"${id}"`).join(', ')}; the rows are: ${MATRIX_ROWS.map((r) => r.id).join(', ')}`,
    );
  return MATRIX_ROWS.filter((row) => only.includes(row.id));
}
