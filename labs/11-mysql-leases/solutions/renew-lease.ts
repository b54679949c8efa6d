// Try it yourself (lesson 11), the reference answer: renew a lease.
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { withTransaction } from '../src/database.ts';

/**
 * Extends the lease of `token`'s holder by `leaseMs` from now, never past the deadline.
 * Parameters: [leaseMicros, id, token]. Affected rows (matched): 1 = the holder is still
 * the holder; 0 = it is not (another token, not running, lease passed, deadline passed,
 * cancel requested). A passed lease cannot be revived: the holder must claim again.
 * updated_at stays: a renewal is not a change of state (and touching it would hide the
 * subtlety below, since the row would always change).
 */
const RENEW_LEASE = `
  UPDATE export_jobs
  SET lease_until = LEAST(TIMESTAMPADD(MICROSECOND, ?, NOW(6)), deadline_at)
  WHERE id = ? AND lease_token = ? AND status = 'running'
    AND lease_until > NOW(6) AND deadline_at > NOW(6) AND cancel_requested = FALSE`;

/** Whether `token` holds a live lease on the job right now. Rows: 0 or 1. Parameters: [token, id]. */
const HOLDS_LIVE_LEASE = `
  SELECT (lease_token = ? AND status = 'running' AND lease_until > NOW(6)
          AND deadline_at > NOW(6) AND cancel_requested = FALSE) AS holds
  FROM export_jobs
  WHERE id = ?`;

/**
 * `true` = the lease is live and ours (extended, or already at the deadline); `false` = lost.
 *
 * The subtlety: near the deadline, LEAST picks deadline_at, and a second renewal sets the
 * very value already there. The server then CHANGES no row, and a driver that reports
 * changed rows (PyMySQL's rowcount, mysql2's changedRows) says 0: that is not a lost lease.
 * So the answer comes from reading the row in the same transaction (our update's lock is
 * still held: nobody can have changed it in between), not from a row count.
 */
export async function renewLease(
  pool: Pool,
  jobId: string,
  token: string,
  options: { leaseMs?: number } = {},
): Promise<boolean> {
  const leaseMs = options.leaseMs ?? 30_000;
  return withTransaction(pool, async (tx) => {
    await tx.query(RENEW_LEASE, [Math.round(leaseMs * 1000), jobId, token]);
    const [rows] = await tx.query<RowDataPacket[]>(HOLDS_LIVE_LEASE, [token, jobId]);
    return Number(rows[0]?.holds) === 1;
  });
}
