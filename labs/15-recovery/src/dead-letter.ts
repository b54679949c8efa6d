// A dead letter: why a failed job is no longer run automatically. One row per failed job
// in export_dead_letters (the primary key makes a second one a 1062), written in the SAME
// transaction that moves the job to failed, so a job is never failed without its reason and
// a reason never names a job that is still running. A replay (replay.ts) keeps it: the
// evidence of what went wrong is never erased.
//
//   recordDeadLetter(tx, jobId, reason)   inside the transaction that fails the job
//   readDeadLetter(db, jobId)             the job's dead letter, or undefined
import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';

/**
 * The dead letter of a job being failed. Affected rows: 1; a second one for the same job
 * is a 1062, which rolls the whole transaction back. Parameters: [jobId, reason].
 */
export const INSERT_DEAD_LETTER = `
  INSERT INTO export_dead_letters (job_id, reason)
  VALUES (?, ?)`;

/** A job's dead letter, if any. Rows returned: 0 or 1. Parameters: [jobId]. */
export const READ_DEAD_LETTER = `
  SELECT job_id, reason, quarantined_at
  FROM export_dead_letters
  WHERE job_id = ?`;

export interface DeadLetter {
  jobId: string;
  /** A stable code: deadline_exceeded, attempts_exhausted. */
  reason: string;
  quarantinedAt: Date;
}

/** Writes the job's dead letter; call it in the transaction that fails the job. Resolves to the affected rows (1). */
export async function recordDeadLetter(tx: PoolConnection, jobId: string, reason: string): Promise<ResultSetHeader> {
  const [inserted] = await tx.query<ResultSetHeader>(INSERT_DEAD_LETTER, [jobId, reason]);
  return inserted;
}

/** The job's dead letter, or undefined when it has none (it did not fail, or not yet). */
export async function readDeadLetter(db: Pool | PoolConnection, jobId: string): Promise<DeadLetter | undefined> {
  const [rows] = await db.query<RowDataPacket[]>(READ_DEAD_LETTER, [jobId]);
  const row = rows[0];
  return row
    ? { jobId: String(row.job_id), reason: String(row.reason), quarantinedAt: row.quarantined_at as Date }
    : undefined;
}
