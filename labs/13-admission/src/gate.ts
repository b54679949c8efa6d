// Lesson 13's admission gate, in two designs that keep the same promise: at every commit,
// the jobs queued or running never exceed the limit. Both take the same lock, on the one
// row of export_admission_gate; they differ in what they do while they hold it.
//
//   count    the course's: lock the gate, COUNT the queued and running jobs, then read the
//            snapshot and insert the job and its event; the lock is held through all of it.
//   counter  the lab's: read the snapshot and insert the job and its event FIRST (no lock
//            on anything shared), then lock the gate, read its counter, add one, commit.
//            The lock is held for two short statements and the COMMIT only.
//
// Why the counter is allowed to replace the COUNT: every entry adds one under the gate's
// lock in the admission's transaction, and every exit from queued/running takes one away
// under the same lock in the exit's own transaction (finishAndLeave below; lesson 15 adds
// cancel and fail). So at any commit the counter equals the COUNT, and the CHECK
// (active_jobs >= 0) refuses an exit that had no entry. Both designs keep the counter, so
// either can be switched on at any time (ADMISSION_GATE).
//
// Why the counter design may insert before it locks: READ COMMITTED, and the rows it
// inserted are its own and uncommitted, invisible to every other admission. If the gate
// says "full", the whole transaction rolls back: the job and its event were never there.
import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { statesThatMayMoveTo } from '@tasks-lab/01-state-machine';
import { FINISH, withTransaction } from '@tasks-lab/11-mysql-leases';
import type { SubmitSteps } from '@tasks-lab/12-outbox';
import {
  ACTIVE_STATES,
  COUNT_ACTIVE,
  COUNT_ACTIVE_OF_CLIENT,
  ENTER_GATE,
  FINISH_AND_LEAVE,
  LEAVE_GATE,
  LOCK_GATE,
  READ_GATE,
  SET_CLIENT,
} from './admission-queries.ts';
import { CapacityExceededError, ClientQuotaExceededError } from './errors.ts';
import type { FinishForm, GateDesign } from './options.ts';

export interface GateRules {
  /** Jobs that may be queued or running at once. */
  limit: number;
  /** Jobs one client may have queued or running; 0 = no quota. */
  clientQuota: number;
  retryAfterSeconds: number;
  /**
   * Write the client's name on the job. Needed when a quota counts it; otherwise only when the
   * request named a client (an anonymous request without a quota saves the statement).
   */
  recordClient: boolean;
}

/** What the gate read while it held the lock: the evidence a check judges. */
export interface GateReading {
  design: GateDesign;
  /** Queued + running jobs before this one, as the gate saw them under its lock. */
  activeBefore: number;
  limit: number;
  clientId: string;
  /** The client's queued + running jobs before this one (only with a quota). */
  clientActiveBefore?: number;
}

/**
 * The gate's steps for one admission, to run inside lesson 12's submission transaction
 * (submitWithEvent's `steps`). `seen` gets what the gate read, once it admitted the job;
 * the caller reports it only after the COMMIT.
 */
export function gateSteps(
  design: GateDesign,
  rules: GateRules,
  clientId: string,
  seen: (reading: GateReading) => void,
): SubmitSteps {
  return design === 'count' ? courseGate(rules, clientId, seen) : counterGate(rules, clientId, seen);
}

function courseGate(rules: GateRules, clientId: string, seen: (reading: GateReading) => void): SubmitSteps {
  let reading: GateReading | undefined;
  return {
    // Before the job's INSERT: lock, count, refuse or go on (the course's admit_export).
    beforeInsert: async (tx) => {
      await lockGate(tx);
      const activeBefore = await countOf(tx, COUNT_ACTIVE, [ACTIVE_STATES]);
      refuseWhenFull(activeBefore, rules);
      const clientActiveBefore =
        rules.clientQuota > 0 ? await countOf(tx, COUNT_ACTIVE_OF_CLIENT, [clientId, ACTIVE_STATES]) : undefined;
      refuseOverQuota(clientActiveBefore, clientId, rules);
      reading = { design: 'count', activeBefore, limit: rules.limit, clientId, clientActiveBefore };
    },
    // Still under the lock: name the client and keep the counter in step with the table.
    beforeCommit: async (tx, job) => {
      await setClient(tx, job.jobId, clientId, rules);
      await enterGate(tx);
      if (reading) seen(reading);
    },
  };
}

function counterGate(rules: GateRules, clientId: string, seen: (reading: GateReading) => void): SubmitSteps {
  return {
    // The job and its event are inserted (our own rows: nobody waits for them). Now the gate.
    beforeCommit: async (tx, job) => {
      await setClient(tx, job.jobId, clientId, rules);
      const activeBefore = await lockGate(tx);
      refuseWhenFull(activeBefore, rules);
      // Our own uncommitted row is counted too: the others are one fewer.
      const clientActiveBefore =
        rules.clientQuota > 0 ? (await countOf(tx, COUNT_ACTIVE_OF_CLIENT, [clientId, ACTIVE_STATES])) - 1 : undefined;
      refuseOverQuota(clientActiveBefore, clientId, rules);
      await enterGate(tx);
      seen({ design: 'counter', activeBefore, limit: rules.limit, clientId, clientActiveBefore });
    },
  };
}

function refuseWhenFull(activeBefore: number, rules: GateRules): void {
  if (activeBefore >= rules.limit) throw new CapacityExceededError(rules.limit, activeBefore, rules.retryAfterSeconds);
}

function refuseOverQuota(clientActiveBefore: number | undefined, clientId: string, rules: GateRules): void {
  if (clientActiveBefore !== undefined && clientActiveBefore >= rules.clientQuota)
    throw new ClientQuotaExceededError(clientId, rules.clientQuota, rules.retryAfterSeconds);
}

/** Locks the gate row (waits for the admission holding it) and returns its counter. */
export async function lockGate(tx: PoolConnection): Promise<number> {
  const [rows] = await tx.query<RowDataPacket[]>(LOCK_GATE);
  const row = rows[0];
  if (!row)
    throw new Error('the admission gate has no row: run the lab 13 migrations (`pnpm start` does) before submitting');
  return Number(row.active_jobs);
}

async function enterGate(tx: PoolConnection): Promise<void> {
  const [entered] = await tx.query<ResultSetHeader>(ENTER_GATE);
  if (entered.affectedRows !== 1) throw new Error('the admission gate has no row: run the lab 13 migrations');
}

async function setClient(tx: PoolConnection, jobId: string, clientId: string, rules: GateRules): Promise<void> {
  if (rules.recordClient) await tx.query<ResultSetHeader>(SET_CLIENT, [clientId, jobId]);
}

async function countOf(tx: PoolConnection, sql: string, params: unknown[]): Promise<number> {
  const [rows] = await tx.query<RowDataPacket[]>(sql, params);
  return Number(rows[0]?.n ?? 0);
}

/** The counter, read without a lock (monitoring, the checks). */
export async function readGateCounter(db: Pick<Pool, 'query'>): Promise<number> {
  const [rows] = await db.query<RowDataPacket[]>(READ_GATE);
  return Number(rows[0]?.active_jobs ?? Number.NaN);
}

/** How many jobs are queued or running, counted in the table (what the counter must equal). */
export async function countActiveJobs(db: Pick<Pool, 'query'>): Promise<number> {
  const [rows] = await db.query<RowDataPacket[]>(COUNT_ACTIVE, [ACTIVE_STATES]);
  return Number(rows[0]?.n ?? 0);
}

const FINISHABLE_STATES = statesThatMayMoveTo('succeeded');

/**
 * Lesson 11's finish, plus the exit from the gate: in ONE transaction, the job moves to
 * succeeded (only for the current holder, as before) and, if it did, the counter loses
 * one. Lock order: the job's row, then the gate's. `true` = published.
 */
export async function finishAndLeave(pool: Pool, jobId: string, token: string, resultRef: string): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    const [published] = await tx.query<ResultSetHeader>(FINISH, [resultRef, jobId, FINISHABLE_STATES, token]);
    if (published.affectedRows !== 1) return false;
    const [left] = await tx.query<ResultSetHeader>(LEAVE_GATE);
    if (left.affectedRows !== 1) throw new Error(NO_GATE_ROW);
    return true;
  });
}

const NO_GATE_ROW = 'the admission gate has no row: run the lab 13 migrations';

/**
 * The same finish and exit in one statement (FINISH_FORM=one-statement, the default): one round
 * trip instead of four (BEGIN, FINISH, LEAVE_GATE, COMMIT), and the gate's row lock held for one
 * statement. `true` = published. A finish that changed nothing reads the gate once, so that a
 * missing gate row is still an error and not a silent "not the holder".
 */
export async function finishAndLeaveInOneStatement(
  pool: Pool,
  jobId: string,
  token: string,
  resultRef: string,
): Promise<boolean> {
  const [changed] = await pool.query<ResultSetHeader>(FINISH_AND_LEAVE, [resultRef, jobId, FINISHABLE_STATES, token]);
  if (changed.affectedRows === 2) return true;
  if (changed.affectedRows !== 0)
    throw new Error(
      `finishing job ${jobId} changed ${changed.affectedRows} rows, expected 2 (the job and the gate) or 0`,
    );
  if (Number.isNaN(await readGateCounter(pool))) throw new Error(NO_GATE_ROW);
  return false;
}

/** The finish a FINISH_FORM names. */
export function finishOfForm(form: FinishForm): typeof finishAndLeave {
  return form === 'one-statement' ? finishAndLeaveInOneStatement : finishAndLeave;
}
