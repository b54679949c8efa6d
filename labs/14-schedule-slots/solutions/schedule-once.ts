// One answer to exercise/schedule-once.ts (lesson 14): let the unique key decide the race.
// The loser's transaction has rolled back (job and event included) before its 1062 reaches
// this catch; only then is the winner's slot read. Catching 1062 INSIDE the transaction and
// committing the rest would leave the loser's job behind, without a slot.
import type { Pool, ResultSetHeader } from 'mysql2/promise';
import { errnoOf, ER_DUP_ENTRY } from '@tasks-lab/11-mysql-leases';
import { admitExport, BULK_QUEUE } from '@tasks-lab/13-admission';
import { INSERT_SLOT } from '../src/slot-queries.ts';
import { jobOfSlot, type ScheduleResult } from '../src/schedule-once.ts';

export async function scheduleOnce(
  pool: Pool,
  slotKey: string,
  productIds: readonly number[],
): Promise<ScheduleResult> {
  const earlier = await jobOfSlot(pool, slotKey);
  if (earlier) return { status: 'already-scheduled', slotKey, jobId: earlier };
  try {
    const admitted = await admitExport(pool, productIds, {
      queueName: BULK_QUEUE,
      afterJobInsert: async (tx, jobId) => {
        await tx.query<ResultSetHeader>(INSERT_SLOT, [slotKey, jobId]);
      },
    });
    return { status: 'scheduled', slotKey, jobId: admitted.jobId, eventId: admitted.eventId };
  } catch (err) {
    if (errnoOf(err) !== ER_DUP_ENTRY) throw err;
    const winner = await jobOfSlot(pool, slotKey);
    if (!winner) throw err;
    return { status: 'already-scheduled', slotKey, jobId: winner };
  }
}
