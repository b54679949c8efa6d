// Lesson 15's cancel request: a durable wish, not a stop. It sets cancel_requested on an
// active job and answers what it found, in one short transaction on the job's row:
//
//   queued or running, not yet asked   -> cancel_requested = TRUE       'cancel-requested'
//   queued or running, already asked   -> nothing changes               'already-requested'
//   succeeded, failed or cancelled     -> nothing changes (terminal)    'terminal'
//   no such job                        -> JobNotFoundError (404)
//
// Who then moves the job to cancelled: a running holder stops at its next chunk boundary
// (canContinue says no) and its finish refuses to publish (lesson 11's FINISH checks the
// flag); the scanner cancels it once its lease has passed (pass a), and cancels a queued one
// on its next batch (pass b), leaving the admission gate in the same transaction. A claim
// never takes a job whose cancel was requested.
//
// The row is read under its lock first, as the course advises: a repeat request changes no
// field, so the affected-row count alone cannot tell "already asked" from "no such job".
import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { JobNotFoundError, type JobState } from '@tasks-lab/01-state-machine';
import { withTransaction } from '@tasks-lab/11-mysql-leases';
import { ACTIVE_STATES } from '@tasks-lab/13-admission';
import { LOCK_JOB_FOR_CANCEL, REQUEST_CANCEL } from './recovery-queries.ts';

export type CancelOutcome = 'cancel-requested' | 'already-requested' | 'terminal';

export interface CancelResult {
  outcome: CancelOutcome;
  /** The job's state when the request was decided (queued/running, or the terminal one). */
  status: JobState;
}

const isActive = (status: JobState) => (ACTIVE_STATES as readonly JobState[]).includes(status);

/** Asks the job to stop. Throws JobNotFoundError (404) when there is no such job. */
export async function requestCancel(pool: Pool, jobId: string): Promise<CancelResult> {
  return withTransaction(pool, async (tx) => {
    const [rows] = await tx.query<RowDataPacket[]>(LOCK_JOB_FOR_CANCEL, [jobId]);
    const row = rows[0];
    if (!row) throw new JobNotFoundError(jobId);
    const status = row.status as JobState;
    if (!isActive(status)) return { outcome: 'terminal', status };
    if (Number(row.cancel_requested)) return { outcome: 'already-requested', status };
    const [requested] = await tx.query<ResultSetHeader>(REQUEST_CANCEL, [jobId, ACTIVE_STATES]);
    // We hold the row's lock: the state we read is still the state.
    if (requested.affectedRows !== 1)
      throw new Error(`job ${jobId}: the cancel request matched ${requested.affectedRows} rows under its own lock`);
    return { outcome: 'cancel-requested', status };
  });
}
