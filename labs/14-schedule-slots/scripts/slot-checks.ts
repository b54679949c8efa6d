// Lesson 14's slot checks: one job per slot, judged on the rows a real database kept.
//
//   The course's step 5, over HTTP: the same minute twice makes one job, the next minute a
//   second one. Ten calls for one new slot at once make one job (the course's "try it
//   yourself"). A full service still answers a taken slot (a duplicate is not a new
//   admission) and refuses a new one with nothing written.
//   The boundary, on a REAL run of the Job Scheduler handled twice across a minute boundary
//   (a redelivered signal, with injected clocks): the course's label (the handling minute)
//   makes two slots, as the course documents; the lab's key (the planned time) makes one.
//
// buildSlotChecks(deps) builds them without starting anything; deps swap in broken parts
// for the can-fail tests (test/slot-checks.can-fail.test.ts).
import { defineCheck, outcome, sharedScenario, SECOND, type Check } from '@tasks-lab/lab-kit';
import { BULK_QUEUE } from '@tasks-lab/13-admission';
import { readShortScheduleOptions, type ScheduleOptionValues } from '../src/options.ts';
import type { TickOutcome } from '../src/tick.ts';
import {
  CONCURRENT,
  concurrentSameSlot,
  COURSE_SLOTS,
  COURSE_TIMES,
  duplicateWhileFull,
  FULL,
  REAL_SLOT_PARTS,
  redeliveredSignal,
  rowsAdded,
  sameSlotAndNextMinute,
  type RedeliveryEvidence,
  type Rows,
  type SlotAnswer,
  type SlotContext,
  type SlotParts,
} from './slot-scenarios.ts';

export interface SlotCheckDeps {
  /** Broken parts for the can-fail tests; the rest stays real. */
  slotParts?: Partial<SlotParts>;
  /** @defaultValue the short timings (USE_COURSE_TIMINGS=1 forces the course's): the database session's lock wait comes from here */
  slotTimings?: ScheduleOptionValues;
}

const short = (id: string | undefined) => (id ? id.slice(0, 8) : 'none');
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
/** "12:00:59.000" from an ISO time: the part that matters around a minute boundary. */
const clock = (iso: string) => iso.slice(11, 23);

/** "5 × 200 already-scheduled, 1 × 202 scheduled": how many of each value, sorted. */
function tally(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return (
    [...counts]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([value, n]) => `${n} × ${value}`)
      .join(', ') || 'nothing'
  );
}

/** "202 scheduled shop-export:20260101T1000 job 1a2b3c4d (Location /exports/1a2b…)": one answer, as the client saw it. */
function describeAnswer(a: SlotAnswer): string {
  const key = a.slotKey ? ` ${a.slotKey}` : '';
  const job = a.jobId ? ` job ${short(a.jobId)}` : '';
  const location = a.location ? `, Location ${a.location.replace(/[0-9a-f-]{36}$/, (id) => `${short(id)}…`)}` : '';
  const retry = a.retryAfter ? `, Retry-After ${a.retryAfter}` : '';
  return `${a.status} ${a.outcome ?? '(no code)'}${key}${job}${location}${retry}`;
}

/** "+1 job, +1 slot, +1 event, gate +1" */
function describeAdded(added: Rows): string {
  const signed = (n: number) => (n >= 0 ? `+${n}` : String(n));
  return `${signed(added.jobs)} job${Math.abs(added.jobs) === 1 ? '' : 's'}, ${signed(added.slots)} slot${Math.abs(added.slots) === 1 ? '' : 's'}, ${signed(added.events)} event${Math.abs(added.events) === 1 ? '' : 's'}, gate ${signed(added.gate)}`;
}

const sameRows = (a: Rows, b: Rows) =>
  a.jobs === b.jobs && a.slots === b.slots && a.events === b.events && a.gate === b.gate;
const each = (n: number): Rows => ({ jobs: n, slots: n, events: n, gate: n });

/** The app's other log lines (an unexpected error's first line), cut short. */
const unexpected = (log: readonly string[]) =>
  log.length === 0
    ? ''
    : `; the app also logged: ${log
        .slice(0, 2)
        .map((l) => (l.split('\n')[0] ?? '').slice(0, 140))
        .join(' | ')}`;

/** A 202 that scheduled `slotKey`: its job id, and a Location that points at it. */
const scheduledAs = (a: SlotAnswer, slotKey: string) =>
  a.status === 202 &&
  a.outcome === 'scheduled' &&
  a.slotKey === slotKey &&
  a.jobId !== undefined &&
  a.location === `/exports/${a.jobId}`;

/** A 200 that answered the slot's earlier job, and no Location: nothing new was accepted. */
const alreadyAs = (a: SlotAnswer, slotKey: string, jobId: string | undefined) =>
  a.status === 200 &&
  a.outcome === 'already-scheduled' &&
  a.slotKey === slotKey &&
  jobId !== undefined &&
  a.jobId === jobId &&
  a.location === null;

// ---------------------------------------------------------------------------------
// The redelivered signal: the same run, handled 1 s before and 1 s after a minute boundary

function describeTicks(e: RedeliveryEvidence): string {
  const tick = (o: TickOutcome | undefined, i: number) =>
    o
      ? `at ${clock(e.handledAt[i] ?? '')}: slot ${o.slotKey} ${o.status}${o.jobId ? ` job ${short(o.jobId)}` : ''}`
      : 'not handled';
  return (
    `run ${e.runId} planned ${clock(e.plannedAt)}, handled twice with SLOT_KEY_FROM=${e.slotKeyFrom}: ${tick(e.outcomes[0], 0)}; ${tick(e.outcomes[1], 1)}; ` +
    `${describeAdded(rowsAdded(e.rows.before, e.rows.afterSecond))}; slots now: ${e.slots.map((s) => s.slotKey).join(', ') || 'none'}`
  );
}

function courseLabelTwoSlots(e: RedeliveryEvidence) {
  const [first, second] = e.outcomes;
  const ok =
    e.slotKeyFrom === 'execution' &&
    first?.status === 'scheduled' &&
    first.slotKey === e.expected.execution[0] &&
    second?.status === 'scheduled' &&
    second.slotKey === e.expected.execution[1] &&
    first.jobId !== second.jobId &&
    sameRows(rowsAdded(e.rows.before, e.rows.afterSecond), each(2)) &&
    e.slots.length === 2;
  const expected = `the course's labels ${e.expected.execution.join(' and ')}`;
  return outcome(ok, `${describeTicks(e)} (expected ${expected}: two slots, two jobs, the documented boundary)`);
}

function plannedKeyOneSlot(e: RedeliveryEvidence) {
  const [first, second] = e.outcomes;
  const ok =
    e.slotKeyFrom === 'planned' &&
    first?.status === 'scheduled' &&
    first.slotKey === e.expected.planned &&
    second?.status === 'already-scheduled' &&
    second.slotKey === e.expected.planned &&
    second.jobId === first.jobId &&
    sameRows(rowsAdded(e.rows.before, e.rows.afterSecond), each(1)) &&
    e.slots.length === 1;
  return outcome(
    ok,
    `${describeTicks(e)} (expected the planned slot ${e.expected.planned} once, then already-scheduled)`,
  );
}

export function buildSlotChecks(deps: SlotCheckDeps = {}): Check[] {
  const ctx: SlotContext = {
    parts: { ...REAL_SLOT_PARTS, ...deps.slotParts },
    timings: deps.slotTimings ?? readShortScheduleOptions(),
  };
  const sameSlot = sharedScenario((signal) => sameSlotAndNextMinute(ctx, signal));
  const timeoutMs = 30 * SECOND;
  return [
    defineCheck({
      id: 'same-slot-twice-one-job',
      name: `POST /schedule-slots twice with at = ${COURSE_TIMES.t1}: the first answers 202 scheduled for the course's slot ${COURSE_SLOTS.t1} (+1 job, slot, outbox event on ${BULK_QUEUE} and gate entry), the second 200 already-scheduled with the same job, and adds no row`,
      timeoutMs,
      scenario: sameSlot,
      judge: (e) => {
        const jobId = e.first.jobId;
        const queues = jobId ? (e.queuesOf[jobId] ?? []) : [];
        const firstAdded = rowsAdded(e.rows.before, e.rows.afterFirst);
        const againAdded = rowsAdded(e.rows.afterFirst, e.rows.afterAgain);
        const ok =
          scheduledAs(e.first, COURSE_SLOTS.t1) &&
          sameRows(firstAdded, each(1)) &&
          queues.length === 1 &&
          queues[0] === BULK_QUEUE &&
          alreadyAs(e.again, COURSE_SLOTS.t1, jobId) &&
          sameRows(againAdded, each(0));
        return outcome(
          ok,
          `first: ${describeAnswer(e.first)} (${describeAdded(firstAdded)}; its events on ${queues.join(', ') || 'no queue'}); ` +
            `again: ${describeAnswer(e.again)} (${describeAdded(againAdded)})${unexpected(e.log)}`,
        );
      },
    }),
    defineCheck({
      id: 'next-minute-new-job',
      name: `Then at = ${COURSE_TIMES.t2}, the next minute: 202 scheduled for ${COURSE_SLOTS.t2}, a second, different job (+1 job, slot and event)`,
      timeoutMs,
      scenario: sameSlot,
      judge: (e) => {
        const added = rowsAdded(e.rows.afterAgain, e.rows.afterNext);
        const ok = scheduledAs(e.next, COURSE_SLOTS.t2) && e.next.jobId !== e.first.jobId && sameRows(added, each(1));
        return outcome(
          ok,
          `next minute: ${describeAnswer(e.next)} (${describeAdded(added)}); the first minute's job was ${short(e.first.jobId)}${unexpected(e.log)}`,
        );
      },
    }),
    defineCheck({
      id: 'concurrent-same-slot-one-job',
      name: `${CONCURRENT.calls} POSTs for one new slot at once: exactly one 202 scheduled, ${CONCURRENT.calls - 1} × 200 already-scheduled naming the same job, and exactly one job, slot and event added`,
      timeoutMs,
      scenario: (signal) => concurrentSameSlot(ctx, signal),
      judge: (e) => {
        const answered = e.answers.map((a) => `${a.status} ${a.outcome ?? '(no code)'}`);
        const scheduled = e.answers.filter((a) => scheduledAs(a, CONCURRENT.slotKey));
        const already = e.answers.filter((a) => alreadyAs(a, CONCURRENT.slotKey, e.jobOfSlot));
        const jobIds = new Set(e.answers.map((a) => a.jobId ?? 'none'));
        const added = rowsAdded(e.before, e.after);
        const ok =
          scheduled.length === 1 &&
          scheduled[0]?.jobId === e.jobOfSlot &&
          already.length === CONCURRENT.calls - 1 &&
          sameRows(added, each(1)) &&
          e.jobsWithoutSlot === 0;
        return outcome(
          ok,
          `${e.answers.length} POSTs for ${CONCURRENT.slotKey} at once: ${tally(answered)} in ${seconds(e.ms)}; they name ${jobIds.size} distinct job id(s), ` +
            `the slot's job is ${short(e.jobOfSlot)}; ${describeAdded(added)}; ${e.jobsWithoutSlot} job(s) without a slot${unexpected(e.log)}`,
        );
      },
    }),
    defineCheck({
      id: 'duplicate-slot-while-full-already-scheduled',
      name: `With the admission limit (${FULL.limit}) reached, the slot already taken still answers 200 already-scheduled (not 503), and a new slot is refused with 503 capacity-exceeded and Retry-After, writing no job, slot or event`,
      timeoutMs,
      scenario: (signal) => duplicateWhileFull(ctx, signal),
      judge: (e) => {
        const setUp =
          e.filler.status === 202 && scheduledAs(e.taken, FULL.takenSlot) && e.full.gate === e.rules.admissionLimit;
        const duplicateOk = alreadyAs(e.duplicate, FULL.takenSlot, e.taken.jobId);
        const refusedOk =
          e.newSlot.status === 503 &&
          e.newSlot.outcome === 'capacity-exceeded' &&
          e.newSlot.retryAfter === String(e.rules.retryAfterSeconds) &&
          sameRows(e.full, e.after) &&
          e.jobOfNewSlot === undefined;
        const setup = setUp
          ? `full (gate ${e.full.gate} of ${e.rules.admissionLimit})`
          : `NOT full as set up (export ${e.filler.status}, slot ${describeAnswer(e.taken)}, gate ${e.full.gate} of ${e.rules.admissionLimit})`;
        return outcome(
          setUp && duplicateOk && refusedOk,
          `${setup}: the taken slot again: ${describeAnswer(e.duplicate)} (its job was ${short(e.taken.jobId)}); a new slot: ${describeAnswer(e.newSlot)}; ` +
            `the two left ${describeAdded(rowsAdded(e.full, e.after))}${e.jobOfNewSlot ? `, and the new slot names job ${short(e.jobOfNewSlot)}` : ''}${unexpected(e.log)}`,
        );
      },
    }),
    defineCheck({
      id: 'redelivered-signal-course-label-two-slots',
      name: "The documented boundary: with the course's label (the minute the signal is handled), one real run of the Job Scheduler handled 1 s before and 1 s after a minute boundary (a redelivery) makes two slots and two jobs",
      timeoutMs,
      scenario: redeliveredSignal(ctx, 'execution'),
      judge: courseLabelTwoSlots,
    }),
    defineCheck({
      id: 'redelivered-signal-planned-key-one-slot',
      name: "The lab's key (the run's planned time): the same two handlings of one run make one slot and one job; the second answers already-scheduled",
      timeoutMs,
      scenario: redeliveredSignal(ctx, 'planned'),
      judge: plannedKeyOneSlot,
    }),
  ];
}
