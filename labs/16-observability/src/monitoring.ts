// The course's step 2, "query the backlog, the leases and the failures", as six named queries
// and one typed snapshot. Each question has its own query, and together they answer "how
// many, how long, why" (the course's words):
//
//   1. jobs per status                      how many are in each state (every state listed, 0 if none)
//   2. unsent events, and the oldest's age  how long an accepted job has waited to reach the broker
//   3. expired leases                       running jobs whose holder is gone (the scanner's work)
//   4. failures per reason                  why jobs stopped being run (the dead letters)
//   5. queued jobs with no unsent event,    how long since their last dispatch (or their creation)
//      and the oldest one's dispatch age
//   6. the 20 oldest queued/running jobs    which ones to look at first
//
// An age with no rows behind it is NULL, never 0: MIN() over no rows is NULL, and "the oldest
// unsent event is 0 s old" would say there is one, just sent. The course insists on this;
// the parsing below keeps null as null (Number(null) would be 0: the very mistake).
//
// A queued job without an unsent event is NOT necessarily lost: its event was sent and a
// worker may be about to claim it, or its retry waits for next_attempt_at (the backoff), or
// the recovery scanner will redispatch it once it has been quiet for UNCLAIMED_THRESHOLD_MS.
// Read query 5 together with last_dispatched_at, the unclaimed threshold and next_attempt_at
// (query 6 shows both) before calling anything lost.
//
// GET /monitoring serves them as a report (readMonitoringReport, at the end): the six answers,
// then the outbox alert (src/alerts.ts) and the latency targets (src/latency.ts).
//
// Plain reads on the pool, no transaction and no lock: each query is one statement on its
// own snapshot (READ COMMITTED), so the six numbers may be a few milliseconds apart. A
// monitor must never make the service wait; one consistent snapshot is not worth a lock.
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { JOB_STATES, type JobState } from '@tasks-lab/01-state-machine';
import { outboxAlert, type AlertState } from './alerts.ts';
import { readLatency, type LatencyReport } from './latency.ts';
import type { MonitoringSettings } from './monitoring-targets.ts';

/** Query 1. Rows: one per status that has jobs. Parameters: none. */
export const COUNT_JOBS_BY_STATUS = `
  SELECT status, COUNT(*) AS total
  FROM export_jobs
  GROUP BY status`;

/**
 * Query 2: events not yet sent, and how old the oldest is, in seconds (microseconds / 1e6 so
 * that a 0.4 s wait is not rounded to 0). The age is NULL when no event is unsent.
 * Rows: exactly 1. Parameters: none. Lesson 12's (sent_at, created_at, id) index answers it.
 */
export const UNPUBLISHED_EVENTS = `
  SELECT COUNT(*) AS unpublished,
         TIMESTAMPDIFF(MICROSECOND, MIN(created_at), NOW(6)) / 1000000 AS oldest_unpublished_seconds
  FROM export_outbox
  WHERE sent_at IS NULL`;

/** Query 3: running jobs whose lease has passed. Rows: exactly 1. Parameters: none. Index (status, lease_until, id). */
export const EXPIRED_LEASES = `
  SELECT COUNT(*) AS expired_leases
  FROM export_jobs
  WHERE status = 'running' AND lease_until < NOW(6)`;

/** Query 4: failed jobs per dead-letter reason. Rows: one per reason. Parameters: none. */
export const FAILURES_BY_REASON = `
  SELECT reason, COUNT(*) AS failed
  FROM export_dead_letters
  GROUP BY reason
  ORDER BY reason`;

/**
 * Query 5: queued jobs with no unsent event, and the age of the oldest one's last dispatch
 * (its creation when it was never dispatched). The age is NULL when there is no such job.
 * Rows: exactly 1. Parameters: none.
 */
export const QUEUED_WITHOUT_PENDING = `
  SELECT COUNT(*) AS queued_without_pending,
         TIMESTAMPDIFF(MICROSECOND, MIN(COALESCE(j.last_dispatched_at, j.created_at)), NOW(6)) / 1000000 AS oldest_dispatch_age
  FROM export_jobs AS j
  WHERE j.status = 'queued'
    AND NOT EXISTS (SELECT 1 FROM export_outbox AS o WHERE o.job_id = j.id AND o.sent_at IS NULL)`;

/** How many jobs query 6 lists: the course's 20. */
export const OLDEST_ACTIVE_LIMIT = 20;

/**
 * Query 6: the oldest queued or running jobs, oldest first (the id breaks ties, so the list
 * is the same on every run). Rows: 0 to `limit`. Parameters: [limit].
 */
export const OLDEST_ACTIVE_JOBS = `
  SELECT id, status, attempts, next_attempt_at, last_dispatched_at
  FROM export_jobs
  WHERE status IN ('queued', 'running')
  ORDER BY created_at, id
  LIMIT ?`;

/** One of the oldest active jobs (query 6). Times are ISO strings (UTC), null when not set. */
export interface ActiveJobView {
  id: string;
  status: 'queued' | 'running';
  attempts: number;
  nextAttemptAt: string;
  lastDispatchedAt: string | null;
}

/** The six answers. Every age is in seconds, and null (never 0) when there is nothing to measure. */
export interface MonitoringSnapshot {
  /** Every status of lesson 01's state machine, 0 when no job is in it. */
  statusCounts: Record<JobState, number>;
  unpublished: { count: number; oldestAgeSeconds: number | null };
  expiredLeases: number;
  /** One entry per dead-letter reason, by reason. */
  failuresByReason: { reason: string; failed: number }[];
  queuedWithoutPending: { count: number; oldestDispatchAgeSeconds: number | null };
  /** The OLDEST_ACTIVE_LIMIT oldest queued or running jobs, oldest first. */
  oldestActive: ActiveJobView[];
}

/** A count column: COUNT(*) is never NULL, and arrives as a number (or a string for BIGINT). */
const count = (value: unknown): number => Number(value);

/**
 * An age column: a DECIMAL (mysql2 hands it over as a string) or NULL. NULL stays null:
 * `Number(null)` is 0, and 0 s is a claim that something is there.
 */
export function ageSeconds(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const seconds = Number(value);
  if (!Number.isFinite(seconds))
    throw new Error(`an age column held ${JSON.stringify(String(value).slice(0, 40))}, not a number`);
  return seconds;
}

const isoOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : new Date(value as Date).toISOString();

function statusCountsOf(rows: RowDataPacket[]): Record<JobState, number> {
  const counts = Object.fromEntries(JOB_STATES.map((status) => [status, 0])) as Record<JobState, number>;
  for (const row of rows) {
    const status = String(row.status);
    // The table's CHECK allows only lesson 01's states; anything else would be a new state nobody taught the monitor.
    if (!(JOB_STATES as readonly string[]).includes(status))
      throw new Error(`export_jobs holds a status the monitor does not know: ${JSON.stringify(status.slice(0, 20))}`);
    counts[status as JobState] = count(row.total);
  }
  return counts;
}

/** Runs the six queries (in parallel on the pool: each one borrows and returns its own connection). */
export async function readMonitoring(pool: Pool): Promise<MonitoringSnapshot> {
  const [[byStatus], [unpublished], [expired], [failures], [queued], [oldest]] = await Promise.all([
    pool.query<RowDataPacket[]>(COUNT_JOBS_BY_STATUS),
    pool.query<RowDataPacket[]>(UNPUBLISHED_EVENTS),
    pool.query<RowDataPacket[]>(EXPIRED_LEASES),
    pool.query<RowDataPacket[]>(FAILURES_BY_REASON),
    pool.query<RowDataPacket[]>(QUEUED_WITHOUT_PENDING),
    pool.query<RowDataPacket[]>(OLDEST_ACTIVE_JOBS, [OLDEST_ACTIVE_LIMIT]),
  ]);
  return {
    statusCounts: statusCountsOf(byStatus),
    unpublished: {
      count: count(unpublished[0]?.unpublished),
      oldestAgeSeconds: ageSeconds(unpublished[0]?.oldest_unpublished_seconds),
    },
    expiredLeases: count(expired[0]?.expired_leases),
    failuresByReason: failures.map((row) => ({ reason: String(row.reason), failed: count(row.failed) })),
    queuedWithoutPending: {
      count: count(queued[0]?.queued_without_pending),
      oldestDispatchAgeSeconds: ageSeconds(queued[0]?.oldest_dispatch_age),
    },
    oldestActive: oldest.map((row) => ({
      id: String(row.id),
      status: String(row.status) as ActiveJobView['status'],
      attempts: count(row.attempts),
      nextAttemptAt: new Date(row.next_attempt_at as Date).toISOString(),
      lastDispatchedAt: isoOrNull(row.last_dispatched_at),
    })),
  };
}

/** The snapshot as a few lines for people (a script, a drill's report). */
export function formatMonitoring(snapshot: MonitoringSnapshot): string[] {
  const age = (seconds: number | null) => (seconds === null ? 'none' : `${seconds.toFixed(1)} s`);
  const statuses = JOB_STATES.map((status) => `${status} ${snapshot.statusCounts[status]}`).join(', ');
  const failures = snapshot.failuresByReason.map((f) => `${f.reason} ${f.failed}`).join(', ') || 'none';
  return [
    `jobs: ${statuses}`,
    `unsent events: ${snapshot.unpublished.count}, oldest ${age(snapshot.unpublished.oldestAgeSeconds)}`,
    `expired leases: ${snapshot.expiredLeases}`,
    `failures by reason: ${failures}`,
    `queued without an unsent event: ${snapshot.queuedWithoutPending.count}, oldest dispatch ${age(snapshot.queuedWithoutPending.oldestDispatchAgeSeconds)} ago`,
  ];
}

// ---- what GET /monitoring serves -----------------------------------------------------

/**
 * The six answers, then what they are judged against: the outbox alert (lesson 12's second
 * decision, src/alerts.ts) and the start and finish latencies per queue against their targets
 * (lesson 16's first, src/latency.ts).
 */
export interface MonitoringReport extends MonitoringSnapshot {
  alerts: AlertState[];
  latency: LatencyReport;
}

/** The parts of the report (the can-fail fixtures pass broken ones). */
export interface MonitoringReportParts {
  readMonitoring: typeof readMonitoring;
  readLatency: typeof readLatency;
  outboxAlert: typeof outboxAlert;
}

export const REAL_REPORT_PARTS: MonitoringReportParts = { readMonitoring, readLatency, outboxAlert };

export async function readMonitoringReport(
  pool: Pool,
  settings: MonitoringSettings,
  parts: Partial<MonitoringReportParts> = {},
): Promise<MonitoringReport> {
  const use = { ...REAL_REPORT_PARTS, ...parts };
  const [snapshot, latency] = await Promise.all([use.readMonitoring(pool), use.readLatency(pool, settings)]);
  return { ...snapshot, alerts: [use.outboxAlert(snapshot, settings)], latency };
}
