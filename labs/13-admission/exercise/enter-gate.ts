// Try it yourself (lesson 13): the counter gate's one step. A submission has inserted its
// job and its outbox event (its own rows, not committed yet); now, still inside the same
// transaction `tx`, it must pass the gate: the one row of export_admission_gate holds
// how many jobs are queued or running (active_jobs). At most `limit` may be.
// The course's exercise: set the limit to 5, submit from two producers at once, and check
// that queued + running never goes above 5.
// Check your answer: pnpm -w lab 13 --exercise   (hint: pnpm -w lab 13 --hint)
import type { PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';

const READ_COUNTER = `
  SELECT active_jobs
  FROM export_admission_gate
  WHERE id = 1`;
// TODO: two submissions can both read 4 here and both go on: make the read wait for the other's commit.

const ADD_ONE = `
  UPDATE export_admission_gate
  SET active_jobs = active_jobs + 1
  WHERE id = 1`;

/** Admits one job or throws CapacityExceededError (the transaction then rolls back). Returns the count before this job. */
export async function enterGate(tx: PoolConnection, limit: number): Promise<number> {
  const [rows] = await tx.query<RowDataPacket[]>(READ_COUNTER);
  const activeBefore = Number(rows[0]?.active_jobs);
  // TODO: refuse the job when the service is full: throw new CapacityExceededError(limit, activeBefore, 5)
  //       (import it from '../src/errors.ts'; the transaction, job and event included, then rolls back).
  await tx.query<ResultSetHeader>(ADD_ONE);
  return activeBefore;
}
