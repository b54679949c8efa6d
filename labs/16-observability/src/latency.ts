// Lesson 16's first decision: targets for starting and completing a job, measured. For each
// queue, over a recent window, the p50, p95 and p99 of
//
//   start    submit -> first claim      created_at -> first_claimed_at (migration 002)
//   finish   submit -> terminal state   created_at -> updated_at of a succeeded, failed or cancelled job
//
// and, beside them, the jobs still WAITING for that stage (never claimed; not yet terminal) and
// the oldest one's age. The verdict compares both with the stage's target: a queue where nothing
// starts has no slow start to show, only a job that has waited too long, and must not look healthy.
// (Accepting has its own target: an accepted job's event must reach the broker within
// UNPUBLISHED_ALERT_MS, src/alerts.ts. Recovery has its budgets, src/matrix/budget.ts.)
//
// Computed from the database's timestamps whenever GET /monitoring or GET /metrics is read,
// because the API process does not see the claims: the workers make them, in other processes.
// The rows are bounded (the LATENCY_ROW_LIMIT most recent per stage) and the percentiles are
// computed here, in TypeScript: MariaDB 10.11 has PERCENTILE_CONT as a window function only and
// MySQL 8.4 has none, so no percentile SQL runs on both.
//
// The first claim is written by the claim itself: lesson 16's workers claim with lesson 11's
// CLAIM plus one more assignment (CLAIM_RECORDING_FIRST, below), so first_claimed_at is the
// claim's own instant (the NOW(6) its lease is counted from), committed with the claim or not at
// all. A later claim keeps the first (COALESCE).
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { isTerminal, JOB_STATES } from '@tasks-lab/01-state-machine';
import { microseconds } from '@tasks-lab/11-mysql-leases';
import { BULK_QUEUE, FAST_QUEUE } from '@tasks-lab/13-admission';
import { claimInOneUpdate, type ClaimAttempt, type ClaimOptions } from '@tasks-lab/15-recovery';
import { percentile } from '@tasks-lab/lab-kit';
import type { MonitoringSettings } from './monitoring-targets.ts';

const TERMINAL_STATES = JOB_STATES.filter((state) => isTerminal(state));
const ACTIVE_STATES = JOB_STATES.filter((state) => !isTerminal(state));

// ---- the first claim -------------------------------------------------------------

/**
 * Lesson 11's CLAIM, word for word, with one more assignment: the job's first claim, at this
 * claim's instant, unless an earlier claim recorded one (COALESCE). One statement: the claim and
 * its record commit together, so no claim is left without it (a separate UPDATE after the claim
 * cost a statement per export, and a worker killed between the two left none).
 * test:claim-recording-first-is-lesson-11s compares it with CLAIM.
 * Affected rows: 1 = claimed. Parameters: CLAIM's.
 */
export const CLAIM_RECORDING_FIRST = `
  UPDATE export_jobs
  SET status = 'running', attempts = attempts + 1, lease_token = ?,
      lease_until = TIMESTAMPADD(MICROSECOND, ?, NOW(6)), error_code = NULL, updated_at = NOW(6),
      first_claimed_at = COALESCE(first_claimed_at, NOW(6))
  WHERE id = ? AND status IN (?) AND cancel_requested = FALSE
    AND attempts < ? AND deadline_at > NOW(6) AND next_attempt_at <= NOW(6)`;

type Claim = (pool: Pool, jobId: string, options: ClaimOptions) => Promise<ClaimAttempt>;

/** A claim (lesson 15's, of either form) whose UPDATE also records the job's first claim: lesson 16's workers use it. */
export function recordingFirstClaim(claim: Claim = claimInOneUpdate): Claim {
  return (pool, jobId, options) => claim(pool, jobId, { ...options, claimStatement: CLAIM_RECORDING_FIRST });
}

// ---- the queries -----------------------------------------------------------------

/** A job's queue: every event of a job goes to the queue chosen at its admission (lesson 13). */
const QUEUE_OF_JOB = `(SELECT MIN(o.queue_name) FROM export_outbox AS o WHERE o.job_id = j.id)`;

/**
 * Submit -> first claim of the jobs first claimed in the window, newest first.
 * Rows: 0 to limit. Parameters: [windowMicros, limit]. Index (first_claimed_at, id), migration 002.
 */
export const START_LATENCIES = `
  SELECT ${QUEUE_OF_JOB} AS queue_name,
         TIMESTAMPDIFF(MICROSECOND, j.created_at, j.first_claimed_at) AS micros
  FROM export_jobs AS j
  WHERE j.first_claimed_at >= TIMESTAMPADD(MICROSECOND, -?, NOW(6))
  ORDER BY j.first_claimed_at DESC, j.id DESC
  LIMIT ?`;

/**
 * Submit -> terminal state of the jobs that became terminal in the window, newest first (updated_at
 * is the terminal instant: nothing updates a terminal row). Rows: 0 to limit.
 * Parameters: [terminalStates, windowMicros, limit]. Index (status, updated_at, id), lesson 15.
 */
export const FINISH_LATENCIES = `
  SELECT ${QUEUE_OF_JOB} AS queue_name,
         TIMESTAMPDIFF(MICROSECOND, j.created_at, j.updated_at) AS micros
  FROM export_jobs AS j
  WHERE j.status IN (?) AND j.updated_at >= TIMESTAMPADD(MICROSECOND, -?, NOW(6))
  ORDER BY j.updated_at DESC, j.id DESC
  LIMIT ?`;

/**
 * Jobs still waiting for their first claim (queued, never claimed), per queue, and how long the
 * oldest has waited in seconds (NULL never happens: a group has rows). Rows: one per queue that
 * has some. Parameters: none. Index (status, created_at, id), lesson 11.
 */
export const START_WAITING = `
  SELECT w.queue_name, COUNT(*) AS waiting,
         TIMESTAMPDIFF(MICROSECOND, MIN(w.created_at), NOW(6)) / 1000000 AS oldest_seconds
  FROM (SELECT ${QUEUE_OF_JOB} AS queue_name, j.created_at
        FROM export_jobs AS j
        WHERE j.status = 'queued' AND j.first_claimed_at IS NULL) AS w
  GROUP BY w.queue_name
  ORDER BY w.queue_name`;

/**
 * Jobs not yet terminal (queued or running), per queue, and the oldest one's age in seconds.
 * Rows: one per queue that has some. Parameters: [activeStates]. Index (status, created_at, id).
 */
export const FINISH_WAITING = `
  SELECT w.queue_name, COUNT(*) AS waiting,
         TIMESTAMPDIFF(MICROSECOND, MIN(w.created_at), NOW(6)) / 1000000 AS oldest_seconds
  FROM (SELECT ${QUEUE_OF_JOB} AS queue_name, j.created_at
        FROM export_jobs AS j
        WHERE j.status IN (?)) AS w
  GROUP BY w.queue_name
  ORDER BY w.queue_name`;

// ---- the report ------------------------------------------------------------------

export type LatencyStageName = 'start' | 'finish';
export type LatencyVerdict = 'within-target' | 'over-target' | 'no-jobs';

/** One queue's latencies for one stage. Seconds, rounded to the millisecond; null when there is nothing to measure. */
export interface QueueLatency {
  queue: string;
  /** Jobs that reached the stage in the window (at most the row limit, for all queues together). */
  jobs: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  /** Jobs that have not reached the stage yet, whatever their age. */
  waiting: number;
  oldestWaitingSeconds: number | null;
  /** over-target: the p95, or the oldest waiting job, is past the target. */
  verdict: LatencyVerdict;
}

export interface StageLatency {
  stage: LatencyStageName;
  /** Every stage is measured from the submit (the job's created_at) to this. */
  to: 'first claim' | 'terminal state';
  targetSeconds: number;
  /** True when the read reached the row limit: the percentiles cover the most recent jobs only. */
  truncated: boolean;
  /** The two queues of lesson 13 always (fast first), then any other the rows name. */
  queues: QueueLatency[];
}

export interface LatencyReport {
  windowSeconds: number;
  stages: StageLatency[];
}

export type LatencySettings = Pick<
  MonitoringSettings,
  'startTargetMs' | 'finishTargetMs' | 'latencyWindowMs' | 'latencyRowLimit'
>;

/** A job whose events are all gone (it has no route any more) is grouped under this name. */
export const UNROUTED = 'unrouted';

const roundedSeconds = (seconds: number): number => Math.round(seconds * 1000) / 1000;

// The percentiles are nearest-rank (the smallest value with at least q of them at or below it;
// null for none): the lab kit's one definition, which the benchmarks' p50 and p99 use too.
export { percentile };

/** The verdict of one queue: the p95 and the oldest waiting job against the target. */
export function latencyVerdict(latency: Omit<QueueLatency, 'verdict'>, targetSeconds: number): LatencyVerdict {
  if (latency.jobs === 0 && latency.waiting === 0) return 'no-jobs';
  const over = (seconds: number | null) => seconds !== null && seconds > targetSeconds;
  return over(latency.p95) || over(latency.oldestWaitingSeconds) ? 'over-target' : 'within-target';
}

const queueOf = (row: RowDataPacket): string =>
  row.queue_name === null || row.queue_name === undefined ? UNROUTED : String(row.queue_name);

/** One stage from its rows: the durations (µs) of the jobs that reached it, and the waiting ones per queue. */
export function stageLatency(
  stage: Pick<StageLatency, 'stage' | 'to'>,
  targetSeconds: number,
  done: readonly RowDataPacket[],
  waiting: readonly RowDataPacket[],
  rowLimit: number,
): StageLatency {
  const durations = new Map<string, number[]>();
  for (const row of done) {
    const queue = queueOf(row);
    durations.set(queue, [...(durations.get(queue) ?? []), Number(row.micros) / 1_000_000]);
  }
  const waitingByQueue = new Map(
    waiting.map((row) => [queueOf(row), { count: Number(row.waiting), oldest: Number(row.oldest_seconds) }]),
  );
  const names = [...new Set([FAST_QUEUE, BULK_QUEUE, ...durations.keys(), ...waitingByQueue.keys()])];
  const queues = names.map((queue): QueueLatency => {
    const sorted = (durations.get(queue) ?? []).sort((a, b) => a - b);
    const at = (q: number) => {
      const value = percentile(sorted, q);
      return value === null ? null : roundedSeconds(value);
    };
    const wait = waitingByQueue.get(queue);
    const measured = {
      queue,
      jobs: sorted.length,
      p50: at(0.5),
      p95: at(0.95),
      p99: at(0.99),
      waiting: wait?.count ?? 0,
      oldestWaitingSeconds: wait ? roundedSeconds(wait.oldest) : null,
    };
    return { ...measured, verdict: latencyVerdict(measured, targetSeconds) };
  });
  return { stage: stage.stage, to: stage.to, targetSeconds, truncated: done.length >= rowLimit, queues };
}

/** Reads both stages (four queries, in parallel on the pool; plain reads, no lock). */
export async function readLatency(pool: Pool, settings: LatencySettings): Promise<LatencyReport> {
  const window = microseconds(settings.latencyWindowMs);
  const limit = settings.latencyRowLimit;
  const [[started], [finished], [notStarted], [notFinished]] = await Promise.all([
    pool.query<RowDataPacket[]>(START_LATENCIES, [window, limit]),
    pool.query<RowDataPacket[]>(FINISH_LATENCIES, [TERMINAL_STATES, window, limit]),
    pool.query<RowDataPacket[]>(START_WAITING),
    pool.query<RowDataPacket[]>(FINISH_WAITING, [ACTIVE_STATES]),
  ]);
  return {
    windowSeconds: settings.latencyWindowMs / 1000,
    stages: [
      stageLatency({ stage: 'start', to: 'first claim' }, settings.startTargetMs / 1000, started, notStarted, limit),
      stageLatency(
        { stage: 'finish', to: 'terminal state' },
        settings.finishTargetMs / 1000,
        finished,
        notFinished,
        limit,
      ),
    ],
  };
}

/** The report as a few lines for people. */
export function formatLatency(report: LatencyReport): string[] {
  const s = (seconds: number | null) => (seconds === null ? '-' : `${seconds} s`);
  return report.stages.flatMap((stage) =>
    stage.queues.map(
      (q) =>
        `${stage.stage} (submit -> ${stage.to}, target ${stage.targetSeconds} s) ${q.queue}: ${q.jobs} jobs, p50 ${s(q.p50)}, p95 ${s(q.p95)}, p99 ${s(q.p99)}; ` +
        `${q.waiting} waiting, oldest ${s(q.oldestWaitingSeconds)}: ${q.verdict}`,
    ),
  );
}
