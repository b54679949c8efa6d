// The signal's handler against a real database and a real BullMQ scheduler job: a Job Scheduler
// is registered on exports.fast under a prefix of this file's own, and the job it planned is
// read back from Redis (no worker runs: the job waits, and the tests hand it to handleTick).
import { randomBytes } from 'node:crypto';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openQueue } from '@tasks-lab/08-broker-worker';
import { READ_EVENTS_OF_JOB, toOutboxEvent } from '@tasks-lab/12-outbox';
import {
  admitExport,
  BULK_QUEUE,
  countActiveJobs,
  exportsAddress,
  FAST_QUEUE,
  readBacklog,
  readGateCounter,
} from '@tasks-lab/13-admission';
import { withFreshDatabase } from '../src/database.ts';
import { QUEUE_PREFIX } from '../src/options.ts';
import { SLOTS_WITH_PREFIX } from '../src/slot-queries.ts';
import { type TickJob, type TickQueue, upsertExportSchedule } from '../src/schedule-registration.ts';
import { plannedSlot } from '../src/slot-keys.ts';
import {
  handleTick,
  intervalOf,
  plannedAtOf,
  SCHEDULE_TICK_JOB_NAME,
  slotKeyFor,
  type TickContext,
  tickJobHandler,
  type TickMessage,
  type TickOutcome,
} from '../src/tick.ts';

/** Empties the catalogue of a scratch database (the "no products" case). No parameters. */
const REMOVE_EVERY_PRODUCT = 'DELETE FROM products';

const SCHEDULE = 'tick-test';
const EVERY_MS = 1000;
const prefix = `${QUEUE_PREFIX}-x${randomBytes(4).toString('hex')}`;
let queue: TickQueue;
/** The planned time of the scheduler's pending run, and that run's job as Redis keeps it. */
let next: number;
let job: TickJob;

beforeAll(async () => {
  queue = await openQueue<TickMessage, TickOutcome>(exportsAddress(FAST_QUEUE, prefix));
  await upsertExportSchedule(queue, { scheduleId: SCHEDULE, everyMs: EVERY_MS });
  next = (await queue.getJobScheduler(SCHEDULE))?.next ?? Number.NaN;
  const found = await queue.getJob(`repeat:${SCHEDULE}:${next}`);
  if (!found) throw new Error(`the scheduler's run repeat:${SCHEDULE}:${next} is not in Redis`);
  job = found;
}, 30_000);

afterAll(async () => {
  await queue?.obliterate({ force: true });
  await queue?.close();
});

const context = (pool: Pool, overrides: Partial<TickContext> = {}): TickContext => ({
  pool,
  slotKeyFrom: 'planned',
  everyMs: EVERY_MS,
  scheduleProducts: 100,
  ...overrides,
});

async function slotsOf(pool: Pool): Promise<string[]> {
  const [rows] = await pool.query<RowDataPacket[]>(SLOTS_WITH_PREFIX, [`shop-export:${SCHEDULE}:%`]);
  return rows.map((row) => String(row.slot_key));
}

async function eventQueuesOf(pool: Pool, jobId: string): Promise<string[]> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_EVENTS_OF_JOB, [jobId]);
  return rows.map(toOutboxEvent).map((e) => e.queueName);
}

describe('handleTick with a real scheduler job', () => {
  it('When a Job Scheduler plans a run, Then plannedAtOf reads its planned time from the job BullMQ made [test:tick-planned-at-of-scheduler-job]', () => {
    expect(job.name).toBe(SCHEDULE_TICK_JOB_NAME);
    expect(job.data).toEqual({ schedule: SCHEDULE });
    expect(job.id).toBe(`repeat:${SCHEDULE}:${next}`);
    expect(plannedAtOf(job).getTime()).toBe(next);
  });

  it('When a signal is handled twice, Then the first schedules one job on exports.bulk for its planned slot and the second answers already-scheduled [test:tick-schedules-once-on-bulk]', async () => {
    await withFreshDatabase('tickonce', async ({ pool }) => {
      const first = await handleTick(job, context(pool));
      expect(first).toMatchObject({
        schedule: SCHEDULE,
        status: 'scheduled',
        slotKey: plannedSlot(SCHEDULE, new Date(next), EVERY_MS),
        plannedAt: new Date(next).toISOString(),
      });
      expect(await eventQueuesOf(pool, first.jobId!)).toEqual([BULK_QUEUE]);
      const again = await handleTick(job, context(pool));
      expect(again).toMatchObject({ status: 'already-scheduled', slotKey: first.slotKey, jobId: first.jobId });
      expect(await slotsOf(pool)).toEqual([first.slotKey]);
      expect(await eventQueuesOf(pool, first.jobId!)).toEqual([BULK_QUEUE]);
      expect(await countActiveJobs(pool)).toBe(1);
    });
  });

  it("When the worker was started with another interval than the schedule, Then the slot is named at the schedule's interval, which its job carries [test:tick-slot-at-scheduler-interval]", async () => {
    expect(intervalOf(job, 60_000)).toBe(EVERY_MS);
    expect(slotKeyFor(job, new Date(), { slotKeyFrom: 'planned', everyMs: 60_000 })).toBe(
      plannedSlot(SCHEDULE, new Date(next), EVERY_MS),
    );
    expect(intervalOf({ opts: {} }, 60_000)).toBe(60_000);
  });

  it("When the worker's handler gets a signal, Then it schedules the planned slot with the options' settings, and refuses a message without a schedule [test:tick-job-handler]", async () => {
    await withFreshDatabase('tickhandler', async ({ pool }) => {
      const settings = {
        slotKeyFrom: 'planned' as const,
        scheduleEveryMs: EVERY_MS,
        scheduleProducts: 3,
        deadlineMs: 60_000,
      };
      const handle = tickJobHandler(pool, settings);
      const outcome = await handle(job);
      expect(outcome).toMatchObject({ status: 'scheduled', slotKey: plannedSlot(SCHEDULE, new Date(next), EVERY_MS) });
      await expect(handle({ id: job.id, opts: job.opts, data: {} })).rejects.toThrow(
        /data is \{ "schedule": "<id>" \}/,
      );
      expect(await slotsOf(pool)).toEqual([outcome.slotKey]);
    });
  });

  it('When there are no products, Then the signal answers no-products and takes no slot [test:tick-no-products]', async () => {
    await withFreshDatabase('ticknone', async ({ pool }) => {
      await pool.query(REMOVE_EVERY_PRODUCT);
      const outcome = await handleTick(job, context(pool));
      expect(outcome).toMatchObject({ status: 'no-products', jobId: null });
      expect(await slotsOf(pool)).toEqual([]);
      expect(await countActiveJobs(pool)).toBe(0);
    });
  });

  it('When the service is full, Then the signal answers refused-full and writes no job, no slot and no event [test:tick-refused-full-writes-nothing]', async () => {
    await withFreshDatabase('tickfull', async ({ pool }) => {
      const rules = { admissionLimit: 1 };
      await admitExport(pool, [1], { rules });
      const unsent = async () => (await readBacklog(pool)).unpublished.map((u) => [u.queueName, u.events]);
      const before = await unsent();
      const outcome = await handleTick(job, context(pool, { rules }));
      expect(outcome).toMatchObject({
        status: 'refused-full',
        jobId: null,
        slotKey: plannedSlot(SCHEDULE, new Date(next), EVERY_MS),
      });
      expect(await slotsOf(pool)).toEqual([]);
      expect(await countActiveJobs(pool)).toBe(1);
      expect(await readGateCounter(pool)).toBe(1);
      expect(await unsent()).toEqual(before);
    });
  });
});
