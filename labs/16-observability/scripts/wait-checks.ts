// Lesson 16's fifth learning check, both halves: a job that waits is bounded by a PERSISTED
// time (its next_attempt_at, in the row) and by its DEADLINE (deadline_at, in the row too).
//
//   wait-bounded-by-deadline   one queued job, on a fresh database:
//     1. its next attempt set 10 s ahead (the retry backoff, written in the row): a claim gets
//        nothing and a scan leaves it alone: it waits, and the deadline is still 10 min away;
//     2. its deadline moved behind it, and its next attempt made due (two named UPDATEs): the
//        wait is over, yet a claim still gets nothing: a claim refuses a job past its deadline;
//     3. one scanner batch ends it: failed (deadline_exceeded), one dead letter, out of the
//        admission gate; no claim ever took it (attempts 0).
//
// Why times are moved by UPDATEs and not by waiting: step 1's "not yet" must never race a short
// timer (CONTRIBUTING §3), so the backoff is long and the deadline the course's 10 minutes, and
// step 2 ends both by named statements. The matrix's duplicate-during-backoff row shows the
// persisted-time half against two duplicate claims; this check adds the deadline half.
//
// buildWaitChecks(deps) starts nothing; deps swap in a broken claim or scanner batch for the
// can-fail tests (test/wait-checks.can-fail.test.ts).
import { COURSE_RULES, readGateCounter } from '@tasks-lab/13-admission';
import { defineCheck, outcome, SECOND, withResources, type Check } from '@tasks-lab/lab-kit';
import { microseconds, readJob } from '@tasks-lab/11-mysql-leases';
import {
  claimInOneUpdate,
  READ_DEAD_LETTER,
  recoverBatch,
  SET_NEXT_ATTEMPT_AHEAD,
  type ClaimFn,
  type RecoverBatch,
  type RecoveryReport,
} from '@tasks-lab/15-recovery';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { freshDatabase } from '../src/database.ts';
import { readShortObservabilityOptions, type ObservabilityOptionValues } from '../src/options.ts';
import { admitTraced } from '../src/trace-context.ts';

/** The parts whose deadline bound the check shows: the worker's claim and the scanner's batch. */
export interface WaitParts {
  claim: ClaimFn;
  recoverBatch: RecoverBatch;
}

export const WAIT_PARTS: WaitParts = { claim: claimInOneUpdate, recoverBatch };

export interface WaitCheckDeps {
  /** Broken parts (the can-fail tests); the rest stay the lab's. */
  waitParts?: Partial<WaitParts>;
  /** @defaultValue the short timings (readShortObservabilityOptions) */
  waitTimings?: ObservabilityOptionValues;
}

/** The backoff the check writes: long, so that step 1's "not yet" cannot race it. */
export const WAIT_BACKOFF_AHEAD_MS = 10 * SECOND;
/** The job's deadline at submission: the course's 10 minutes. */
export const WAIT_DEADLINE_MS = 10 * 60 * SECOND;

/**
 * The deadline moved `?` µs into the past: the drill's clock, on the check's own job only.
 * Affected rows: 1. Parameters: [micros, jobId].
 */
export const MOVE_DEADLINE_BEHIND = `
  UPDATE export_jobs
  SET deadline_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6))
  WHERE id = ?`;

/** What the backoff step saw. */
interface StepSeen {
  claim: string;
  scan: string;
  status: string;
  attempts: number;
}

export interface WaitEvidence {
  jobId: string;
  /** next_attempt_at as the row holds it, ms ahead of the server's clock when read back. */
  persistedAheadMs: number | null;
  duringBackoff: StepSeen;
  pastDeadline: { claim: string };
  afterScan: { scan: string; status: string; attempts: number; errorCode: string | null; deadLetters: string[] };
  gate: { before: number; after: number };
}

/** The job's next attempt, ms ahead of the server's NOW(6). Rows returned: 1. Parameters: [jobId]. */
export const READ_NEXT_ATTEMPT_AHEAD = `
  SELECT TIMESTAMPDIFF(MICROSECOND, NOW(6), next_attempt_at) AS ahead_us
  FROM export_jobs
  WHERE id = ?`;

function scanText(report: RecoveryReport | Error, jobId: string): string {
  if (report instanceof Error) return `the batch failed: ${report.message.slice(0, 100)}`;
  for (const kind of ['requeued', 'redispatched', 'cancelled', 'failed'] as const) {
    const job = report[kind].find((j) => j.jobId === jobId);
    if (job) return `${kind} (${job.reason})`;
  }
  return 'untouched';
}

async function waitScenario(deps: WaitCheckDeps, signal: AbortSignal): Promise<WaitEvidence> {
  const parts = { ...WAIT_PARTS, ...deps.waitParts };
  const t = deps.waitTimings ?? readShortObservabilityOptions({});
  return withResources(signal, async (res) => {
    const { pool } = res.add(await freshDatabase('waits', { settings: t }), (d) => d.drop());
    const claim = async (jobId: string) => {
      const attempt = await parts.claim(pool, jobId, { leaseMs: t.leaseMs, maxAttempts: t.maxAttempts });
      return attempt.outcome === 'claimed'
        ? `claimed (attempts ${attempt.job.attempts})`
        : attempt.outcome === 'busy'
          ? 'busy'
          : 'nothing';
    };
    const scan = async (jobId: string) => {
      const options = {
        batch: t.recoveryBatch,
        retryBackoffMs: t.retryBackoffMs,
        unclaimedThresholdMs: t.unclaimedThresholdMs,
        maxAttempts: t.maxAttempts,
      };
      return scanText(
        await parts
          .recoverBatch(pool, options)
          .catch((err: unknown) => (err instanceof Error ? err : new Error(String(err)))),
        jobId,
      );
    };
    const state = async (jobId: string) => {
      const row = await readJob(pool, jobId);
      return { status: row?.status ?? 'absent', attempts: row?.attempts ?? 0, errorCode: row?.errorCode ?? null };
    };

    const { jobId } = await admitTraced(pool, [1, 2], { rules: COURSE_RULES, deadlineMs: WAIT_DEADLINE_MS });
    const gateBefore = await readGateCounter(pool);
    // 1. The retry backoff, persisted in the row.
    await pool.query(SET_NEXT_ATTEMPT_AHEAD, [microseconds(WAIT_BACKOFF_AHEAD_MS), jobId]);
    const persistedAheadMs = await readAhead(pool, jobId);
    const claimDuring = await claim(jobId);
    const scanDuring = await scan(jobId);
    const during = await state(jobId);
    // 2. The deadline passes; the wait is over too (its next attempt due now).
    await pool.query(MOVE_DEADLINE_BEHIND, [microseconds(1), jobId]);
    await pool.query(SET_NEXT_ATTEMPT_AHEAD, [0, jobId]);
    const claimPast = await claim(jobId);
    // 3. The scanner ends what can no longer run.
    const scanPast = await scan(jobId);
    const after = await state(jobId);
    const [letters] = await pool.query<RowDataPacket[]>(READ_DEAD_LETTER, [jobId]);
    return {
      jobId,
      persistedAheadMs,
      duringBackoff: { claim: claimDuring, scan: scanDuring, status: during.status, attempts: during.attempts },
      pastDeadline: { claim: claimPast },
      afterScan: {
        scan: scanPast,
        status: after.status,
        attempts: after.attempts,
        errorCode: after.errorCode,
        deadLetters: letters.map((row) => String(row.reason)),
      },
      gate: { before: gateBefore, after: await readGateCounter(pool) },
    };
  });
}

async function readAhead(pool: Pool, jobId: string): Promise<number | null> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_NEXT_ATTEMPT_AHEAD, [jobId]);
  const us = rows[0]?.ahead_us;
  return us === undefined || us === null ? null : Math.round(Number(us) / 1000);
}

/** The judge: pure, on the evidence alone. */
export function judgeWait(e: WaitEvidence) {
  const d = e.duringBackoff;
  const a = e.afterScan;
  const found: string[] = [];
  let ok = true;
  const expect = (holds: boolean, seen: string, expected: string) => {
    found.push(holds ? seen : `${seen} (EXPECTED ${expected})`);
    ok &&= holds;
  };
  const ahead = e.persistedAheadMs;
  expect(
    ahead !== null && ahead > 0 && ahead <= WAIT_BACKOFF_AHEAD_MS,
    `next_attempt_at in the row: ${ahead === null ? 'none' : `${ahead} ms ahead`}`,
    `up to ${WAIT_BACKOFF_AHEAD_MS} ms ahead, persisted`,
  );
  expect(
    d.claim === 'nothing' && d.scan === 'untouched' && d.status === 'queued' && d.attempts === 0,
    `during the backoff: claim ${d.claim}, scan ${d.scan}, job ${d.status} (attempts ${d.attempts})`,
    'claim nothing, scan untouched, queued with attempts 0: it waits',
  );
  expect(
    e.pastDeadline.claim === 'nothing',
    `deadline passed, next attempt due: claim ${e.pastDeadline.claim}`,
    'nothing: a claim refuses a job past its deadline',
  );
  expect(
    a.scan === 'failed (deadline_exceeded)' &&
      a.status === 'failed' &&
      a.errorCode === 'deadline_exceeded' &&
      a.attempts === 0,
    `then the scan: ${a.scan}; job ${a.status} (${a.errorCode ?? 'no error code'}), attempts ${a.attempts}`,
    'failed (deadline_exceeded), never claimed: the deadline ends the wait',
  );
  expect(
    a.deadLetters.length === 1 && a.deadLetters[0] === 'deadline_exceeded',
    `dead letters: ${a.deadLetters.join(', ') || 'none'}`,
    'one, deadline_exceeded',
  );
  expect(
    e.gate.after === e.gate.before - 1,
    `gate counter ${e.gate.before} -> ${e.gate.after}`,
    'one less: the failed job left the gate',
  );
  return outcome(ok, `job ${e.jobId.slice(0, 8)}: ${found.join('; ')}`);
}

export function buildWaitChecks(deps: WaitCheckDeps = {}): Check[] {
  return [
    defineCheck<WaitEvidence>({
      id: 'wait-bounded-by-deadline',
      name: 'A waiting job is bounded twice: its persisted next_attempt_at holds claims and the scanner back, and once its deadline passes no claim takes it and the scanner fails it (deadline_exceeded) with a dead letter',
      timeoutMs: 30 * SECOND,
      scenario: (signal) => waitScenario(deps, signal),
      judge: judgeWait,
    }),
  ];
}
