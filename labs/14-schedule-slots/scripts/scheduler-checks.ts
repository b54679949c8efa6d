// Lesson 14's scheduler checks: the real periodic signal, with real worker processes. The signal
// is a `schedule-tick` job on exports.fast and the export it creates runs on exports.bulk; a fast
// worker stopped for more than two intervals gets ONE overdue run, not one per missed interval
// (BullMQ, like Celery beat, does not backfill); registering the schedule twice leaves one
// scheduler. The scenarios (scripts/scheduler-scenarios.ts) run the real thing; each judge
// below reads only their evidence.
// buildSchedulerChecks(deps) swaps a broken part in for the can-fail tests; building starts nothing.
import { defineCheck, outcome, type Check, formatDuration } from '@tasks-lab/lab-kit';
import { BULK_QUEUE, FAST_QUEUE } from '@tasks-lab/13-admission';
import type { ScheduleOptionValues } from '../src/options.ts';
import { SCHEDULE_TICK_JOB_NAME } from '../src/tick.ts';
import {
  downtimeDrill,
  registerTwice,
  signalToBulk,
  type CommandRun,
  type DowntimeEvidence,
  type RegisterEvidence,
  type SchedulerParts,
  type SchedulerSetup,
  type SignalEvidence,
  type SlotRow,
} from './scheduler-scenarios.ts';

export interface SchedulerCheckDeps {
  /** Broken parts (the can-fail tests): a worker, or `pnpm schedule`, of a fixture. */
  schedulerParts?: Partial<SchedulerParts>;
  /** @defaultValue the short timings with a 1 s schedule (schedulerTimings()) */
  schedulerTimings?: ScheduleOptionValues;
}

const show = (value: unknown) => JSON.stringify(value);
const shortId = (id: string) => `${id.slice(0, 8)}…`;
/** 2026-01-01T10:00:03.123Z -> "10:00:03.123": the experiments last seconds, the date adds nothing. */
const clock = (ms: number | undefined) => (ms === undefined ? 'none' : new Date(ms).toISOString().slice(11, 23));
const exitOf = (run: CommandRun) =>
  run.exit.code === 0 ? 'exit 0' : `exit ${show(run.exit)}: ${run.lastLine.slice(0, 120)}`;

// ---- 1. the signal and the export --------------------------------------------------

function judgeSignal(e: SignalEvidence) {
  const t = e.tickJob;
  const expectedId = t ? `repeat:${e.scheduleId}:${t.plannedAt}` : undefined;
  const signalOk =
    t !== undefined && t.name === SCHEDULE_TICK_JOB_NAME && t.queueName === FAST_QUEUE && t.id === expectedId;
  const eventOk = show(e.eventQueues) === show([BULK_QUEUE]);
  const deliveryOk = show(e.deliveredBy) === show(['bulk']) && e.state === 'succeeded';
  const signal = t
    ? `the signal was BullMQ job ${t.id}, ${t.name} on ${t.queueName}` +
      (signalOk ? '' : ` (EXPECTED ${SCHEDULE_TICK_JOB_NAME} on ${FAST_QUEUE}, id ${expectedId})`)
    : `NO ${SCHEDULE_TICK_JOB_NAME} was handled on ${FAST_QUEUE} (${e.ticks.length} signal lines${e.failures[0] ? `; ${e.failures[0].slice(0, 200)}` : ''})`;
  const slot = e.slot
    ? `; its slot ${e.slot.slotKey} -> job ${shortId(e.slot.jobId)}: outbox event to ${e.eventQueues.join(' + ') || 'nowhere'}${eventOk ? '' : ` (EXPECTED ${BULK_QUEUE})`}, ` +
      `delivered by ${e.deliveredBy.length === 0 ? 'NO worker' : e.deliveredBy.map((r) => `the ${r} worker`).join(' and ')}${deliveryOk ? '' : ' (EXPECTED the bulk worker only)'}, ` +
      `${show(e.state)}${e.succeededAfterMs === null ? '' : ` ${formatDuration(e.succeededAfterMs)} after \`pnpm schedule\``}`
    : '; no slot was made';
  const publisher = e.publisherErrors[0] ? `; publisher: ${e.publisherErrors[0].slice(0, 100)}` : '';
  return outcome(
    signalOk && eventOk && deliveryOk,
    `${signal}${slot}${publisher} (pnpm schedule: ${exitOf(e.schedule)}; ${e.timings})`,
  );
}

// ---- 2. no backfill --------------------------------------------------------------

function judgeDowntime(e: DowntimeEvidence) {
  const every = e.everyMs;
  const last = e.lastPlannedBeforeStop;
  const [firstRun, secondRun] = e.runs;
  const stop = `fast worker stopped with SIGTERM (${firstRun?.exit.code === 0 ? 'exit 0' : `exit ${show(firstRun?.exit)}`}) at ${clock(e.stoppedAt)}, started again at ${clock(e.restartedAt)} (ready ${clock(e.readyAt)})`;
  if (last === undefined)
    return outcome(
      false,
      `no slot was made before the stop (${e.slotsBeforeStop} slots; pnpm schedule: ${exitOf(e.schedule)}); ${stop} (${e.timings})`,
    );

  // The planned times that fell between the last run before the stop and the restart.
  const missed = Math.floor((e.restartedAt - last) / every);
  const planned = (s: SlotRow) => s.plannedAt ?? Number.NaN;
  const inDowntime = e.slots.filter((s) => planned(s) > last && planned(s) <= e.restartedAt);
  const after = e.slots.filter((s) => planned(s) > e.restartedAt);
  const gaps = after.slice(1).map((s, i) => planned(s) - planned(after[i]!));
  const origin = e.slots[0] ? planned(e.slots[0]) : 0;
  const offGrid = e.slots.filter((s) => !((planned(s) - origin) % every === 0));
  // A run that starts more than `every` late (a busy machine) plans the next one from then: a
  // planned time is skipped, the same no-backfill rule, so a gap may be a whole multiple of `every`.
  const onGrid = (g: number) => g >= every && g % every === 0;
  const skips = gaps.filter((g) => g > every).length;
  const cadenceOk = after.length >= 1 && gaps.every(onGrid) && offGrid.length === 0;
  const handled = (s: SlotRow) => secondRun?.ticks.find((t) => t.slotKey === s.slotKey)?.handledAt;
  const downtimeSlots = inDowntime.map(
    (s) => `${clock(s.plannedAt)}${handled(s) ? ` (handled ${clock(Date.parse(handled(s)!))})` : ''}`,
  );

  const downtimeText =
    `${missed} planned time(s) fell in between (every ${formatDuration(every)} after ${clock(last)}); slots for them: ${inDowntime.length}` +
    (inDowntime.length === 1
      ? `, ${downtimeSlots[0]}: the one overdue run`
      : ` ${show(downtimeSlots)} (EXPECTED exactly 1: no backfill)`);
  const afterText =
    `after the restart: ${after.length} slot(s) at ${after.map((s) => clock(s.plannedAt)).join(', ') || 'none'}` +
    (cadenceOk
      ? skips === 0
        ? `, ${formatDuration(every)} apart`
        : `, on the ${formatDuration(every)} grid (gaps ${show(gaps)} ms: ${skips} run(s) started late, so their next planned time was skipped, not made up)`
      : ` (NOT the cadence: gaps ${show(gaps)} ms${offGrid.length > 0 ? `, ${offGrid.length} slot(s) off the schedule's grid` : ''})`);
  return outcome(
    missed >= 2 && inDowntime.length === 1 && cadenceOk,
    `${e.slotsBeforeStop} slot(s) before the stop (last planned ${clock(last)}); ${stop}: ${downtimeText}; ${afterText} (${e.timings})`,
  );
}

// ---- 3. one schedule per id -------------------------------------------------------

function judgeRegister(e: RegisterEvidence) {
  const [first, second] = e.runs;
  const exitsOk = e.runs.length === 2 && e.runs.every((r) => r.exit.code === 0);
  const samePlan = first?.nextPlanned !== undefined && first.nextPlanned === second?.nextPlanned;
  const one = e.schedulers.length === 1 && e.schedulers[0]?.id === e.scheduleId && e.pendingRuns.length === 1;
  return outcome(
    exitsOk && samePlan && one,
    `two \`pnpm schedule\` runs (${e.runs.map(exitOf).join(', ')}) printed the next planned run ${first?.nextPlanned ?? 'none'} then ${second?.nextPlanned ?? 'none'}` +
      `${samePlan ? ' (the same run)' : ''}; ${FAST_QUEUE} holds ${e.schedulers.length} scheduler(s) ${show(e.schedulers.map((s) => s.id))}` +
      ` and ${e.pendingRuns.length} pending signal(s) ${show(e.pendingRuns.map((r) => r.id))}${one ? '' : ` (EXPECTED 1 scheduler "${e.scheduleId}" and 1 pending run)`} (${e.timings})`,
  );
}

export function buildSchedulerChecks(deps: SchedulerCheckDeps = {}): Check[] {
  const setup: SchedulerSetup = { parts: deps.schedulerParts, timings: deps.schedulerTimings };
  return [
    defineCheck({
      id: 'signal-on-fast-export-on-bulk',
      name: "The periodic signal is a schedule-tick job on exports.fast (BullMQ id repeat:<schedule>:<planned ms>); the fast worker turns it into a slot whose export's outbox event goes to exports.bulk, and the bulk worker runs it to success",
      timeoutMs: 60_000,
      scenario: signalToBulk(setup),
      judge: judgeSignal,
    }),
    defineCheck({
      id: 'no-backfill-after-downtime',
      name: "The course's drill with a 1 s interval: the fast worker stopped for more than two intervals gets ONE slot for the planned times it missed (the overdue run BullMQ keeps), not one per interval, and the cadence resumes after the restart",
      timeoutMs: 60_000,
      scenario: downtimeDrill(setup),
      judge: judgeDowntime,
    }),
    defineCheck({
      id: 'one-schedule-per-id',
      name: '`pnpm schedule` run twice leaves ONE scheduler and one pending run on exports.fast: the upsert by id cannot double the signals the way two beats do',
      timeoutMs: 60_000,
      scenario: registerTwice(setup),
      judge: judgeRegister,
    }),
  ];
}
