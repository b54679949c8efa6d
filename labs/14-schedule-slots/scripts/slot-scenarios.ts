// The experiments behind lesson 14's slot checks. Each one runs on a fresh database of its
// own, with the real parts, and gathers evidence; scripts/slot-checks.ts judges it.
//
//   sameSlotAndNextMinute   over HTTP, the course's step 5: POST /schedule-slots with
//                           at = 10:00:59Z twice, then at = 10:01:01Z. The rows are counted
//                           after each answer.
//   concurrentSameSlot      over HTTP, the course's "try it yourself": 10 POSTs for one new
//                           slot_key at once.
//   duplicateWhileFull      over HTTP: a service whose admission limit is reached, asked for
//                           the slot it already has, then for a new one.
//   redeliveredSignal       no HTTP: a REAL run of the lab's Job Scheduler (upserted on a
//                           queue of the experiment's own), handled twice by the tick handler
//                           with injected clocks, 1 s before and 1 s after a minute boundary:
//                           the same signal, redelivered across the boundary.
//
// The times are injected (`at`, the handler's `now`), never waited for: the course's step 5
// does the same, "without waiting for a real minute to pass". The parts a check may break
// (SlotParts) are passed in, so the can-fail tests run the same experiments with broken ones.
import { randomBytes } from 'node:crypto';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { withResources, type Resources } from '@tasks-lab/lab-kit';
import { openQueue } from '@tasks-lab/08-broker-worker';
import { READ_EVENTS_OF_JOB } from '@tasks-lab/12-outbox';
import {
  COURSE_RULES,
  exportsAddress,
  FAST_QUEUE,
  readGateCounter,
  type AdmissionRules,
} from '@tasks-lab/13-admission';
import { freshDatabase } from '../src/database.ts';
import { QUEUE_PREFIX, type ScheduleOptionValues, type SlotKeySource } from '../src/options.ts';
import { jobOfSlot, scheduleOnce } from '../src/schedule-once.ts';
import { type TickJob, type TickQueue, upsertExportSchedule } from '../src/schedule-registration.ts';
import { startServer } from '../src/server.ts';
import { executionSlot, plannedSlot } from '../src/slot-keys.ts';
import { handleTick, plannedAtOf, type TickMessage, type TickOutcome } from '../src/tick.ts';

/** The parts a check may break; the lab's own are used otherwise. */
export interface SlotParts {
  /** How a slot is scheduled (POST /schedule-slots and the tick handler's step 2). */
  scheduleOnce: typeof scheduleOnce;
  /** How POST /schedule-slots turns `at` into a slot key (the course's UTC minute). */
  executionSlot: typeof executionSlot;
  /** How the fast worker handles one run of the schedule (names its slot, schedules it). */
  handleTick: typeof handleTick;
}

export const REAL_SLOT_PARTS: SlotParts = { scheduleOnce, executionSlot, handleTick };

export interface SlotContext {
  parts: SlotParts;
  /** The database session's settings (the lock wait above all) and the deadline come from here. */
  timings: ScheduleOptionValues;
}

/** The course's two times of step 5, one second either side of 10:01:00 UTC, and the slots it names them. */
export const COURSE_TIMES = { t1: '2026-01-01T10:00:59Z', t2: '2026-01-01T10:01:01Z' } as const;
export const COURSE_SLOTS = { t1: 'shop-export:20260101T1000', t2: 'shop-export:20260101T1001' } as const;

/** What each scheduled export holds: products the migration seeds. */
const PRODUCTS = [1, 2];

/**
 * The rules of every experiment: the course's (limit 100, Retry-After 5), then the
 * experiment's own changes. Never the environment's: an ADMISSION_LIMIT the student set for
 * `pnpm start` must not change what verify grades.
 */
const rulesWith = (changes: Partial<AdmissionRules> = {}): AdmissionRules => ({ ...COURSE_RULES, ...changes });

// Rows a check counts. Named, and without parameters: each reads the whole (fresh) database
// of one experiment.
/** Every job, slot and outbox event, whatever their state. Rows: 1. */
const COUNT_ROWS = `
  SELECT (SELECT COUNT(*) FROM export_jobs) AS jobs,
         (SELECT COUNT(*) FROM export_schedule_slots) AS slots,
         (SELECT COUNT(*) FROM export_outbox) AS events`;
/** Jobs that no slot names: an export made for a slot that another job holds. Rows: 1. */
const COUNT_JOBS_WITHOUT_SLOT = `
  SELECT COUNT(*) AS n
  FROM export_jobs j
  WHERE NOT EXISTS (SELECT 1 FROM export_schedule_slots s WHERE s.job_id = j.id)`;
/** Every slot with its job, oldest first. Rows: one per slot. */
const ALL_SLOTS = `
  SELECT slot_key, job_id
  FROM export_schedule_slots
  ORDER BY created_at, slot_key`;

/** What an experiment's database holds: its jobs, slots and events, and the admission gate's counter. */
export interface Rows {
  jobs: number;
  slots: number;
  events: number;
  gate: number;
}

export async function countRows(pool: Pool): Promise<Rows> {
  const [rows] = await pool.query<RowDataPacket[]>(COUNT_ROWS);
  return {
    jobs: Number(rows[0]?.jobs),
    slots: Number(rows[0]?.slots),
    events: Number(rows[0]?.events),
    gate: await readGateCounter(pool),
  };
}

/** "+1 job, +1 slot, +1 event, gate +1" between two counts. */
export const rowsAdded = (before: Rows, after: Rows): Rows => ({
  jobs: after.jobs - before.jobs,
  slots: after.slots - before.slots,
  events: after.events - before.events,
  gate: after.gate - before.gate,
});

async function countJobsWithoutSlot(pool: Pool): Promise<number> {
  const [rows] = await pool.query<RowDataPacket[]>(COUNT_JOBS_WITHOUT_SLOT);
  return Number(rows[0]?.n);
}

export interface SlotRow {
  slotKey: string;
  jobId: string;
}

export async function readSlots(pool: Pool): Promise<SlotRow[]> {
  const [rows] = await pool.query<RowDataPacket[]>(ALL_SLOTS);
  return rows.map((row) => ({ slotKey: String(row.slot_key), jobId: String(row.job_id) }));
}

/** The queue each outbox event of a job names (one expected: exports.bulk). */
async function queuesOfJob(pool: Pool, jobId: string): Promise<string[]> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_EVENTS_OF_JOB, [jobId]);
  return rows.map((row) => String(row.queue_name));
}

// ---------------------------------------------------------------------------------
// The pieces every experiment uses

/** A fresh database, dropped with the scope, with a pool of `connections` connections. */
async function openExperiment(ctx: SlotContext, res: Resources, label: string, connections = 5): Promise<Pool> {
  const db = await freshDatabase(label, { settings: ctx.timings, connectionLimit: connections });
  res.defer(() => db.drop());
  return db.pool;
}

/** The real app on a free port, with the context's parts and these rules. Closed with the scope. */
async function startApi(
  ctx: SlotContext,
  res: Resources,
  pool: Pool,
  rules: AdmissionRules,
): Promise<{ url: string; log: string[] }> {
  const log: string[] = [];
  const server = await startServer(0, {
    pool,
    // No publisher runs here: the nudge is a no-op, and the events stay unsent (they are counted, not sent).
    nudge: async () => 0,
    rules,
    deadlineMs: ctx.timings.deadlineMs,
    schedule: ctx.parts.scheduleOnce,
    slotOfTime: ctx.parts.executionSlot,
    onAdmission: () => {},
    onSchedule: () => {},
    log: (line) => log.push(line),
  });
  res.add(server, (s) => s.close());
  return { url: server.url, log };
}

/** One answer of POST /schedule-slots (or POST /exports), as the client saw it. */
export interface SlotAnswer {
  status: number;
  /** The body's `status` (scheduled, already-scheduled), or a refusal's `error` code. */
  outcome: string | undefined;
  slotKey: string | undefined;
  jobId: string | undefined;
  location: string | null;
  retryAfter: string | null;
}

async function post(url: string, path: string, body: unknown, signal: AbortSignal): Promise<SlotAnswer> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  const text = await response.text();
  let parsed: { status?: unknown; error?: unknown; slot_key?: unknown; job_id?: unknown; id?: unknown } = {};
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // Not JSON: the status says enough.
  }
  const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    status: response.status,
    outcome: str(parsed.error) ?? str(parsed.status),
    slotKey: str(parsed.slot_key),
    jobId: str(parsed.job_id) ?? str(parsed.id),
    location: response.headers.get('location'),
    retryAfter: response.headers.get('retry-after'),
  };
}

const postSlot = (url: string, body: { slot_key?: string; at?: string }, signal: AbortSignal) =>
  post(url, '/schedule-slots', { product_ids: PRODUCTS, ...body }, signal);

// ---------------------------------------------------------------------------------
// 1. The same slot twice, then the next minute (the course's step 5, over HTTP)

export interface SameSlotEvidence {
  first: SlotAnswer;
  again: SlotAnswer;
  next: SlotAnswer;
  /** The rows before anything, and after each answer. */
  rows: { before: Rows; afterFirst: Rows; afterAgain: Rows; afterNext: Rows };
  /** The queue each answered job's outbox events name. */
  queuesOf: Record<string, string[]>;
  /** The app's log lines (an unexpected error's shows here). */
  log: string[];
}

export async function sameSlotAndNextMinute(ctx: SlotContext, signal: AbortSignal): Promise<SameSlotEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openExperiment(ctx, res, 'sameslot');
    const api = await startApi(ctx, res, pool, rulesWith());
    const before = await countRows(pool);
    const first = await postSlot(api.url, { at: COURSE_TIMES.t1 }, res.signal);
    const afterFirst = await countRows(pool);
    const again = await postSlot(api.url, { at: COURSE_TIMES.t1 }, res.signal);
    const afterAgain = await countRows(pool);
    const next = await postSlot(api.url, { at: COURSE_TIMES.t2 }, res.signal);
    const afterNext = await countRows(pool);
    const jobIds = [...new Set([first.jobId, again.jobId, next.jobId].filter((id): id is string => id !== undefined))];
    const queuesOf = Object.fromEntries(
      await Promise.all(jobIds.map(async (id) => [id, await queuesOfJob(pool, id)] as const)),
    );
    return { first, again, next, rows: { before, afterFirst, afterAgain, afterNext }, queuesOf, log: api.log };
  });
}

// ---------------------------------------------------------------------------------
// 2. Ten calls for one new slot at once (the course's "try it yourself", over HTTP)

export const CONCURRENT = { calls: 10, slotKey: COURSE_SLOTS.t1 } as const;
/** More connections than calls: the ten reach the database together instead of queueing in the pool. */
const CONCURRENT_CONNECTIONS = 15;

export interface ConcurrentEvidence {
  answers: SlotAnswer[];
  before: Rows;
  after: Rows;
  /** Jobs no slot names: each one an extra export for a slot another job holds. */
  jobsWithoutSlot: number;
  /** The job the slot's row names. */
  jobOfSlot: string | undefined;
  log: string[];
  ms: number;
}

export async function concurrentSameSlot(ctx: SlotContext, signal: AbortSignal): Promise<ConcurrentEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openExperiment(ctx, res, 'concurrent', CONCURRENT_CONNECTIONS);
    const api = await startApi(ctx, res, pool, rulesWith());
    const before = await countRows(pool);
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: CONCURRENT.calls }, () => postSlot(api.url, { slot_key: CONCURRENT.slotKey }, res.signal)),
    );
    const ms = Date.now() - started;
    return {
      answers,
      before,
      after: await countRows(pool),
      jobsWithoutSlot: await countJobsWithoutSlot(pool),
      jobOfSlot: await jobOfSlot(pool, CONCURRENT.slotKey),
      log: api.log,
      ms,
    };
  });
}

// ---------------------------------------------------------------------------------
// 3. A full service: the slot it has, and a new one (over HTTP)

/**
 * A limit of 2, reached by one ordinary export (POST /exports) and the slot's own job:
 * nobody runs a worker here, so both stay queued and the service stays full.
 */
export const FULL = { limit: 2, takenSlot: COURSE_SLOTS.t1, newSlot: COURSE_SLOTS.t2 } as const;

export interface FullEvidence {
  rules: AdmissionRules;
  /** The ordinary export and the slot's first request, which together fill the service. */
  filler: SlotAnswer;
  taken: SlotAnswer;
  /** The taken slot asked for again, and a new slot, while full. */
  duplicate: SlotAnswer;
  newSlot: SlotAnswer;
  /** The rows once full (before the two requests) and after them. */
  full: Rows;
  after: Rows;
  /** The job the new slot's row names (there must be none). */
  jobOfNewSlot: string | undefined;
  log: string[];
}

export async function duplicateWhileFull(ctx: SlotContext, signal: AbortSignal): Promise<FullEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openExperiment(ctx, res, 'full');
    const rules = rulesWith({ admissionLimit: FULL.limit });
    const api = await startApi(ctx, res, pool, rules);
    const filler = await post(api.url, '/exports', { product_ids: PRODUCTS }, res.signal);
    const taken = await postSlot(api.url, { slot_key: FULL.takenSlot }, res.signal);
    const full = await countRows(pool);
    const duplicate = await postSlot(api.url, { slot_key: FULL.takenSlot }, res.signal);
    const newSlot = await postSlot(api.url, { slot_key: FULL.newSlot }, res.signal);
    return {
      rules,
      filler,
      taken,
      duplicate,
      newSlot,
      full,
      after: await countRows(pool),
      jobOfNewSlot: await jobOfSlot(pool, FULL.newSlot),
      // The 503s' own lines are expected; anything else is news.
      log: api.log.filter((line) => !line.startsWith('503 ')),
    };
  });
}

// ---------------------------------------------------------------------------------
// 4. One real run of the schedule, redelivered across a minute boundary

/** The course's interval: the boundary is the minute's. */
export const SIGNAL = { everyMs: 60_000 } as const;

/**
 * The run a Job Scheduler has planned and not yet handed to a worker: the scheduler's job,
 * with its planned time (BullMQ creates an `every` schedule's first run at once, so it waits
 * in `wait`; later runs wait in `delayed`).
 */
export async function readPlannedRun(queue: TickQueue<unknown>, scheduleId: string): Promise<TickJob<unknown>> {
  const pending = await queue.getJobs(['wait', 'delayed', 'prioritized']);
  const run = pending.find((job) => job.repeatJobKey === scheduleId);
  if (!run) throw new Error(`the Job Scheduler ${scheduleId} has no pending run on ${queue.name}`);
  return run;
}

/**
 * The two handling times of one redelivered signal: 1 s before and 1 s after the first minute
 * boundary that is at least 1 s after its planned time (10:00:59 and 10:01:01, the course's
 * way, around whatever minute the run was planned in).
 */
export function aroundNextMinute(plannedAt: Date): { before: Date; after: Date } {
  const boundary = Math.ceil((plannedAt.getTime() + 1000) / 60_000) * 60_000;
  return { before: new Date(boundary - 1000), after: new Date(boundary + 1000) };
}

/** A queue prefix of the experiment's own (`tasks-lab14-x<hex>`), emptied and forgotten when the scope ends. */
export async function openScratchSignalQueue(res: Resources): Promise<TickQueue<unknown>> {
  const prefix = `${QUEUE_PREFIX}-x${randomBytes(4).toString('hex')}`;
  const queue = await openQueue<TickMessage, unknown>(exportsAddress(FAST_QUEUE, prefix));
  res.add(queue, async (q) => {
    try {
      await q.obliterate({ force: true });
    } finally {
      await q.close();
    }
  });
  return queue;
}

export interface RedeliveryEvidence {
  slotKeyFrom: SlotKeySource;
  scheduleId: string;
  /** The scheduler's job (BullMQ's id: repeat:<schedule>:<planned ms>) and its planned time. */
  runId: string;
  plannedAt: string;
  /** The injected handling times, in order. */
  handledAt: string[];
  /** What each handling answered. */
  outcomes: TickOutcome[];
  /** The slot each rule gives these handlings: the course's (one per handling minute) and the lab's. */
  expected: { execution: string[]; planned: string };
  rows: { before: Rows; afterFirst: Rows; afterSecond: Rows };
  slots: SlotRow[];
}

/**
 * The same run handled twice, as a redelivery does: the second time, the job is read back
 * from Redis, as a worker that gets it again would see it. Only the clock differs.
 */
export function redeliveredSignal(
  ctx: SlotContext,
  slotKeyFrom: SlotKeySource,
): (signal: AbortSignal) => Promise<RedeliveryEvidence> {
  return (signal) =>
    withResources(signal, async (res) => {
      const pool = await openExperiment(ctx, res, `redeliver${slotKeyFrom}`);
      const queue = await openScratchSignalQueue(res);
      const scheduleId = ctx.timings.scheduleId;
      await upsertExportSchedule(queue, { scheduleId, everyMs: SIGNAL.everyMs });
      const run = await readPlannedRun(queue, scheduleId);
      const plannedAt = plannedAtOf(run);
      const { before, after } = aroundNextMinute(plannedAt);
      const handle = (job: TickJob<unknown>, at: Date) =>
        ctx.parts.handleTick(job, {
          pool,
          slotKeyFrom,
          everyMs: SIGNAL.everyMs,
          scheduleProducts: ctx.timings.scheduleProducts,
          rules: rulesWith(),
          deadlineMs: ctx.timings.deadlineMs,
          now: () => at,
        });
      const rowsBefore = await countRows(pool);
      const first = await handle(run, before);
      const afterFirst = await countRows(pool);
      const redelivered = (run.id ? await queue.getJob(run.id) : undefined) ?? run;
      const second = await handle(redelivered, after);
      return {
        slotKeyFrom,
        scheduleId,
        runId: String(run.id),
        plannedAt: plannedAt.toISOString(),
        handledAt: [before.toISOString(), after.toISOString()],
        outcomes: [first, second],
        expected: {
          execution: [executionSlot(before), executionSlot(after)],
          planned: plannedSlot(scheduleId, plannedAt, SIGNAL.everyMs),
        },
        rows: { before: rowsBefore, afterFirst, afterSecond: await countRows(pool) },
        slots: await readSlots(pool),
      };
    });
}
