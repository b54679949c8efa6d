// The periodic signal's handler. BullMQ's Job Scheduler puts a `schedule-tick` job on
// exports.fast at each planned time; the fast worker runs this for it:
//
//   1. name the slot: from the run's PLANNED time (the lab's default), or from the minute the
//      signal is handled (the course's, SLOT_KEY_FROM=execution);
//   2. pick the products (the first N by id) and scheduleOnce: a new slot becomes a job on
//      exports.bulk through the outbox; a slot already taken changes nothing.
//
// The scheduler only SENDS signals; the worker decides what a signal means, and the slot
// table is the durable record of what was scheduled. BullMQ, like Celery beat, does not
// backfill: after downtime it runs the one overdue signal, then plans the next from now.
import type { Pool, RowDataPacket } from 'mysql2/promise';
import type { Job } from 'bullmq';
import type { AdmissionRules } from '@tasks-lab/13-admission';
import { CapacityExceededError } from '@tasks-lab/13-admission';
import type { SlotKeySource } from './options.ts';
import { PICK_SCHEDULE_PRODUCTS } from './slot-queries.ts';
import { scheduleOnce } from './schedule-once.ts';
import { executionSlot, plannedSlot } from './slot-keys.ts';

/** The BullMQ job name of the periodic signal (the export wake-ups are lesson 11's `export`). */
export const SCHEDULE_TICK_JOB_NAME = 'schedule-tick';

/** The signal's data: which schedule it belongs to. */
export interface TickMessage {
  schedule: string;
}

/** What one signal did: the evidence the checks read, and the worker's log line. */
export interface TickOutcome {
  schedule: string;
  slotKey: string;
  plannedAt: string;
  handledAt: string;
  status: 'scheduled' | 'already-scheduled' | 'refused-full' | 'no-products';
  jobId: string | null;
}

export interface TickContext {
  pool: Pool;
  slotKeyFrom: SlotKeySource;
  /** The interval a slot is named at when the signal's job does not carry its scheduler's own. */
  everyMs: number;
  scheduleProducts: number;
  rules?: Partial<AdmissionRules>;
  deadlineMs?: number;
  /** The clock (the checks inject times around a minute boundary). @defaultValue () => new Date() */
  now?: () => Date;
}

/**
 * When the scheduler planned this run: BullMQ names a scheduler's job
 * `repeat:<scheduler id>:<planned ms>` and keeps the same number in `opts.prevMillis`.
 */
export function plannedAtOf(job: Pick<Job<TickMessage, TickOutcome>, 'id' | 'opts'>): Date {
  const fromOpts = (job.opts as { prevMillis?: unknown }).prevMillis;
  const fromId = /^repeat:.+:(\d+)$/.exec(job.id ?? '')?.[1];
  const millis = typeof fromOpts === 'number' ? fromOpts : fromId === undefined ? Number.NaN : Number(fromId);
  if (!Number.isFinite(millis))
    throw new Error(`job ${job.id ?? '?'} was not made by a Job Scheduler: it has no planned time`);
  return new Date(millis);
}

/**
 * The interval of the scheduler that planned this run: BullMQ copies its repeat options onto each
 * job it makes (`opts.repeat.every`). The worker's own setting is only the fallback: a slot named
 * at the worker's interval, when the schedule was registered with another (`SCHEDULE_EVERY_MS=5000
 * pnpm schedule` beside a worker left at the default minute), would give twelve runs one slot.
 */
export function intervalOf(job: Pick<Job<TickMessage, TickOutcome>, 'opts'>, fallbackMs: number): number {
  const every = (job.opts as { repeat?: { every?: unknown } }).repeat?.every;
  return typeof every === 'number' && every > 0 ? every : fallbackMs;
}

/** The slot of one signal, by the configured rule. */
export function slotKeyFor(
  job: Pick<Job<TickMessage, TickOutcome>, 'id' | 'opts' | 'data'>,
  handledAt: Date,
  context: Pick<TickContext, 'slotKeyFrom' | 'everyMs'>,
): string {
  if (context.slotKeyFrom === 'execution') return executionSlot(handledAt);
  return plannedSlot(job.data.schedule, plannedAtOf(job), intervalOf(job, context.everyMs));
}

export async function handleTick(
  job: Pick<Job<TickMessage, TickOutcome>, 'id' | 'opts' | 'data'>,
  context: TickContext,
): Promise<TickOutcome> {
  const handledAt = (context.now ?? (() => new Date()))();
  const slotKey = slotKeyFor(job, handledAt, context);
  const base = {
    schedule: job.data.schedule,
    slotKey,
    plannedAt: plannedAtOf(job).toISOString(),
    handledAt: handledAt.toISOString(),
  };
  const [rows] = await context.pool.query<RowDataPacket[]>(PICK_SCHEDULE_PRODUCTS, [context.scheduleProducts]);
  const productIds = rows.map((row) => Number(row.id));
  if (productIds.length === 0) return { ...base, status: 'no-products', jobId: null };
  try {
    const result = await scheduleOnce(context.pool, slotKey, productIds, {
      rules: context.rules,
      deadlineMs: context.deadlineMs,
    });
    return { ...base, status: result.status, jobId: result.jobId };
  } catch (err) {
    // A full service is an answer, not a failure: this slot is skipped, the next signal tries its own.
    if (err instanceof CapacityExceededError) return { ...base, status: 'refused-full', jobId: null };
    throw err;
  }
}

/** "tick planned 10:00:00.000 handled 10:00:00.012: slot … scheduled job …": one line per signal. */
export function describeTick(outcome: TickOutcome): string {
  const job = outcome.jobId ? ` job ${outcome.jobId}` : '';
  return `tick planned ${outcome.plannedAt} handled ${outcome.handledAt}: slot ${outcome.slotKey} ${outcome.status}${job}`;
}

/** A tick's message is `{ schedule }`: anything else on that job name is refused, not guessed at. */
export function tickMessageOf(data: unknown): TickMessage {
  const schedule = (data as Partial<TickMessage> | null)?.schedule;
  if (typeof schedule !== 'string' || schedule === '')
    throw new Error(
      `a ${SCHEDULE_TICK_JOB_NAME} job's data is { "schedule": "<id>" }, got ${JSON.stringify(data).slice(0, 80)}`,
    );
  return { schedule };
}

/** What a signal's handler reads from the options: lesson 14's schedule settings and lesson 13's rules. */
export interface TickSettings extends Partial<AdmissionRules> {
  slotKeyFrom: SlotKeySource;
  scheduleEveryMs: number;
  scheduleProducts: number;
  deadlineMs: number;
}

/**
 * The worker's handler for the signal's jobs: checks the message, then runs `tick` (handleTick,
 * or a can-fail fixture's broken one) with the options. Lesson 15's and 16's workers run it too.
 */
export function tickJobHandler(
  pool: Pool,
  settings: TickSettings,
  tick: typeof handleTick = handleTick,
): (job: Pick<Job<unknown, TickOutcome, string>, 'id' | 'opts' | 'data'>) => Promise<TickOutcome> {
  const context: TickContext = {
    pool,
    slotKeyFrom: settings.slotKeyFrom,
    everyMs: settings.scheduleEveryMs,
    scheduleProducts: settings.scheduleProducts,
    rules: settings,
    deadlineMs: settings.deadlineMs,
  };
  return async (job) => tick({ id: job.id, opts: job.opts, data: tickMessageOf(job.data) }, context);
}
