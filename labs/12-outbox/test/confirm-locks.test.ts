// What the publisher's confirmation locks, measured on the real server. It updates only the
// outbox row, yet while it runs the job's row is share-locked too: `sent_at` is a column of
// export_outbox_job_sent (job_id, sent_at), the index that serves the foreign key to
// export_jobs, and InnoDB checks the foreign key (a shared lock on the parent row, held to the
// end of the transaction) whenever that index's entry changes. Lesson 11's claim skips a
// locked row (SKIP LOCKED) and answers "nothing to claim": a wake-up that reaches a worker
// during a confirmation is lost, in lessons 12 to 14 too. Lesson 15's claim waits instead.
// The confirmation runs as one autocommit statement, so the window is that statement and its
// log flush; a transaction holds it open here so the test can look inside it.
import { statesThatMayMoveTo } from '@tasks-lab/01-state-machine';
import { LOCK_CLAIMABLE, seedProducts } from '@tasks-lab/11-mysql-leases';
import type { PoolConnection, RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from '../src/database.ts';
import { submitWithEvent } from '../src/outbox.ts';

let db: FreshDatabase | undefined;
beforeAll(async () => {
  db = await freshDatabase('confirmlocks', { connectionLimit: 4 });
  await seedProducts(db.pool, 10);
}, 60_000);
afterAll(() => db?.drop());

/** Whether lesson 11's claim (LOCK_CLAIMABLE, SKIP LOCKED) would see the job now, from its own transaction. */
async function claimSees(claimer: PoolConnection, jobId: string): Promise<boolean> {
  await claimer.query('BEGIN');
  try {
    const [rows] = await claimer.query<RowDataPacket[]>(LOCK_CLAIMABLE, [jobId, statesThatMayMoveTo('running'), 3]);
    return rows.length === 1;
  } finally {
    await claimer.query('ROLLBACK');
  }
}

/** Runs `sql` on the event inside an open transaction, asks the claimer, rolls back. */
async function claimSeesDuring(sql: string, eventId: string, jobId: string): Promise<boolean> {
  const [holder, claimer] = await Promise.all([db!.pool.getConnection(), db!.pool.getConnection()]);
  try {
    await holder.query('BEGIN');
    await holder.query(sql, [eventId]);
    return await claimSees(claimer, jobId);
  } finally {
    await holder.query('ROLLBACK');
    holder.release();
    claimer.release();
  }
}

describe("the confirmation and the job's row", () => {
  it("When an outbox row's sent_at is being set (the confirmation), Then lesson 11's SKIP LOCKED claim does not see its queued job: the foreign key's index changed, so the job row is share-locked [test:confirm-share-locks-job-row]", async () => {
    const { jobId, eventId } = await submitWithEvent(db!.pool, [1]);
    const claimer = await db!.pool.getConnection();
    try {
      expect(await claimSees(claimer, jobId)).toBe(true); // nothing held: the job is claimable
    } finally {
      claimer.release();
    }
    expect(await claimSeesDuring('UPDATE export_outbox SET sent_at = NOW(6) WHERE id = ?', eventId, jobId)).toBe(false);
  });

  it("When a column outside the foreign key's index is updated (claimed_until, last_error), Then the job row stays free to claim [test:outbox-update-outside-fk-index-no-lock]", async () => {
    const { jobId, eventId } = await submitWithEvent(db!.pool, [2]);
    expect(await claimSeesDuring('UPDATE export_outbox SET claimed_until = NULL WHERE id = ?', eventId, jobId)).toBe(
      true,
    );
    expect(await claimSeesDuring('UPDATE export_outbox SET last_error = NULL WHERE id = ?', eventId, jobId)).toBe(true);
  });
});
