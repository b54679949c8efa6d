// Lesson 15's can_continue (the course's, step 2): a worker asks it before each chunk of its
// work. One check at the start cannot protect the whole run: while it works, its lease may
// pass (and the scanner hand the job to another worker), the deadline may pass, or the user
// may ask to cancel. Asking at every chunk boundary stops the work soon after; the finish's
// CAS (lesson 11's FINISH, the same conditions) still guards the gap between the last check
// and the publication.
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { CAN_CONTINUE } from './recovery-queries.ts';

/** true = `token` still holds the job: running, a live lease, the deadline ahead, no cancel requested. */
export async function canContinue(pool: Pool, jobId: string, token: string): Promise<boolean> {
  const [rows] = await pool.query<RowDataPacket[]>(CAN_CONTINUE, [jobId, token]);
  return rows.length === 1;
}
