// scheduleOnce: at most one job per slot, through the admission gate, with the job, its
// slot and its outbox event written in ONE transaction (job -> slot -> event: the foreign
// key is checked at once, so the job comes first).
//
//   1. A slot already taken answers "already scheduled" with its job, before the gate:
//      a duplicate is not a new admission, so it is answered even when the service is full.
//   2. Otherwise lesson 13's admission runs (the gate, the retries on a lock wait), with the
//      slot inserted between the job and its event. Two calls for one new slot at once both
//      get past step 1; both insert a job; the second one's slot insert waits for the first
//      transaction and then fails with 1062 (duplicate key). Its WHOLE transaction rolls
//      back (its job and event with it), and only then is the slot read again: "already
//      scheduled". A duplicate-key error is never caught inside the transaction and
//      committed around, which is what would leave an extra job behind.
//
// The export itself goes to exports.bulk, whatever its size: a periodic full export is bulk
// work, and the fast queue carries the periodic SIGNAL (see tick.ts).
import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { errnoOf, ER_DUP_ENTRY } from '@tasks-lab/11-mysql-leases';
import { admitExport, BULK_QUEUE, type AdmissionRules } from '@tasks-lab/13-admission';
import { FIND_SLOT, INSERT_SLOT } from './slot-queries.ts';
import { checkSlotKey } from './slot-keys.ts';

export type ScheduleResult =
  | { status: 'scheduled'; slotKey: string; jobId: string; eventId: string }
  | { status: 'already-scheduled'; slotKey: string; jobId: string };

export interface ScheduleOnceOptions {
  rules?: Partial<AdmissionRules>;
  deadlineMs?: number;
}

export async function scheduleOnce(
  pool: Pool,
  slotKey: string,
  productIds: readonly number[],
  options: ScheduleOnceOptions = {},
): Promise<ScheduleResult> {
  checkSlotKey(slotKey);
  const earlier = await jobOfSlot(pool, slotKey);
  if (earlier) return { status: 'already-scheduled', slotKey, jobId: earlier };
  try {
    const admitted = await admitExport(pool, productIds, {
      rules: options.rules,
      deadlineMs: options.deadlineMs,
      queueName: BULK_QUEUE,
      afterJobInsert: async (tx, jobId) => {
        const [inserted] = await tx.query<ResultSetHeader>(INSERT_SLOT, [slotKey, jobId]);
        if (inserted.affectedRows !== 1)
          throw new Error(`inserting slot ${slotKey} affected ${inserted.affectedRows} rows, expected 1`);
      },
    });
    return { status: 'scheduled', slotKey, jobId: admitted.jobId, eventId: admitted.eventId };
  } catch (err) {
    // The transaction has rolled back (job, slot and event): now the winner's slot is committed.
    if (errnoOf(err) === ER_DUP_ENTRY) {
      const winner = await jobOfSlot(pool, slotKey);
      if (winner) return { status: 'already-scheduled', slotKey, jobId: winner };
    }
    throw err;
  }
}

/** The job that holds `slotKey`, or undefined. */
export async function jobOfSlot(pool: Pick<Pool, 'query'>, slotKey: string): Promise<string | undefined> {
  const [rows] = await pool.query<RowDataPacket[]>(FIND_SLOT, [slotKey]);
  return rows[0] ? String(rows[0].job_id) : undefined;
}
