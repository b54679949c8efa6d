// The experiments behind lesson 16's monitoring checks. Each one runs on a fresh database of
// its own, brings jobs to known states with the real parts (lesson 16's admitTraced, lesson
// 15's claimOrWait, deliverInChunks, requestCancel, recoverBatch and replayJob, lesson 13's
// finishAndLeave, lesson 14's scheduleOnce), and gathers evidence; scripts/monitoring-checks.ts
// judges it.
//
//   monitoringQueries   the six queries on an empty database (every age null), then on jobs
//                       in every state with known ages
//   metricsServed       GET /metrics of the real HTTP server against readMonitoring, and with
//                       its sources down
//   housekeeping        one pass over rows and files that must go and rows and files that must stay
//   terminalState       verifyTerminal on a really exported job, its file rewritten three ways,
//                       a failed job and two artifacts outside the folder
//   outboxAlertRaised   GET /monitoring's outbox alert for one unsent event, fresh, aged just
//                       under the threshold, then past it
//   latencyTargets      GET /monitoring's and GET /metrics' start and finish percentiles per
//                       queue for prompt jobs, then with one slow job added to exports.fast
//
// What cannot be waited for is set with named UPDATEs on the experiment's own rows (an event
// "sent 8 days ago", a job "untouched for 40 days") and utimes on its own files: the course's
// scripts age their rows the same way. Short waits are real (a 100 ms lease that expires).
// The parts a check may break (MonitoringParts) are passed in, so the can-fail tests run the
// same experiments with broken ones.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { redisOptions } from '@tasks-lab/infra';
import { sleep, withResources, type Resources } from '@tasks-lab/lab-kit';
import { openQueue } from '@tasks-lab/08-broker-worker';
import { artifactName, microseconds, readJob, seedProducts } from '@tasks-lab/11-mysql-leases';
import { openNudgeClient } from '@tasks-lab/12-outbox';
import { BULK_QUEUE, exportsAddress, FAST_QUEUE, finishAndLeave, scratchQueuePrefix } from '@tasks-lab/13-admission';
import { scheduleOnce } from '@tasks-lab/14-schedule-slots';
import {
  claimOrWait,
  deliverInChunks,
  MARK_EVENTS_SENT_AGO,
  MARK_JOB_DISPATCHED_AGO,
  recoverBatch,
  recoveryFaults,
  replayJob,
  requestCancel,
  writeArtifactInChunks,
} from '@tasks-lab/15-recovery';
import { OUTBOX_ALERT, outboxAlert, type AlertState } from '../src/alerts.ts';
import { freshDatabase, openJobsDatabase, type FreshDatabase } from '../src/database.ts';
import { runHousekeeping, type HousekeepingReport } from '../src/housekeeping.ts';
import { createMetrics, parseExposition, redisReady, sampleValue, type MetricSample } from '../src/metrics.ts';
import { readLatency, recordingFirstClaim, type LatencyReport } from '../src/latency.ts';
import { readMonitoring, type MonitoringReport, type MonitoringSnapshot } from '../src/monitoring.ts';
import { QUEUE_PREFIX, type ObservabilityOptionValues } from '../src/options.ts';
import type { MonitoringSettings } from '../src/monitoring-targets.ts';
import { createPhaseLogger } from '../src/phase-log.ts';
import { startServer } from '../src/server.ts';
import { verifyTerminal, type TerminalVerdict } from '../src/terminal-check.ts';
import { admitTraced } from '../src/trace-context.ts';

/** The parts a check may break; the lab's own are used otherwise. */
export interface MonitoringParts {
  readMonitoring: typeof readMonitoring;
  createMetrics: typeof createMetrics;
  runHousekeeping: typeof runHousekeeping;
  verifyTerminal: typeof verifyTerminal;
  /** How /monitoring reads the latencies. */
  readLatency: typeof readLatency;
  /** How /monitoring evaluates the outbox alert. */
  outboxAlert: typeof outboxAlert;
}

export const REAL_MONITORING_PARTS: MonitoringParts = {
  readMonitoring,
  createMetrics,
  runHousekeeping,
  verifyTerminal,
  readLatency,
  outboxAlert,
};

export interface MonitoringContext {
  parts: MonitoringParts;
  /** The short timings (lease, attempts) and the course's retentions (7 days, 30 days, 1 day of grace). */
  timings: ObservabilityOptionValues;
  /**
   * The alert threshold and the latency targets: the course-scale values (60 s, 60 s, 10 min),
   * since the experiments move time by named UPDATEs and never wait for them.
   */
  monitoring: MonitoringSettings;
}

const SECOND_MS = 1000;
const DAY_MS = 24 * 60 * 60 * SECOND_MS;

// ---- ageing an experiment's own rows (named, parameterised, by id) ------------------------

/** A job untouched for `?` µs. Affected rows: 1. Parameters: [micros, jobId]. */
export const AGE_JOB = `
  UPDATE export_jobs
  SET updated_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6))
  WHERE id = ?`;
/** One event, sent `?` µs ago. Parameters: [micros, eventId]. */
export const MARK_EVENT_SENT_AGO = `
  UPDATE export_outbox
  SET sent_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6)), claim_token = NULL, claimed_until = NULL
  WHERE id = ?`;
/** One event, created `?` µs ago and still unsent. Parameters: [micros, micros, eventId]. */
export const MARK_EVENT_CREATED_AGO = `
  UPDATE export_outbox
  SET created_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6)), available_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6))
  WHERE id = ?`;
/** A job's events, created `?` µs ago. Parameters: [micros, micros, jobId]. */
export const MARK_EVENTS_CREATED_AGO = `
  UPDATE export_outbox
  SET created_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6)), available_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6))
  WHERE job_id = ?`;
/** A job's unsent events, created `?` µs ago. Parameters: [micros, micros, jobId]. */
export const MARK_UNSENT_CREATED_AGO = `
  UPDATE export_outbox
  SET created_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6)), available_at = TIMESTAMPADD(MICROSECOND, -?, NOW(6))
  WHERE job_id = ? AND sent_at IS NULL`;
/** Every unsent event, sent now (what the publisher would do). Parameters: none. */
export const MARK_ALL_UNSENT_SENT = `
  UPDATE export_outbox
  SET sent_at = NOW(6), claim_token = NULL, claimed_until = NULL
  WHERE sent_at IS NULL`;
/** A job's events, oldest first. Rows: one per event. Parameters: [jobId]. */
export const EVENTS_OF_JOB = `
  SELECT id, sent_at
  FROM export_outbox
  WHERE job_id = ?
  ORDER BY created_at, id`;
/** Which of these rows exist. Parameters: [ids]. */
const EXISTING_JOBS = `SELECT id FROM export_jobs WHERE id IN (?)`;
const EXISTING_EVENTS = `SELECT id FROM export_outbox WHERE id IN (?)`;
const EXISTING_SLOTS = `SELECT slot_key FROM export_schedule_slots WHERE slot_key IN (?)`;
const EXISTING_DEAD_LETTERS = `SELECT job_id FROM export_dead_letters WHERE job_id IN (?)`;

// ---- the real parts, as the experiments use them ---------------------------------------

/** A fresh database of the experiment's own, dropped afterwards. */
async function freshExperimentDatabase(res: Resources, label: string): Promise<FreshDatabase> {
  return res.add(await freshDatabase(label), (d) => d.drop());
}

async function openExperiment(res: Resources, label: string): Promise<Pool> {
  return (await freshExperimentDatabase(res, label)).pool;
}

/** A folder of the experiment's own, removed afterwards. */
async function scratchFolder(res: Resources, label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `tasks-lab16-${label}-`));
  res.defer(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const admitted = async (pool: Pool, productIds: number[] = [1, 2], deadlineMs?: number): Promise<string> =>
  (await admitTraced(pool, productIds, { deadlineMs })).jobId;

async function claimed(
  pool: Pool,
  jobId: string,
  leaseMs: number,
  maxAttempts: number,
): Promise<{ token: string; snapshot: unknown[] }> {
  const attempt = await claimOrWait(pool, jobId, { leaseMs, maxAttempts });
  if (attempt.outcome !== 'claimed') throw new Error(`the experiment's claim of job ${jobId} got ${attempt.outcome}`);
  return { token: attempt.job.token, snapshot: attempt.job.snapshot };
}

/** A real export: lesson 15's delivery (claim, chunks with canContinue, finish). Returns the artifact's file name. */
async function exported(ctx: MonitoringContext, pool: Pool, jobId: string, artifactsDir: string): Promise<string> {
  const outcome = await deliverInChunks(
    { job_id: jobId },
    {
      pool,
      leaseMs: 30 * SECOND_MS,
      maxAttempts: ctx.timings.maxAttempts,
      artifactsDir,
      chunkRows: 2,
      faults: recoveryFaults({}),
    },
  );
  const row = await readJob(pool, jobId);
  if (!outcome.published || !row?.resultRef) throw new Error(`the experiment's export of job ${jobId} did not publish`);
  return row.resultRef;
}

/** Claims each job with a 100 ms lease and one attempt, lets the leases pass, and runs a recovery batch: failed, attempts_exhausted. */
async function failedByExpiry(pool: Pool, jobIds: readonly string[], signal: AbortSignal): Promise<void> {
  for (const jobId of jobIds) await claimed(pool, jobId, 100, 1);
  await sleep(200, signal);
  await recoverBatch(pool, { batch: 50, retryBackoffMs: 500, unclaimedThresholdMs: 60 * SECOND_MS, maxAttempts: 1 });
}

async function eventsOf(pool: Pool, jobId: string): Promise<string[]> {
  const [rows] = await pool.query<RowDataPacket[]>(EVENTS_OF_JOB, [jobId]);
  return rows.map((row) => String(row.id));
}

async function existing(pool: Pool, sql: string, ids: readonly string[], column: string): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const [rows] = await pool.query<RowDataPacket[]>(sql, [ids]);
  return new Set(rows.map((row) => String(row[column])));
}

/** A file written with the given mtime (a file "written days ago"). */
async function fileAged(path: string, content: string, ageMs: number): Promise<void> {
  await writeFile(path, content);
  await setAge(path, ageMs);
}

async function setAge(path: string, ageMs: number): Promise<void> {
  const when = new Date(Date.now() - ageMs);
  await utimes(path, when, when);
}

// ---------------------------------------------------------------------------------
// Rows in known states (the monitoring and the metrics experiments share them)

export interface KnownStates {
  /** What the six queries must answer about these rows. */
  expected: {
    statusCounts: Record<string, number>;
    unpublished: number;
    /** The aged unsent event's age: the oldest unsent age must be at least this. */
    unpublishedAgeSeconds: number;
    expiredLeases: number;
    failuresByReason: Record<string, number>;
    queuedWithoutPending: number;
    /** The dispatch age given to the one queued job without a pending event (its creation is recent). */
    dispatchAgeSeconds: number;
    /** The queued and running jobs, oldest first. */
    activeOldestFirst: string[];
  };
}

export const UNSENT_AGE_S = 120;
export const DISPATCH_AGE_S = 90;

/**
 * One job per state and per question: a cancelled one, two failed ones (attempts exhausted,
 * deadline passed), a succeeded one, a running one whose 100 ms lease passed, a queued one
 * dispatched 90 s ago with no unsent event, a queued one whose event has waited 120 s unsent.
 */
export async function putRowsInKnownStates(
  ctx: MonitoringContext,
  pool: Pool,
  artifactsDir: string,
  signal: AbortSignal,
): Promise<KnownStates> {
  // The jobs that end through the recovery scanner come first: its batch looks at every job.
  const cancelled = await admitted(pool);
  await requestCancel(pool, cancelled);
  await admitted(pool, [1, 2], 1); // a 1 ms deadline: the batch below fails it (deadline_exceeded)
  const exhausted = await admitted(pool);
  await sleep(5, signal); // the 1 ms deadline is behind us
  await failedByExpiry(pool, [exhausted], signal);
  const succeeded = await admitted(pool);
  await exported(ctx, pool, succeeded, artifactsDir);
  // Everything so far was "sent": only the queued job below keeps an unsent event.
  await pool.query(MARK_ALL_UNSENT_SENT);
  const running = await admitted(pool);
  await pool.query(MARK_EVENTS_SENT_AGO, [0, running]);
  await claimed(pool, running, 100, ctx.timings.maxAttempts);
  const dispatched = await admitted(pool);
  await pool.query(MARK_EVENTS_SENT_AGO, [microseconds(DISPATCH_AGE_S * SECOND_MS), dispatched]);
  await pool.query(MARK_JOB_DISPATCHED_AGO, [
    microseconds(DISPATCH_AGE_S * SECOND_MS),
    microseconds(DISPATCH_AGE_S * SECOND_MS),
    microseconds(DISPATCH_AGE_S * SECOND_MS),
    dispatched,
  ]);
  const waiting = await admitted(pool);
  await pool.query(MARK_UNSENT_CREATED_AGO, [
    microseconds(UNSENT_AGE_S * SECOND_MS),
    microseconds(UNSENT_AGE_S * SECOND_MS),
    waiting,
  ]);
  await sleep(150, signal); // the running job's 100 ms lease passes
  return {
    expected: {
      statusCounts: { queued: 2, running: 1, succeeded: 1, failed: 2, cancelled: 1 },
      unpublished: 1,
      unpublishedAgeSeconds: UNSENT_AGE_S,
      expiredLeases: 1,
      failuresByReason: { attempts_exhausted: 1, deadline_exceeded: 1 },
      queuedWithoutPending: 1,
      dispatchAgeSeconds: DISPATCH_AGE_S,
      activeOldestFirst: [running, dispatched, waiting],
    },
  };
}

// ---------------------------------------------------------------------------------
// 1. The six queries

export interface MonitoringQueriesEvidence {
  empty: MonitoringSnapshot;
  full: MonitoringSnapshot;
  expected: KnownStates['expected'];
}

export async function monitoringQueries(
  ctx: MonitoringContext,
  signal: AbortSignal,
): Promise<MonitoringQueriesEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openExperiment(res, 'monitor');
    const artifactsDir = await scratchFolder(res, 'monitor');
    const empty = await ctx.parts.readMonitoring(pool);
    const known = await putRowsInKnownStates(ctx, pool, artifactsDir, res.signal);
    const full = await ctx.parts.readMonitoring(pool);
    return { empty, full, expected: known.expected };
  });
}

// ---------------------------------------------------------------------------------
// 2. GET /metrics on the real HTTP server

export interface ScrapeSeen {
  status: number;
  contentType: string | null;
  samples: MetricSample[];
  /** Every UUID anywhere in the text (a job id, an event id, a token): there must be none. */
  uuids: string[];
}

export interface MetricsServedEvidence {
  /** A scrape of the empty database: no age sample (null is "nothing", not 0). */
  empty: ScrapeSeen;
  /** A scrape after the rows were put in known states and a BullMQ job (with a UUID id) was added. */
  full: ScrapeSeen;
  /** readMonitoring right after the scrape: what the numbers must be. */
  reference: MonitoringSnapshot;
  prefix: string;
  /** A scrape with the database pool closed and Redis unreachable. */
  down: ScrapeSeen;
}

const UUID_ANYWHERE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

async function scrape(url: string): Promise<ScrapeSeen> {
  const response = await fetch(`${url}/metrics`);
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    samples: parseExposition(text),
    uuids: [...new Set(text.match(UUID_ANYWHERE) ?? [])],
  };
}

/** A Redis client for a port nobody listens on: every command fails at once. */
function unreachableRedis(): Redis {
  const client = new Redis({
    ...redisOptions(),
    port: 1,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  return client;
}

export async function metricsServed(ctx: MonitoringContext, signal: AbortSignal): Promise<MetricsServedEvidence> {
  return withResources(signal, async (res) => {
    const { pool, name: database } = await freshExperimentDatabase(res, 'metrics');
    const artifactsDir = await scratchFolder(res, 'metrics');
    const prefix = scratchQueuePrefix(res, QUEUE_PREFIX);
    const redis = await redisReady(res.add(openNudgeClient(), (client) => client.disconnect()));
    const logger = createPhaseLogger({ component: 'api', level: 'silent' });
    const metrics = ctx.parts.createMetrics({ pool, redis, prefixes: [prefix] });
    const server = res.add(
      await startServer(0, { pool, nudge: async () => {}, redis, metrics, logger, log: () => {} }),
      (s) => s.close(),
    );
    const empty = await scrape(server.url);

    await putRowsInKnownStates(ctx, pool, artifactsDir, res.signal);
    // BullMQ keys whose names hold a UUID (the job id is an event id): the labels must not.
    const queue = res.add(await openQueue(exportsAddress(FAST_QUEUE, prefix)), (q) => q.close());
    await queue.add('export', { job_id: randomUUID() }, { jobId: randomUUID() });
    const full = await scrape(server.url);
    const reference = await readMonitoring(pool);

    // The same scrape with both sources down: a closed pool, a Redis nobody answers on.
    const closedPool = await openJobsDatabase({ database });
    await closedPool.end();
    const deadRedis = res.add(unreachableRedis(), (client) => client.disconnect());
    const downMetrics = ctx.parts.createMetrics({ pool: closedPool, redis: deadRedis, prefixes: [prefix] });
    const downServer = res.add(
      await startServer(0, { pool, nudge: async () => {}, metrics: downMetrics, logger, log: () => {} }),
      (s) => s.close(),
    );
    const down = await scrape(downServer.url);
    return { empty, full, reference, prefix, down };
  });
}

// ---------------------------------------------------------------------------------
// 3. Housekeeping prunes only what has expired

export type Fate = 'deleted' | 'kept';

export interface HousekeepingItem {
  /** What it is and why its fate is what it should be. */
  what: string;
  expected: Fate;
  actual: Fate;
}

export interface HousekeepingEvidence {
  items: HousekeepingItem[];
  report: HousekeepingReport;
  /** What the report must say. */
  expectedReport: { outboxDeleted: number; jobsDeleted: number; artifactsDeleted: number };
  retentions: { outboxRetentionMs: number; jobRetentionMs: number; artifactGraceMs: number; batch: number };
}

/** Rows per DELETE in this experiment: 2, so that every prune runs several rounds. */
export const HOUSEKEEPING_CHECK_BATCH = 2;

interface Tracked {
  what: string;
  expected: Fate;
  present: () => Promise<boolean>;
}

export async function housekeeping(ctx: MonitoringContext, signal: AbortSignal): Promise<HousekeepingEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openExperiment(res, 'housekeep');
    const artifactsDir = join(await scratchFolder(res, 'housekeep'), 'artifacts');
    await mkdir(artifactsDir);
    const { outboxRetentionMs, jobRetentionMs, artifactGraceMs } = ctx.timings;
    const old = jobRetentionMs + 10 * DAY_MS; // "40 days": past every retention
    const tracked: Tracked[] = [];
    const jobPresent = (jobId: string) => async () => (await existing(pool, EXISTING_JOBS, [jobId], 'id')).has(jobId);
    const eventPresent = (eventId: string) => async () =>
      (await existing(pool, EXISTING_EVENTS, [eventId], 'id')).has(eventId);
    const filePresent = (name: string) => async () => (await readdir(artifactsDir)).includes(name);
    const track = (what: string, expected: Fate, present: () => Promise<boolean>) =>
      tracked.push({ what, expected, present });

    // Two failed jobs (a dead letter each); one of them is replayed. First: the recovery batch sees every job.
    const oldFailed = await admitted(pool);
    const oldReplayed = await admitted(pool);
    await failedByExpiry(pool, [oldFailed, oldReplayed], res.signal);
    const replay = (await replayJob(pool, oldReplayed)).jobId;

    // A scheduled export (a slot), really exported; then one more export, recent.
    const slotKey = `housekeeping-check:${randomBytes(4).toString('hex')}`;
    const oldSucceeded = (await scheduleOnce(pool, slotKey, [1, 2])).jobId;
    const oldArtifact = await exported(ctx, pool, oldSucceeded, artifactsDir);
    const recentSucceeded = await admitted(pool);
    const recentArtifact = await exported(ctx, pool, recentSucceeded, artifactsDir);
    // A running job, its artifact being written right now (not finished yet).
    const running = await admitted(pool);
    const runningClaim = await claimed(pool, running, 30 * SECOND_MS, ctx.timings.maxAttempts);

    // Three queued jobs submitted 11 days ago, dispatched 10 days ago and never claimed: the
    // scanner gives each a second event (which the steps below age, none older than the first).
    const queued = [await admitted(pool), await admitted(pool), await admitted(pool)];
    for (const jobId of queued) {
      await pool.query(MARK_EVENTS_CREATED_AGO, [
        microseconds(outboxRetentionMs + 4 * DAY_MS),
        microseconds(outboxRetentionMs + 4 * DAY_MS),
        jobId,
      ]);
      await pool.query(MARK_EVENTS_SENT_AGO, [microseconds(outboxRetentionMs + 3 * DAY_MS), jobId]);
      await pool.query(MARK_JOB_DISPATCHED_AGO, [
        microseconds(outboxRetentionMs + 3 * DAY_MS),
        microseconds(outboxRetentionMs + 3 * DAY_MS),
        microseconds(outboxRetentionMs + 3 * DAY_MS),
        jobId,
      ]);
    }
    await recoverBatch(pool, {
      batch: 50,
      retryBackoffMs: 500,
      unclaimedThresholdMs: SECOND_MS,
      maxAttempts: ctx.timings.maxAttempts,
    });
    const [first0, second0] = await eventsOf(pool, queued[0]!);
    const [first1, second1] = await eventsOf(pool, queued[1]!);
    const [, second2] = await eventsOf(pool, queued[2]!);
    if (!first0 || !second0 || !first1 || !second1 || !second2)
      throw new Error('the recovery batch did not give each queued job a second event');
    await pool.query(MARK_EVENT_SENT_AGO, [microseconds(outboxRetentionMs + DAY_MS), second0]);
    await pool.query(MARK_EVENT_SENT_AGO, [microseconds(60 * SECOND_MS), second1]);
    await pool.query(MARK_EVENT_CREATED_AGO, [
      microseconds(outboxRetentionMs + 3 * DAY_MS),
      microseconds(outboxRetentionMs + 3 * DAY_MS),
      second2,
    ]);

    // Ages: the old terminal jobs (and the running one) untouched for 40 days.
    for (const jobId of [oldFailed, oldReplayed, oldSucceeded, running])
      await pool.query(AGE_JOB, [microseconds(old), jobId]);
    await setAge(join(artifactsDir, oldArtifact), old);
    await setAge(join(artifactsDir, recentArtifact), old);
    const orphanOld = `${randomUUID()}.${randomUUID()}.json`;
    const zombieOld = artifactName(recentSucceeded, randomUUID());
    const tempOld = `${artifactName(running, randomUUID())}.tmp-${randomBytes(6).toString('hex')}`;
    const freshOrphan = artifactName(running, runningClaim.token);
    const notOurs = 'README.txt';
    for (const name of [orphanOld, zombieOld, tempOld])
      await fileAged(join(artifactsDir, name), '[]\n', artifactGraceMs + DAY_MS);
    await fileAged(join(artifactsDir, notOurs), 'not an artifact\n', old);
    await writeArtifactInChunks(artifactsDir, freshOrphan, runningClaim.snapshot, {
      chunkRows: 2,
      canContinue: async () => true,
    });

    track("a sent event 8 days old (a job's second event)", 'deleted', eventPresent(second0));
    track('a sent event 1 minute old', 'kept', eventPresent(second1));
    track('an UNSENT event 10 days old', 'kept', eventPresent(second2));
    track("a job's first event, sent 10 days ago (its route)", 'kept', eventPresent(first0));
    track('a succeeded job untouched for 40 days', 'deleted', jobPresent(oldSucceeded));
    track('its time slot', 'deleted', async () =>
      (await existing(pool, EXISTING_SLOTS, [slotKey], 'slot_key')).has(slotKey),
    );
    track('a failed job untouched for 40 days', 'deleted', jobPresent(oldFailed));
    track('its dead letter', 'deleted', async () =>
      (await existing(pool, EXISTING_DEAD_LETTERS, [oldFailed], 'job_id')).has(oldFailed),
    );
    track('a failed job 40 days old that a kept replay names', 'kept', jobPresent(oldReplayed));
    track('the replay', 'kept', jobPresent(replay));
    track('a running job untouched for 40 days', 'kept', jobPresent(running));
    track('a recent succeeded job', 'kept', jobPresent(recentSucceeded));
    track("the pruned job's artifact (40 days old)", 'deleted', filePresent(oldArtifact));
    track("the recent job's artifact (40 days old, referenced)", 'kept', filePresent(recentArtifact));
    track('an unreferenced artifact 2 days old', 'deleted', filePresent(orphanOld));
    track("a zombie's artifact 2 days old (its job names another file)", 'deleted', filePresent(zombieOld));
    track('a temp file of an interrupted write, 2 days old', 'deleted', filePresent(tempOld));
    track('an unreferenced artifact written just now (its finish is yet to come)', 'kept', filePresent(freshOrphan));
    track('a file not named like an artifact', 'kept', filePresent(notOurs));

    const before = await Promise.all(tracked.map((t) => t.present()));
    if (before.some((present) => !present))
      throw new Error(
        `the experiment's set-up is missing: ${tracked
          .filter((_t, i) => !before[i])
          .map((t) => t.what)
          .join('; ')}`,
      );
    const options = { outboxRetentionMs, jobRetentionMs, artifactGraceMs, batch: HOUSEKEEPING_CHECK_BATCH };
    const report = await ctx.parts.runHousekeeping(pool, artifactsDir, options);
    const items: HousekeepingItem[] = [];
    for (const t of tracked)
      items.push({ what: t.what, expected: t.expected, actual: (await t.present()) ? 'kept' : 'deleted' });
    return {
      items,
      report,
      expectedReport: { outboxDeleted: 1, jobsDeleted: 2, artifactsDeleted: 4 },
      retentions: options,
    };
  });
}

// ---------------------------------------------------------------------------------
// 4. The terminal state matches the artifact

export interface TerminalCase {
  name: string;
  expected: TerminalVerdict['verdict'];
  /** A word the problems must mention (for the mismatches). */
  problemMentions?: string;
  verdict: TerminalVerdict;
}

export interface TerminalEvidence {
  cases: TerminalCase[];
}

/** The same products, written another way: keys in reverse order, 4-space indent, no final newline. */
export function reserialised(text: string): string {
  const rows = JSON.parse(text) as Record<string, unknown>[];
  return JSON.stringify(
    rows.map((row) => Object.fromEntries(Object.entries(row).reverse())),
    null,
    4,
  );
}

/** One value changed: the first product's price, one cent more. */
export function oneValueChanged(text: string): string {
  const rows = JSON.parse(text) as { price_cents: number }[];
  rows[0]!.price_cents += 1;
  return JSON.stringify(rows, null, 2) + '\n';
}

export async function terminalState(ctx: MonitoringContext, signal: AbortSignal): Promise<TerminalEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openExperiment(res, 'terminal');
    const root = await scratchFolder(res, 'terminal');
    const artifactsDir = join(root, 'artifacts');
    const outsideDir = join(root, 'outside');
    await mkdir(artifactsDir);
    await mkdir(outsideDir);
    const verify = (jobId: string) => ctx.parts.verifyTerminal(pool, jobId, artifactsDir);
    const cases: TerminalCase[] = [];
    const record = async (name: string, expected: TerminalCase['expected'], jobId: string, problemMentions?: string) =>
      cases.push({ name, expected, problemMentions, verdict: await verify(jobId) });

    // A job that fails first (the scanner's batch looks at every job): its deadline passes while queued.
    const failed = await admitted(pool, [1, 2], 1);
    await sleep(5, res.signal);
    await recoverBatch(pool, {
      batch: 50,
      retryBackoffMs: 500,
      unclaimedThresholdMs: 60 * SECOND_MS,
      maxAttempts: ctx.timings.maxAttempts,
    });

    const exportedJob = await admitted(pool, [1, 2, 3]);
    const fileName = await exported(ctx, pool, exportedJob, artifactsDir);
    const path = join(artifactsDir, fileName);
    const original = await readFile(path, 'utf8');
    await record('a really exported job (lesson 15 delivery, chunks of 2)', 'artifact-verified', exportedJob);
    await writeFile(path, reserialised(original));
    await record('the same file, keys reversed and indented by 4', 'artifact-verified', exportedJob);
    await writeFile(path, oneValueChanged(original));
    await record("the same file with one product's price changed", 'mismatch', exportedJob, 'price_cents');
    await writeFile(path, original);
    await record('a job failed by the scanner (deadline passed)', 'terminal-without-artifact', failed);

    // Two succeeded jobs whose result_ref leads out of the folder: `../outside/…`, and a symlink.
    for (const [name, viaSymlink] of [
      ["result_ref '../outside/<file>' (a correct file, outside the folder)", false],
      ['a symlink in the folder to a correct file outside it', true],
    ] as const) {
      const jobId = await admitted(pool, [1, 2]);
      const claim = await claimed(pool, jobId, 30 * SECOND_MS, ctx.timings.maxAttempts);
      const file = artifactName(jobId, claim.token);
      await writeArtifactInChunks(outsideDir, file, claim.snapshot, { chunkRows: 2, canContinue: async () => true });
      if (viaSymlink) await symlink(join(outsideDir, file), join(artifactsDir, file));
      if (!(await finishAndLeave(pool, jobId, claim.token, viaSymlink ? file : `../outside/${file}`)))
        throw new Error(`the experiment's finish of job ${jobId} was refused`);
      await record(name, 'mismatch', jobId, 'outside');
    }

    const queued = await admitted(pool);
    await record('a queued job', 'not-terminal', queued);
    await record('an id no job has', 'missing', randomUUID());
    return { cases };
  });
}

// ---------------------------------------------------------------------------------
// 5. The outbox alert (lesson 12's second decision)

export interface AlertReading {
  /** How old the one unsent event was made (null: as committed, just now). */
  agedSeconds: number | null;
  alert: AlertState | undefined;
  /** The gauge the Prometheus rule reads, from GET /metrics at the same moment. */
  gaugeSeconds: number | undefined;
}

export interface OutboxAlertEvidence {
  thresholdSeconds: number;
  readings: AlertReading[];
}

/** Below and above the threshold by this much: far more than a stalled step, so no read races the clock. */
export const ALERT_MARGIN_S = 30;

async function monitoringReport(url: string): Promise<MonitoringReport> {
  const response = await fetch(`${url}/monitoring`);
  if (response.status !== 200) throw new Error(`GET /monitoring answered ${response.status}`);
  return (await response.json()) as MonitoringReport;
}

async function scrapeSamples(url: string): Promise<MetricSample[]> {
  return (await scrape(url)).samples;
}

/** The API as the experiments read it: the report parts from the context, no Redis, no nudge listener. */
async function monitoringServer(ctx: MonitoringContext, res: Resources, pool: Pool): Promise<string> {
  const logger = createPhaseLogger({ component: 'api', level: 'silent' });
  const reportParts = { readLatency: ctx.parts.readLatency, outboxAlert: ctx.parts.outboxAlert };
  const server = res.add(
    await startServer(0, {
      pool,
      nudge: async () => {},
      logger,
      log: () => {},
      monitoringSettings: ctx.monitoring,
      reportParts,
    }),
    (s) => s.close(),
  );
  return server.url;
}

/**
 * One job, its event left unsent (nobody publishes here). /monitoring is read as committed, then
 * with the event made ALERT_MARGIN_S younger than the threshold, then that much older: by the
 * named UPDATE MARK_UNSENT_CREATED_AGO, never by waiting for the clock.
 */
export async function outboxAlertRaised(ctx: MonitoringContext, signal: AbortSignal): Promise<OutboxAlertEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openExperiment(res, 'alert');
    const url = await monitoringServer(ctx, res, pool);
    const thresholdSeconds = ctx.monitoring.unpublishedAlertMs / 1000;
    const jobId = await admitted(pool);
    const readings: AlertReading[] = [];
    for (const agedSeconds of [null, thresholdSeconds - ALERT_MARGIN_S, thresholdSeconds + ALERT_MARGIN_S]) {
      if (agedSeconds !== null)
        await pool.query(MARK_UNSENT_CREATED_AGO, [
          microseconds(agedSeconds * SECOND_MS),
          microseconds(agedSeconds * SECOND_MS),
          jobId,
        ]);
      const report = await monitoringReport(url);
      const gaugeSeconds = sampleValue(await scrapeSamples(url), 'tasks_lab_outbox_oldest_unpublished_seconds');
      readings.push({ agedSeconds, alert: report.alerts.find((alert) => alert.alert === OUTBOX_ALERT), gaugeSeconds });
    }
    return { thresholdSeconds, readings };
  });
}

// ---------------------------------------------------------------------------------
// 6. The latency targets (lesson 16's first decision)

/** A job submitted `?` µs earlier than it was, and claimed as promptly: created_at and its first claim move back together. Parameters: [micros, micros, jobId]. */
export const MOVE_SUBMIT_AND_FIRST_CLAIM_BACK = `
  UPDATE export_jobs
  SET created_at = TIMESTAMPADD(MICROSECOND, -?, created_at), first_claimed_at = TIMESTAMPADD(MICROSECOND, -?, first_claimed_at)
  WHERE id = ?`;

/** Prompt jobs per queue before the slow one: with 9 + 1 on exports.fast, the p95 (nearest rank) is the slowest job. */
export const PROMPT_JOBS = { [FAST_QUEUE]: 9, [BULK_QUEUE]: 2 } as const;
/** The slow job's submit -> terminal, past the finish target by this much. */
export const SLOW_BY_S = 120;

export interface LatencyEvidence {
  targets: { startSeconds: number; finishSeconds: number };
  slowSeconds: number;
  promptJobs: typeof PROMPT_JOBS;
  before: LatencyReport;
  after: LatencyReport;
  /** From GET /metrics right after `after`: exports.fast's finish p95 and its over-target flag. */
  metrics: { finishP95: number | undefined; overTarget: number | undefined; target: number | undefined };
}

/** 31 distinct products: lesson 13 routes more than 30 rows to exports.bulk. */
const BULK_PRODUCTS = Array.from({ length: 31 }, (_, i) => i + 1);

/** One job through the real parts: admitted, claimed (recording its first claim), optionally made slow, finished. */
async function runJob(ctx: MonitoringContext, pool: Pool, productIds: number[], slowByMs = 0): Promise<string> {
  const jobId = await admitted(pool, productIds);
  const claim = await recordingFirstClaim()(pool, jobId, {
    leaseMs: 30 * SECOND_MS,
    maxAttempts: ctx.timings.maxAttempts,
  });
  if (claim.outcome !== 'claimed') throw new Error(`the experiment's claim of job ${jobId} got ${claim.outcome}`);
  if (slowByMs > 0)
    await pool.query(MOVE_SUBMIT_AND_FIRST_CLAIM_BACK, [microseconds(slowByMs), microseconds(slowByMs), jobId]);
  if (!(await finishAndLeave(pool, jobId, claim.job.token, artifactName(jobId, claim.job.token))))
    throw new Error(`the experiment's finish of job ${jobId} was refused`);
  return jobId;
}

/**
 * Prompt jobs on both queues (claimed and finished at once), /monitoring read; then one job on
 * exports.fast that was claimed at once but finished SLOW_BY_S past the finish target (its submit
 * and first claim moved back by a named UPDATE), /monitoring and /metrics read again.
 */
export async function latencyTargets(ctx: MonitoringContext, signal: AbortSignal): Promise<LatencyEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openExperiment(res, 'latency');
    await seedProducts(pool, BULK_PRODUCTS.length);
    const url = await monitoringServer(ctx, res, pool);
    for (let i = 0; i < PROMPT_JOBS[FAST_QUEUE]; i += 1) await runJob(ctx, pool, [1, 2]);
    for (let i = 0; i < PROMPT_JOBS[BULK_QUEUE]; i += 1) await runJob(ctx, pool, BULK_PRODUCTS);
    const before = (await monitoringReport(url)).latency;
    const slowSeconds = ctx.monitoring.finishTargetMs / 1000 + SLOW_BY_S;
    await runJob(ctx, pool, [1, 2], slowSeconds * SECOND_MS);
    const after = (await monitoringReport(url)).latency;
    const samples = await scrapeSamples(url);
    const fast = { stage: 'finish', queue: FAST_QUEUE };
    return {
      targets: {
        startSeconds: ctx.monitoring.startTargetMs / 1000,
        finishSeconds: ctx.monitoring.finishTargetMs / 1000,
      },
      slowSeconds,
      promptJobs: PROMPT_JOBS,
      before,
      after,
      metrics: {
        finishP95: sampleValue(samples, 'tasks_lab_latency_seconds', { ...fast, quantile: '0.95' }),
        overTarget: sampleValue(samples, 'tasks_lab_latency_over_target', fast),
        target: sampleValue(samples, 'tasks_lab_latency_target_seconds', { stage: 'finish' }),
      },
    };
  });
}
