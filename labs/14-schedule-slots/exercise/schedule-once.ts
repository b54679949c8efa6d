// Try it yourself (lesson 14): two producers call scheduleOnce for the same, new slot at the
// same moment; exactly one of them may create the job. Both read "no such slot", both
// insert a job, and the second one's slot INSERT waits for the first transaction, then
// fails with 1062 (duplicate key). lesson 13's admitExport has rolled the loser's whole
// transaction back (its job and its event too) by the time the error reaches you here.
// Check your answer: pnpm -w lab 14 --exercise   (hint: pnpm -w lab 14 --hint)
import type { Pool, ResultSetHeader } from 'mysql2/promise';
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
  const admitted = await admitExport(pool, productIds, {
    queueName: BULK_QUEUE,
    afterJobInsert: async (tx, jobId) => {
      await tx.query<ResultSetHeader>(INSERT_SLOT, [slotKey, jobId]);
    },
  });
  // TODO: the loser of the race gets an error with errno 1062 here (errnoOf and ER_DUP_ENTRY
  //       come from '@tasks-lab/11-mysql-leases'). Its transaction is already rolled back:
  //       read the slot again and answer 'already-scheduled' with the winner's job. Rethrow
  //       anything else.
  return { status: 'scheduled', slotKey, jobId: admitted.jobId, eventId: admitted.eventId };
}
