// A diagnostic for the checks of lessons 12 and 13, never a decision: after a delivery that
// claimed nothing, lesson 11's claim conditions on the job's row, read without a lock. It tells
// a refusal by the row's state (already run, not due, past its deadline) from a row that met
// every condition and was skipped because another transaction held its lock (SKIP LOCKED: the
// lost wake-up, docs/12-outbox.md, Troubleshooting).
import type { Pool, RowDataPacket } from 'mysql2/promise';

/** Lesson 11's claim conditions on one row. Rows returned: 0 or 1. Parameters: [maxAttempts, jobId]. */
export const CLAIM_CONDITIONS = `
  SELECT status, attempts, attempts < ? AS attempts_left, cancel_requested,
         deadline_at > NOW(6) AS before_deadline, next_attempt_at <= NOW(6) AS due
  FROM export_jobs
  WHERE id = ?`;

/** "queued, attempts 0: every condition held (the row was locked by another transaction)" or the ones that did not. */
export async function claimConditions(pool: Pool, jobId: string, maxAttempts: number): Promise<string> {
  const [rows] = await pool.query<RowDataPacket[]>(CLAIM_CONDITIONS, [maxAttempts, jobId]);
  const row = rows[0];
  if (!row) return 'no such row';
  const failed = [
    row.status !== 'queued' && 'not queued',
    !row.attempts_left && 'no attempts left',
    Boolean(row.cancel_requested) && 'cancel requested',
    !row.before_deadline && 'past its deadline',
    !row.due && 'next attempt not due',
  ].filter((reason): reason is string => typeof reason === 'string');
  const state = `${row.status}, attempts ${row.attempts}`;
  return failed.length === 0
    ? `${state}: every condition held (so the row was locked by another transaction)`
    : `${state}: ${failed.join(', ')}`;
}
