// What the publisher's confirmation locks, measured on the real server. It updates only the
// outbox row. With the course's schema it share-locked the job's row too: `sent_at` was a
// column of export_outbox_job_sent (job_id, sent_at), the index serving the foreign key to
// export_jobs, and InnoDB checks the foreign key (a shared lock on the parent row, held to the
// end of the statement or transaction) whenever an entry of that index changes. Lesson 11's
// claim skips a locked row (SKIP LOCKED) as "nothing to claim", so a wake-up that reached a
// worker during a confirmation was lost. Migration 002 gives the key an index of its own.
// The confirmation runs as one autocommit statement; a transaction holds it open here so the
// test can look inside it.
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

/** Whether a SKIP LOCKED read (`sql`, the claim's shape) sees its row now, from a transaction of its own. */
async function claimSees(claimer: PoolConnection, sql: string, params: unknown[]): Promise<boolean> {
  await claimer.query('BEGIN');
  try {
    const [rows] = await claimer.query<RowDataPacket[]>(sql, params);
    return rows.length === 1;
  } finally {
    await claimer.query('ROLLBACK');
  }
}

/** Runs `update` inside an open transaction, asks the claimer, rolls back. */
async function claimSeesDuring(update: [string, unknown[]], claim: [string, unknown[]]): Promise<boolean> {
  const [holder, claimer] = await Promise.all([db!.pool.getConnection(), db!.pool.getConnection()]);
  try {
    await holder.query('BEGIN');
    await holder.query(...update);
    return await claimSees(claimer, ...claim);
  } finally {
    await holder.query('ROLLBACK');
    holder.release();
    claimer.release();
  }
}

const CONFIRM_ONE = 'UPDATE export_outbox SET sent_at = NOW(6), claimed_until = NULL WHERE id = ?';
const lessonElevenClaim = (jobId: string): [string, unknown[]] => [
  LOCK_CLAIMABLE,
  [jobId, statesThatMayMoveTo('running'), 3],
];

describe("the confirmation and the job's row", () => {
  it("When an event is being confirmed (its sent_at set), Then lesson 11's SKIP LOCKED claim still sees the queued job: the foreign key's index holds only job_id, and the confirmation does not change it [test:confirm-leaves-job-row-free]", async () => {
    const { jobId, eventId } = await submitWithEvent(db!.pool, [1]);
    expect(await claimSeesDuring([CONFIRM_ONE, [eventId]], lessonElevenClaim(jobId))).toBe(true);
  });

  it("When the foreign key's index also holds sent_at (the course's export_outbox_job_sent), Then setting sent_at share-locks the parent row and a SKIP LOCKED claim of it sees nothing: the lost wake-up migration 002 removed [test:course-fk-index-locks-job-row]", async () => {
    // The course's shape on two tables of the test's own: the child's only index on the key also holds sent_at.
    await db!.pool.query('CREATE TABLE course_jobs (id CHAR(36) NOT NULL, PRIMARY KEY (id)) ENGINE = InnoDB');
    await db!.pool.query(
      `CREATE TABLE course_outbox (id CHAR(36) NOT NULL, job_id CHAR(36) NOT NULL, sent_at DATETIME(6) NULL,
         PRIMARY KEY (id), KEY course_outbox_job_sent (job_id, sent_at),
         CONSTRAINT course_outbox_job_fk FOREIGN KEY (job_id) REFERENCES course_jobs (id)) ENGINE = InnoDB`,
    );
    await db!.pool.query("INSERT INTO course_jobs (id) VALUES ('job-1')");
    await db!.pool.query("INSERT INTO course_outbox (id, job_id) VALUES ('event-1', 'job-1')");
    const claim: [string, unknown[]] = ['SELECT id FROM course_jobs WHERE id = ? FOR UPDATE SKIP LOCKED', ['job-1']];
    const confirm: [string, unknown[]] = ['UPDATE course_outbox SET sent_at = NOW(6) WHERE id = ?', ['event-1']];
    expect(await claimSeesDuring(confirm, claim)).toBe(false);
    // A column outside that index locks nothing of the parent's.
    await db!.pool.query('ALTER TABLE course_outbox ADD COLUMN last_error VARCHAR(100) NULL');
    const note: [string, unknown[]] = ['UPDATE course_outbox SET last_error = NULL WHERE id = ?', ['event-1']];
    expect(await claimSeesDuring(note, claim)).toBe(true);
  });
});
