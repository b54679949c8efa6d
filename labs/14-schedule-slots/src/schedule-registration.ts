// The periodic signal, registered with BullMQ. There is no beat process: a Job Scheduler is
// a record in Redis (upserted by id, so registering it twice changes nothing), and it makes
// each next run when a worker starts the current one. Its runs go to exports.fast; the
// export each run creates goes to exports.bulk through the outbox.
import { formatDuration } from '@tasks-lab/lab-kit';
import type { Job, Queue } from 'bullmq';
import { SCHEDULE_TICK_JOB_NAME, type TickMessage, type TickOutcome } from './tick.ts';

/** The tick's own job options: one attempt (a failed signal is just a missed slot) and a short history. */
export const TICK_JOB_OPTIONS = { attempts: 1, removeOnComplete: 100, removeOnFail: 100 } as const;

/**
 * A queue that carries the periodic signal: its jobs hold a TickMessage. The result type is
 * left to the caller (a worker's TickOutcome, or `unknown` for a queue only read).
 */
export type TickQueue<Result = TickOutcome> = Queue<TickMessage, Result, string>;

/** One signal on such a queue: a TickMessage, under the name the schedule's template gives it. */
export type TickJob<Result = TickOutcome> = Job<TickMessage, Result, string>;

/** Creates or updates the schedule `scheduleId`: a signal every `everyMs` on `queue` (exports.fast). */
export async function upsertExportSchedule<Result>(
  queue: TickQueue<Result>,
  options: { scheduleId: string; everyMs: number },
): Promise<void> {
  const data: TickMessage = { schedule: options.scheduleId };
  await queue.upsertJobScheduler(
    options.scheduleId,
    { every: options.everyMs },
    { name: SCHEDULE_TICK_JOB_NAME, data, opts: TICK_JOB_OPTIONS },
  );
}

/** Removes the schedule (its pending run with it). `true` = there was one. */
export async function removeExportSchedule<Result>(queue: TickQueue<Result>, scheduleId: string): Promise<boolean> {
  return queue.removeJobScheduler(scheduleId);
}

/** What Redis holds for one schedule id on a queue, and how many schedules the queue has in all. */
export interface ScheduleState {
  scheduleId: string;
  registered: boolean;
  everyMs: number | undefined;
  /** The planned time of the pending run (the scheduler's `next`). */
  nextRunAt: Date | undefined;
  schedulersOnQueue: number;
}

export async function readScheduleState<Result>(
  queue: Pick<TickQueue<Result>, 'getJobScheduler' | 'getJobSchedulersCount'>,
  scheduleId: string,
): Promise<ScheduleState> {
  const scheduler = await queue.getJobScheduler(scheduleId);
  return {
    scheduleId,
    registered: scheduler !== undefined,
    everyMs: scheduler?.every,
    nextRunAt: scheduler?.next === undefined ? undefined : new Date(scheduler.next),
    schedulersOnQueue: await queue.getJobSchedulersCount(),
  };
}

/** "schedule export-each-minute: registered, every 1 min, next planned run 2026-…Z (in 59.9 s); 1 scheduler on this queue" */
export function describeScheduleState(state: ScheduleState, now: number = Date.now()): string {
  const others = `${state.schedulersOnQueue} scheduler(s) on this queue`;
  if (!state.registered)
    return `schedule ${state.scheduleId}: NOT registered (\`pnpm schedule\` registers it); ${others}`;
  const every = state.everyMs === undefined ? 'no interval' : `every ${formatDuration(state.everyMs)}`;
  const next =
    state.nextRunAt === undefined
      ? 'no planned run'
      : `next planned run ${state.nextRunAt.toISOString()} (${dueIn(state.nextRunAt.getTime() - now)})`;
  return `schedule ${state.scheduleId}: registered, ${every}, ${next}; ${others}`;
}

/** A new schedule's first run is planned for the moment it was registered: it is due at once. */
const dueIn = (ms: number) =>
  ms <= 0 ? 'due now: a worker on the queue takes it at once' : `in ${formatDuration(ms)}`;
