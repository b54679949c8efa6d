// The experiments behind lesson 12's outbox checks. Each runs the real submit
// transaction, the real publisher, BullMQ and the database, and gathers evidence; the
// checks (outbox-checks.ts) judge it. Every part a check may break is passed in
// (OutboxParts), so the can-fail tests run the same experiment with a broken one.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool, PoolConnection, RowDataPacket } from 'mysql2/promise';
import { Redis, type RedisOptions } from 'ioredis';
import {
  errorCode,
  errorMessage,
  faultPoints,
  faultRule,
  FAULTS_ENV,
  waitFor,
  withResources,
  type Resources,
} from '@tasks-lab/lab-kit';
import { brokerConnection, openQueue, WORKER_OPTIONS, type ExportJobName } from '@tasks-lab/08-broker-worker';
import {
  readJob,
  startExportWorker,
  waitForTerminalRow,
  type DeliveryOutcome,
  type JobRow,
  type WakeUpMessage,
  type WakeUpQueue,
} from '@tasks-lab/11-mysql-leases';
import { freshDatabase, openJobsDatabase, type FreshDatabase } from '../src/database.ts';
import { describeTimings, WORKER_PROCESS_OPTIONS, type OutboxOptionValues } from '../src/options.ts';
import { readEvent, submitWithEvent, SUBMIT_FAULT_POINTS, type OutboxEvent } from '../src/outbox.ts';
import {
  COUNT_JOB_AND_EVENTS,
  COUNT_UNSENT,
  EXPLAIN_CLAIM,
  LOCK_CLAIMABLE_EVENTS,
  USE_COURSE_CLAIM_INDEX,
} from '../src/outbox-queries.ts';
import { publishNudge } from '../src/nudge.ts';
import { PUBLISHER_PARTS, startPublisher, type PublisherParts, type RunningPublisher } from '../src/publisher.ts';
import { exportsAddress } from '../src/queue.ts';

/** The parts a check may break: the submit transaction, and the publisher's steps. */
export interface OutboxParts extends PublisherParts {
  submitWithEvent: typeof submitWithEvent;
  /** What the submit side does after its commit. */
  publishNudge: typeof publishNudge;
}

export const REAL_OUTBOX_PARTS: OutboxParts = { ...PUBLISHER_PARTS, submitWithEvent, publishNudge };

export interface OutboxContext {
  parts: OutboxParts;
  timings: OutboxOptionValues;
  /**
   * The database to run in, or undefined: each experiment then gets a scratch database of
   * its own (created, migrated, dropped afterwards), so a publisher started by one
   * experiment never sends another's leftover events, and verify's database stays clean.
   */
  database: string | undefined;
  /** Redis for BullMQ and the nudges. */
  connection: RedisOptions;
  /** The nudge experiment's poll interval. @defaultValue NUDGE_POLL_MS */
  nudgePollMs?: number;
}

const PRODUCTS = [1, 2];

/** The experiment's database (the context's, or a scratch one dropped with the scope). */
async function databaseFor(ctx: OutboxContext, res: Resources, label: string): Promise<string> {
  if (ctx.database !== undefined) return ctx.database;
  const db = await freshDatabase(label);
  res.defer(() => db.drop());
  return db.name;
}

/** A pool on `database`, owned by the scope. */
async function openPool(ctx: OutboxContext, res: Resources, database: string): Promise<Pool> {
  const pool = await openJobsDatabase({ database, settings: ctx.timings });
  return res.add(pool, (p) => p.end());
}

/** A queue name of this experiment's own, so no other run's wake-ups (or workers) mix in; obliterated afterwards. */
async function privateQueue(
  ctx: OutboxContext,
  res: Resources,
  label: string,
): Promise<{ queueName: string; queue: WakeUpQueue }> {
  const queueName = `outbox-${label}-${randomBytes(3).toString('hex')}`;
  const queue = await openQueue<WakeUpMessage, DeliveryOutcome, ExportJobName>(exportsAddress(queueName), {
    connection: ctx.connection,
  });
  res.add(queue, async (q) => {
    await q.obliterate({ force: true }).catch(() => {});
    await q.close();
  });
  return { queueName, queue };
}

async function countJobAndEvents(pool: Pool, jobId: string): Promise<{ jobs: number; events: number }> {
  const [rows] = await pool.query<RowDataPacket[]>(COUNT_JOB_AND_EVENTS, [jobId, jobId]);
  return { jobs: Number(rows[0]?.jobs), events: Number(rows[0]?.events) };
}

// ---------------------------------------------------------------------------------
// 1. The submit transaction

export interface SubmitEvidence {
  timings: string;
  /** A normal submission: its rows, by job id. */
  normal: {
    jobId: string;
    eventId: string;
    jobs: number;
    events: number;
    event: OutboxEvent | undefined;
    job: JobRow | undefined;
  };
  /** A submission with LAB_FAULTS=after-job-insert:throw: what it threw, and the rows left by its job id. */
  faulted: { jobId: string; error: string | undefined; errorCode: string | undefined; jobs: number; events: number };
}

export async function submitTransaction(ctx: OutboxContext, signal: AbortSignal): Promise<SubmitEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openPool(ctx, res, await databaseFor(ctx, res, 'submit'));
    const submitted = await ctx.parts.submitWithEvent(pool, PRODUCTS, { deadlineMs: ctx.timings.deadlineMs });
    const normal = {
      ...submitted,
      ...(await countJobAndEvents(pool, submitted.jobId)),
      event: await readEvent(pool, submitted.eventId),
      job: await readJob(pool, submitted.jobId),
    };
    // The same code path with the fault point switched on, as a drill would with LAB_FAULTS.
    const faults = faultPoints(SUBMIT_FAULT_POINTS, { [FAULTS_ENV]: faultRule('after-job-insert', 'throw') });
    const jobId = randomUUID();
    let error: unknown;
    try {
      await ctx.parts.submitWithEvent(pool, PRODUCTS, { deadlineMs: ctx.timings.deadlineMs, jobId, faults });
    } catch (err) {
      error = err;
    }
    const faulted = {
      jobId,
      error: error === undefined ? undefined : errorMessage(error),
      errorCode: errorCode(error),
      ...(await countJobAndEvents(pool, jobId)),
    };
    return { timings: describeTimings(ctx.timings), normal, faulted };
  });
}

// ---------------------------------------------------------------------------------
// 2. Submit -> publisher -> BullMQ -> worker

export interface PipelineEvidence {
  timings: string;
  jobId: string;
  eventId: string;
  event: OutboxEvent | undefined;
  /** The BullMQ job the publisher added for this event (looked up by the EVENT id). */
  bullJob: { id: string | undefined; jobIdInData: string | undefined; state: string } | undefined;
  /** How many BullMQ jobs the queue holds in all: one event, one wake-up. */
  bullJobCount: number;
  job: JobRow | undefined;
  publisherStats: ReturnType<RunningPublisher['stats']>;
  errors: string[];
}

async function artifactFolder(res: Resources): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'tasks-lab12-artifacts-'));
  res.defer(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

/** Lesson 11's worker on lab 12's queue (prefix tasks-lab12, this experiment's queue name), owned by the scope. */
async function startWorkerOn(ctx: OutboxContext, res: Resources, database: string, queueName: string): Promise<void> {
  const settings = {
    ...WORKER_PROCESS_OPTIONS.defaults(),
    ...WORKER_OPTIONS.defaults(),
    queueName,
    database,
    artifactsDir: await artifactFolder(res),
    concurrency: 2,
  };
  const worker = await startExportWorker({
    process: settings,
    lease: ctx.timings,
    faults: faultPoints(['after-claim', 'before-finish'], {}),
    address: exportsAddress(queueName),
    connection: ctx.connection,
  });
  res.add(worker, (w) => w.close());
}

async function startPublisherOn(
  ctx: OutboxContext,
  res: Resources,
  pool: Pool,
  errors: string[],
  timings: Partial<OutboxOptionValues> = {},
): Promise<RunningPublisher> {
  const publisher = await startPublisher({
    pool,
    timings: { ...ctx.timings, ...timings },
    connection: ctx.connection,
    faults: faultPoints(['after-claim', 'after-send'], {}),
    parts: ctx.parts,
    report: (line) => errors.push(line),
  });
  return res.add(publisher, (p) => p.close());
}

/**
 * The experiment's own nudge channel, named after its private queue. On the lab's shared channel
 * a nudge from anything else running at the same time (lesson 12's tests run beside its verify)
 * would wake this publisher too, and a check counting nudges would count that one.
 */
const experimentChannel = (queueName: string) => `tasks-lab12:${queueName}:outbox-nudge`;

/** Redis client for the submit side's nudges (fail fast), owned by the scope. */
function nudger(ctx: OutboxContext, res: Resources): Redis {
  const redis = new Redis({ ...ctx.connection, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  return res.add(redis, (r) => {
    r.disconnect();
  });
}

export async function publisherPipeline(ctx: OutboxContext, signal: AbortSignal): Promise<PipelineEvidence> {
  return withResources(signal, async (res) => {
    const database = await databaseFor(ctx, res, 'pipeline');
    const pool = await openPool(ctx, res, database);
    const { queueName, queue } = await privateQueue(ctx, res, 'pipeline');
    await startWorkerOn(ctx, res, database, queueName);
    const errors: string[] = [];
    const channel = experimentChannel(queueName);
    const publisher = await startPublisherOn(ctx, res, pool, errors, { nudgeChannel: channel });
    const redis = nudger(ctx, res);
    await waitFor('the nudge client to connect', async () => redis.status === 'ready', {
      timeoutMs: 10_000,
      intervalMs: 20,
      signal,
    });
    const { jobId, eventId } = await ctx.parts.submitWithEvent(pool, PRODUCTS, {
      queueName,
      deadlineMs: ctx.timings.deadlineMs,
    });
    await ctx.parts
      .publishNudge(redis, { channel })
      .catch((err: unknown) => errors.push(`nudge: ${errorMessage(err)}`));
    const job = await waitForTerminalRow(pool, jobId, 15_000 + 2 * (ctx.timings.pollMs + ctx.timings.claimMs), signal);
    // The confirm follows the send; give it the claim's length to land.
    await waitFor('the event to be confirmed', async () => (await readEvent(pool, eventId))?.sentAt != null, {
      timeoutMs: ctx.timings.claimMs + 2000,
      intervalMs: 50,
      signal,
    }).catch(() => {});
    const bull = await queue.getJob(eventId);
    const counts = await queue.getJobCounts('completed', 'failed', 'active', 'waiting', 'delayed', 'prioritized');
    return {
      timings: describeTimings(ctx.timings),
      jobId,
      eventId,
      event: await readEvent(pool, eventId),
      bullJob: bull ? { id: bull.id, jobIdInData: bull.data.job_id, state: await bull.getState() } : undefined,
      bullJobCount: Object.values(counts).reduce((a, b) => a + b, 0),
      job,
      publisherStats: publisher.stats(),
      errors,
    };
  });
}

// ---------------------------------------------------------------------------------
// 3. An idle publisher, woken by a nudge

export interface NudgeEvidence {
  timings: string;
  pollMs: number;
  /** Commit to sent_at, measured on the server's clock (both instants are NOW(6)). */
  latencyMs: number | undefined;
  /** What woke the publisher during the measurement. */
  nudges: number;
  polls: number;
  errors: string[];
}

/** The poll interval of the nudge experiment: long, so a send that waits for the poll cannot pass for a nudge. */
export const NUDGE_POLL_MS = 10_000;

/** PUBSUB NUMSUB's answer for one channel ([channel, count]): the count. */
const subscribers = (answer: unknown): number => (Array.isArray(answer) ? Number(answer[1]) : 0);

export async function nudgeLatency(ctx: OutboxContext, signal: AbortSignal): Promise<NudgeEvidence> {
  const pollMs = ctx.nudgePollMs ?? NUDGE_POLL_MS;
  return withResources(signal, async (res) => {
    const pool = await openPool(ctx, res, await databaseFor(ctx, res, 'nudge'));
    const { queueName } = await privateQueue(ctx, res, 'nudge');
    const errors: string[] = [];
    const channel = experimentChannel(queueName);
    const publisher = await startPublisherOn(ctx, res, pool, errors, { pollMs, nudgeChannel: channel });
    const redis = nudger(ctx, res);
    await waitFor('the nudge client to connect', async () => redis.status === 'ready', {
      timeoutMs: 10_000,
      intervalMs: 20,
      signal,
    });
    // Idle: the first round found nothing (or sent what an earlier check left) and now waits for the poll.
    await waitFor('the publisher to go idle', async () => publisher.stats().rounds >= 1, {
      timeoutMs: 10_000,
      intervalMs: 20,
      signal,
    });
    // Its subscription is live (Redis counts one subscriber on the channel): a nudge published
    // before that would reach nobody, and a fixed pause could be too short on a loaded machine.
    await waitFor(
      'the publisher to subscribe to the nudge channel',
      async () => subscribers(await redis.pubsub('NUMSUB', channel)) >= 1,
      { timeoutMs: 10_000, intervalMs: 20, signal },
    );
    const before = publisher.stats();
    const { eventId } = await ctx.parts.submitWithEvent(pool, PRODUCTS, {
      queueName,
      deadlineMs: ctx.timings.deadlineMs,
    });
    await ctx.parts
      .publishNudge(redis, { channel })
      .catch((err: unknown) => errors.push(`nudge: ${errorMessage(err)}`));
    await waitFor('the event to be sent', async () => (await readEvent(pool, eventId))?.sentAt != null, {
      timeoutMs: pollMs + 5000,
      intervalMs: 20,
      signal,
    }).catch(() => {});
    const event = await readEvent(pool, eventId);
    const after = publisher.stats();
    return {
      timings: `${describeTimings(ctx.timings)}; this experiment polls every ${pollMs / 1000} s`,
      pollMs,
      latencyMs: event?.sentAt ? event.sentAt.getTime() - event.createdAt.getTime() : undefined,
      nudges: after.nudges - before.nudges,
      polls: after.polls - before.polls,
      errors,
    };
  });
}

// ---------------------------------------------------------------------------------
// 4. Two publishers, the matching index and the course's

export type ClaimIndex = 'matching' | 'course';

export interface LockProbe {
  index: ClaimIndex;
  /** The claim's plan: EXPLAIN's Extra (e.g. "Using where; Using filesort"). */
  plan: string;
  eligible: number;
  /** Publisher A's claim statement (LIMIT 1), its transaction still open. */
  aTook: string[];
  /** How many of the eligible rows A's statement left locked (B's SKIP LOCKED scan shows it). */
  lockedByA: number;
  /** What publisher B's claim got meanwhile, or its error. */
  bGot: string[];
  bError: string | undefined;
}

export interface ThroughputRun {
  index: ClaimIndex;
  publishers: number;
  events: number;
  seconds: number;
  perPublisher: number[];
  /** Sends the broker accepted, all publishers together (more than events = a duplicate send). */
  sent: number;
  unsentAfter: number;
}

export interface ShareEvidence {
  timings: string;
  probes: LockProbe[];
  runs: ThroughputRun[];
  errors: string[];
}

/** Events per throughput run: enough to measure, few enough to seed in a second or two. */
export const THROUGHPUT_EVENTS = 300;

/** A fresh scratch database per index: the course's index replaces the migration's there only. */
async function scratchDatabase(res: Resources, index: ClaimIndex, label: string): Promise<FreshDatabase> {
  const db = await freshDatabase(label);
  res.defer(() => db.drop());
  if (index === 'course') await db.pool.query(USE_COURSE_CLAIM_INDEX);
  return db;
}

/** How many of the eligible events another session could lock right now (SKIP LOCKED skips A's locks). */
const COUNT_LOCKABLE = `
  SELECT id FROM export_outbox
  WHERE sent_at IS NULL AND available_at <= NOW(6) AND (claimed_until IS NULL OR claimed_until < NOW(6))
  FOR UPDATE SKIP LOCKED`;

async function inTransaction<T>(pool: Pool, work: (tx: PoolConnection) => Promise<T>): Promise<T> {
  const tx = await pool.getConnection();
  try {
    await tx.beginTransaction();
    return await work(tx);
  } finally {
    await tx.rollback().catch(() => {});
    tx.release();
  }
}

/**
 * The experiment of docs/mysql-and-mariadb.md (an index that does not match the ORDER BY
 * locks every eligible row): 5 eligible events; publisher A runs the claim's locking SELECT
 * with LIMIT 1 and keeps its transaction open; meanwhile publisher B claims one event.
 */
async function lockProbe(ctx: OutboxContext, res: Resources, index: ClaimIndex): Promise<LockProbe> {
  const { pool } = await scratchDatabase(res, index, `probe${index}`);
  for (let i = 0; i < 5; i++) await submitWithEvent(pool, PRODUCTS, { deadlineMs: ctx.timings.deadlineMs });
  const [plan] = await pool.query<RowDataPacket[]>(EXPLAIN_CLAIM, [1]);
  const extra = plan.map((row) => `${String(row.key ?? 'no index')}: ${String(row.Extra ?? '')}`).join(' | ');
  return inTransaction(pool, async (a) => {
    const [took] = await a.query<RowDataPacket[]>(LOCK_CLAIMABLE_EVENTS, [1]);
    const lockable = await inTransaction(
      pool,
      async (other) => (await other.query<RowDataPacket[]>(COUNT_LOCKABLE))[0].length,
    );
    let bGot: string[] = [];
    let bError: string | undefined;
    try {
      bGot = (await ctx.parts.claimEvents(pool, { batch: 1, claimMs: ctx.timings.claimMs })).map((e) => e.eventId);
    } catch (err) {
      bError = errorMessage(err);
    }
    return {
      index,
      plan: extra,
      eligible: 5,
      aTook: took.map((row) => String(row.id)),
      lockedByA: 5 - lockable,
      bGot,
      bError,
    };
  });
}

/** Seeds `events` jobs with their events, then runs `publishers` publishers until all are sent. */
async function throughputRun(
  ctx: OutboxContext,
  res: Resources,
  index: ClaimIndex,
  publishers: number,
  errors: string[],
  signal: AbortSignal,
): Promise<ThroughputRun> {
  const { name, pool } = await scratchDatabase(res, index, `tput${index}${publishers}`);
  const { queueName } = await privateQueue(ctx, res, `tput${index}${publishers}`);
  for (let i = 0; i < THROUGHPUT_EVENTS; i++)
    await submitWithEvent(pool, PRODUCTS, { queueName, deadlineMs: ctx.timings.deadlineMs });
  return withResources(signal, async (run) => {
    const started = Date.now();
    const running: RunningPublisher[] = [];
    for (let i = 0; i < publishers; i++) {
      // Each publisher has its own pool, as separate processes would.
      const own = run.add(await openJobsDatabase({ database: name, settings: ctx.timings }), (p) => p.end());
      running.push(await startPublisherOn(ctx, run, own, errors));
    }
    for (const p of running) p.nudge();
    await waitFor(
      `${THROUGHPUT_EVENTS} events to be sent`,
      async () => Number((await pool.query<RowDataPacket[]>(COUNT_UNSENT))[0][0]?.n) === 0,
      { timeoutMs: 60_000, intervalMs: 25, signal },
    ).catch(() => {});
    const seconds = (Date.now() - started) / 1000;
    // After close(): every confirm in flight has been counted.
    await Promise.all(running.map((p) => p.close()));
    const stats = running.map((p) => p.stats());
    return {
      index,
      publishers,
      events: THROUGHPUT_EVENTS,
      seconds,
      perPublisher: stats.map((s) => s.confirmed),
      sent: stats.reduce((sum, s) => sum + s.sent, 0),
      unsentAfter: Number((await pool.query<RowDataPacket[]>(COUNT_UNSENT))[0][0]?.n),
    };
  });
}

export async function twoPublishers(ctx: OutboxContext, signal: AbortSignal): Promise<ShareEvidence> {
  return withResources(signal, async (res) => {
    const errors: string[] = [];
    const probes = [await lockProbe(ctx, res, 'matching'), await lockProbe(ctx, res, 'course')];
    const runs: ThroughputRun[] = [];
    for (const index of ['matching', 'course'] as const) {
      for (const publishers of [1, 2]) runs.push(await throughputRun(ctx, res, index, publishers, errors, signal));
    }
    return { timings: describeTimings(ctx.timings), probes, runs, errors };
  });
}

export const defaultConnection = (): RedisOptions => brokerConnection();
