// One answer to exercise/enter-gate.ts (lesson 13): lock the gate row while reading it,
// refuse when full, add one. The lock is what makes "read, compare, add" one step: a
// second submission's FOR UPDATE waits until the first commits, then reads its new value.
import type { PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { CapacityExceededError } from '../src/errors.ts';

const READ_COUNTER = `
  SELECT active_jobs
  FROM export_admission_gate
  WHERE id = 1
  FOR UPDATE`;

const ADD_ONE = `
  UPDATE export_admission_gate
  SET active_jobs = active_jobs + 1
  WHERE id = 1`;

/** Admits one job or throws CapacityExceededError (the transaction then rolls back). Returns the count before this job. */
export async function enterGate(tx: PoolConnection, limit: number): Promise<number> {
  const [rows] = await tx.query<RowDataPacket[]>(READ_COUNTER);
  const activeBefore = Number(rows[0]?.active_jobs);
  if (activeBefore >= limit) throw new CapacityExceededError(limit, activeBefore, 5);
  await tx.query<ResultSetHeader>(ADD_ONE);
  return activeBefore;
}
