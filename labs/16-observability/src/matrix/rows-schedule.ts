// The matrix's two rows about periodic exports (lesson 14): one slot scheduled twice at once
// (the unique slot keeps ONE job), and one signal handled in two different minutes with the
// course's execution-minute slot (TWO slots: the documented boundary, not a bug to hide).
import type { Job } from 'bullmq';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { openQueue } from '@tasks-lab/08-broker-worker';
import { exportsAddress, FAST_QUEUE } from '@tasks-lab/13-admission';
import {
  executionSlot,
  jobOfSlot,
  plannedAtOf,
  type SCHEDULE_TICK_JOB_NAME,
  upsertExportSchedule,
  type TickMessage,
  type TickOutcome,
} from '@tasks-lab/14-schedule-slots';
import { FAST_PRODUCTS, rowRules, within, type RowLab } from './harness.ts';
import { defineRow, Findings, type MatrixRow } from './row.ts';

/** Every job, slot and event of the row's (fresh) database. Rows returned: 1. Parameters: none. */
export const COUNT_SCHEDULED_ROWS = `
  SELECT (SELECT COUNT(*) FROM export_jobs) AS jobs,
         (SELECT COUNT(*) FROM export_schedule_slots) AS slots,
         (SELECT COUNT(*) FROM export_outbox) AS events`;

/** Every slot with its job, oldest first. Rows returned: one per slot. Parameters: none. */
export const ALL_SLOTS = `
  SELECT slot_key, job_id
  FROM export_schedule_slots
  ORDER BY created_at, slot_key`;

interface ScheduledRows {
  jobs: number;
  slots: number;
  events: number;
}

async function countScheduled(pool: Pool): Promise<ScheduledRows> {
  const [rows] = await pool.query<RowDataPacket[]>(COUNT_SCHEDULED_ROWS);
  return { jobs: Number(rows[0]?.jobs ?? 0), slots: Number(rows[0]?.slots ?? 0), events: Number(rows[0]?.events ?? 0) };
}

async function allSlots(pool: Pool): Promise<{ slotKey: string; jobId: string }[]> {
  const [rows] = await pool.query<RowDataPacket[]>(ALL_SLOTS);
  return rows.map((row) => ({ slotKey: String(row.slot_key), jobId: String(row.job_id) }));
}

// ---- 10. one slot, scheduled twice at once ----------------------------------------------------

interface SameSlotDetails {
  slotKey: string;
  answers: ({ status: string; jobId: string } | { error: string })[];
  rows: ScheduledRows;
  jobOfSlot: string | null;
}

export const sameSlotTwice: MatrixRow = defineRow<SameSlotDetails>('same-slot-twice', {
  async scenario(lab) {
    // The course's label: the UTC minute the signal was handled in.
    const slotKey = executionSlot(new Date());
    lab.rec.inject(`action: two concurrent scheduleOnce calls for slot ${slotKey}`);
    const once = () =>
      lab.parts
        .scheduleOnce(lab.pool, slotKey, FAST_PRODUCTS, { rules: rowRules(), deadlineMs: lab.timings.deadlineMs })
        .then(
          (r) => ({ status: r.status, jobId: r.jobId }),
          (err: unknown) => ({ error: err instanceof Error ? err.message.slice(0, 160) : String(err) }),
        );
    const answers = await Promise.all([once(), once()]);
    const holder = (await jobOfSlot(lab.pool, slotKey)) ?? null;
    if (holder) await lab.rec.watch(lab.pool, holder);
    return { jobId: holder, details: { slotKey, answers, rows: await countScheduled(lab.pool), jobOfSlot: holder } };
  },
  judge(e) {
    const d = e.details;
    const named = d.answers.map((a) => ('jobId' in a ? a.jobId : undefined));
    const statuses = d.answers.map((a) => ('status' in a ? a.status : `error ${a.error}`)).sort();
    return new Findings()
      .expect(
        d.rows.jobs === 1 && d.rows.slots === 1 && d.rows.events === 1,
        `jobs ${d.rows.jobs}, slot rows ${d.rows.slots}, events ${d.rows.events}`,
        'one of each',
      )
      .expect(
        named.every((id) => id !== undefined && id === d.jobOfSlot) &&
          statuses.join(',') === 'already-scheduled,scheduled',
        `the two calls answered ${statuses.join(' and ')}, ${new Set(named).size === 1 ? "naming the slot's job" : 'naming DIFFERENT jobs'}`,
        "scheduled and already-scheduled, both naming the slot's one job",
      )
      .outcome();
  },
});

// ---- 11. one signal, two minutes ------------------------------------------------------------------

/** The course's interval: the slot boundary is the minute's. */
export const SIGNAL_EVERY_MS = 60_000;
const SCHEDULE_ID = 'matrix-signal';

interface CrossMinuteDetails {
  runId: string;
  plannedAt: string;
  handledAt: string[];
  outcomes: ({ slotKey: string; status: string; jobId: string | null } | { error: string })[];
  expectedSlots: string[];
  slots: { slotKey: string; jobId: string }[];
  rows: ScheduledRows;
}

/** The run a Job Scheduler planned and has not handed to a worker (nothing consumes this prefix). */
async function plannedRun(
  lab: RowLab,
): Promise<Job<TickMessage, TickOutcome, typeof SCHEDULE_TICK_JOB_NAME> | undefined> {
  const queue = lab.res.add(
    await openQueue<TickMessage, TickOutcome, typeof SCHEDULE_TICK_JOB_NAME>(exportsAddress(FAST_QUEUE, lab.prefix)),
    (q) => q.close(),
  );
  await upsertExportSchedule(queue, { scheduleId: SCHEDULE_ID, everyMs: SIGNAL_EVERY_MS });
  return within(
    lab,
    'the planned run',
    async () =>
      (await queue.getJobs(['wait', 'delayed', 'prioritized'])).find((job) => job.repeatJobKey === SCHEDULE_ID),
    3000,
  );
}

/** One second before and one after the first minute boundary after the planned time (10:00:59, 10:01:01). */
function aroundNextMinute(plannedAt: Date): [Date, Date] {
  const boundary = Math.ceil((plannedAt.getTime() + 1000) / 60_000) * 60_000;
  return [new Date(boundary - 1000), new Date(boundary + 1000)];
}

export const signalCrossesMinute: MatrixRow = defineRow<CrossMinuteDetails>('signal-crosses-minute', {
  async scenario(lab) {
    const run = await plannedRun(lab);
    if (!run) throw new Error(`the Job Scheduler ${SCHEDULE_ID} planned no run on the row's prefix`);
    const plannedAt = plannedAtOf(run);
    const handledAt = aroundNextMinute(plannedAt);
    lab.rec.inject(
      `action: the same signal (BullMQ id ${run.id}) handled at ${handledAt[0].toISOString()} and again at ${handledAt[1].toISOString()}`,
    );
    const handle = (at: Date): Promise<CrossMinuteDetails['outcomes'][number]> =>
      lab.parts
        .handleTick(run, {
          pool: lab.pool,
          slotKeyFrom: 'execution',
          everyMs: SIGNAL_EVERY_MS,
          scheduleProducts: lab.timings.scheduleProducts,
          rules: rowRules(),
          deadlineMs: lab.timings.deadlineMs,
          now: () => at,
        })
        .then(
          (o: TickOutcome) => ({ slotKey: o.slotKey, status: o.status, jobId: o.jobId }),
          (err: unknown) => ({ error: err instanceof Error ? err.message.slice(0, 160) : String(err) }),
        );
    const outcomes = [await handle(handledAt[0]), await handle(handledAt[1])];
    const first = outcomes.find((o): o is Extract<typeof o, { jobId: string | null }> => 'jobId' in o)?.jobId ?? null;
    if (first) await lab.rec.watch(lab.pool, first);
    return {
      jobId: first,
      details: {
        runId: String(run.id),
        plannedAt: plannedAt.toISOString(),
        handledAt: handledAt.map((d) => d.toISOString()),
        outcomes,
        expectedSlots: handledAt.map((d) => executionSlot(d)),
        slots: await allSlots(lab.pool),
        rows: await countScheduled(lab.pool),
      },
    };
  },
  judge(e) {
    const d = e.details;
    const keys = d.outcomes.map((o) => ('slotKey' in o ? o.slotKey : `error ${o.error}`));
    const twoSlots =
      d.rows.slots === 2 &&
      d.rows.jobs === 2 &&
      keys.join() === d.expectedSlots.join() &&
      d.outcomes.every((o) => 'status' in o && o.status === 'scheduled');
    return new Findings()
      .expect(
        twoSlots,
        `one signal (BullMQ id ${d.runId}) handled at ${d.handledAt.map((t) => t.slice(11, 19)).join(' and ')}: slots ${keys.join(', ')}; ${d.rows.slots} slot rows, ${d.rows.jobs} jobs`,
        `exactly two slots (${d.expectedSlots.join(', ')}) and two jobs`,
      )
      .note(
        "the documented boundary: the model does not claim exactly-once for the signal (the course's execution-minute slot names the minute it was handled in)",
      )
      .outcome();
  },
});
