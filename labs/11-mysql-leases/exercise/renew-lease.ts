// Try it yourself (lesson 11): renew a lease. A worker whose export takes longer than
// its lease extends it while it still holds the job. Only the current holder may extend
// it, only while the job runs and the lease is still live (a passed lease cannot come
// back to life: claim again for a new token), never past the deadline, never once a
// cancel was requested.
// Check your answer: pnpm -w lab 11 --exercise   (hint: pnpm -w lab 11 --hint)
import type { Pool, ResultSetHeader } from 'mysql2/promise';
import { withTransaction } from '../src/database.ts';

/** Parameters: [leaseMicros, id, token]. */
const RENEW_LEASE = `
  UPDATE export_jobs
  SET lease_until = TIMESTAMPADD(MICROSECOND, ?, NOW(6))
  WHERE id = ? AND lease_token = ?`;
// TODO: only while running, the lease still live, the deadline ahead, and no cancel requested.
// TODO: never past the deadline (LEAST of the new lease end and deadline_at).

/** `true` = the lease is live and ours; `false` = this holder lost the job. */
export async function renewLease(
  pool: Pool,
  jobId: string,
  token: string,
  options: { leaseMs?: number } = {},
): Promise<boolean> {
  const leaseMs = options.leaseMs ?? 30_000;
  return withTransaction(pool, async (tx) => {
    const [renewed] = await tx.query<ResultSetHeader>(RENEW_LEASE, [Math.round(leaseMs * 1000), jobId, token]);
    // TODO: a renewal that sets the value already there changes no row; is that a lost lease?
    // Decide from the row itself (read it in this transaction), not from a count of changed rows.
    return renewed.changedRows === 1;
  });
}
