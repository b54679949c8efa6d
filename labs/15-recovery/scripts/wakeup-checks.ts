// Lesson 15's lost wake-up, as checks: the course's defect reproduced on every run, and the
// fix shown on the same experiment (scripts/wakeup-scenarios.ts).
//
//   lost-wake-up-course-claim     lesson 11's claim: EVERY wake-up that arrives while the
//                                 confirmation holds the job row is consumed without a claim
//   lost-wake-up-fixed            claimOrWait: every job claimed by its first delivery, after
//                                 waiting for the confirmation
//   duplicate-wake-up-one-claim   two wake-ups of one job wait on the same lock: one claims, the
//                                 other re-checks and claims nothing (attempts stays 1)
//   ...-one-update                the last two again with the lab's default claim, claimInOneUpdate
//                                 (lesson 11's conditional UPDATE alone, then a read), by the same judges
//
// The judges only count what happened inside the lock window, which the evidence bounds
// from below: the row is surely locked from `lockedAt` (the fault point) for faultDelayMs.
// A claim that STARTED in [lockedAt, lockedAt + delay) met a locked row; one that ENDED
// after lockedAt + delay waited for it (an unwaited claim answers in a few ms).
//
// buildWakeupChecks(deps) builds them without starting anything; deps swap in broken parts
// for the can-fail tests (test/wakeup-checks.can-fail.test.ts).
import { defineCheck, outcome, SECOND, type Check } from '@tasks-lab/lab-kit';
import type { ClaimFn } from '../src/claim.ts';
import type { RecoveryOptionValues } from '../src/options.ts';
import {
  CLAIM_DELAY_MS,
  COURSE_CLAIM,
  DUPLICATE_JOBS,
  FAULT_DELAY_MS,
  FIXED_CLAIM,
  LOST_WAKEUP_JOBS,
  lostWakeUps,
  ONE_UPDATE_CLAIM,
  type NamedClaim,
  wakeupSetup,
  type ClaimSeen,
  type WakeupEvidence,
  type WakeupRun,
} from './wakeup-scenarios.ts';

export interface WakeupCheckDeps {
  /** The fixed claim under test (a can-fail passes a broken one). @defaultValue claimOrWait */
  wakeupFixedClaim?: ClaimFn;
  /** The one-update claim under test (a can-fail passes a broken one). @defaultValue claimInOneUpdate */
  wakeupOneUpdateClaim?: ClaimFn;
  /** How long the confirmation holds the job lock; 0 = the fault point off (a can-fail). @defaultValue 500 */
  wakeupFaultDelayMs?: number;
  /** @defaultValue the short timings (the lock wait, 1 s, and the busy retry delay come from here) */
  wakeupTimings?: RecoveryOptionValues;
}

// ---------------------------------------------------------------------------------
// Reading the evidence

/** The claim started while the confirmation surely held the row. */
const staged = (run: WakeupRun, d: ClaimSeen, delayMs: number) => {
  const lockedAt = run.confirm?.lockedAt;
  return lockedAt !== undefined && delayMs > 0 && d.claimStartedAt >= lockedAt && d.claimStartedAt < lockedAt + delayMs;
};

/** The claim ended only after the lock could have been released: it waited. */
const waited = (run: WakeupRun, d: ClaimSeen, delayMs: number) => {
  const lockedAt = run.confirm?.lockedAt;
  return lockedAt !== undefined && delayMs > 0 && d.claimEndedAt >= lockedAt + delayMs;
};

const claimMs = (d: ClaimSeen) => d.claimEndedAt - d.claimStartedAt;
const allDeliveries = (e: WakeupEvidence) => e.runs.flatMap((run) => run.deliveries.map((d) => ({ run, d })));
const countWhere = <T>(items: readonly T[], test: (item: T) => boolean) => items.filter(test).length;

/** "12–15 ms": the range of the claims' durations. */
function range(values: readonly number[]): string {
  if (values.length === 0) return 'no claims';
  const [min, max] = [Math.min(...values), Math.max(...values)];
  return min === max ? `${min} ms` : `${min}–${max} ms`;
}

/** "3 × claimed, 1 × not-claimable": how many of each outcome. */
function tally(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return (
    [...counts]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([value, n]) => `${n} × ${value}`)
      .join(', ') || 'none'
  );
}

const confirmedAndDispatched = (run: WakeupRun) =>
  run.confirm?.confirmed === true && run.eventSent && run.row?.dispatched === true;
const rowIs = (run: WakeupRun, status: string, attempts: number) =>
  run.row?.status === status && run.row.attempts === attempts;

function describeSetup(e: WakeupEvidence): string {
  const fault = e.faultRule
    ? `the confirmation holding the job lock ${e.faultDelayMs} ms (${e.faultRule})`
    : 'NO fault point (the confirmation holds the lock only for its few statements)';
  return `${e.claimName}, ${fault}, claims ${e.claimDelayMs} ms after receipt`;
}

function describeTrouble(e: WakeupEvidence): string {
  const unsettled = countWhere(e.runs, (r) => !r.settled);
  const unconfirmed = countWhere(e.runs, (r) => !confirmedAndDispatched(r));
  const parts = [
    unsettled ? `${unsettled} job(s) not handled within the wait` : '',
    unconfirmed ? `${unconfirmed} confirmation(s) without sent_at and last_dispatched_at` : '',
    e.errors.length ? `errors: ${e.errors.map((line) => line.slice(0, 140)).join(' | ')}` : '',
  ].filter(Boolean);
  return parts.length ? `; ${parts.join('; ')}` : '';
}

// ---------------------------------------------------------------------------------
// The judges

function courseClaimLosesEveryWakeUp(e: WakeupEvidence) {
  const deliveries = allDeliveries(e);
  const lost = countWhere(
    e.runs,
    (run) => run.deliveries.length === 1 && run.deliveries[0]?.outcome === 'not-claimable' && rowIs(run, 'queued', 0),
  );
  const consumed = countWhere(
    e.runs.flatMap((r) => r.messages),
    (m) => m.state === 'completed' && m.claimed === false,
  );
  const claimed = countWhere(deliveries, ({ d }) => d.outcome === 'claimed');
  const inWindow = countWhere(deliveries, ({ run, d }) => staged(run, d, e.faultDelayMs));
  const ok =
    e.runs.length === LOST_WAKEUP_JOBS &&
    lost === LOST_WAKEUP_JOBS &&
    consumed === LOST_WAKEUP_JOBS &&
    inWindow === LOST_WAKEUP_JOBS &&
    e.runs.every((r) => r.settled && confirmedAndDispatched(r));
  return outcome(
    ok,
    `${describeSetup(e)}: ${e.runs.length} jobs, ${deliveries.length} deliveries (${tally(deliveries.map(({ d }) => d.outcome))}); ` +
      `claimed ${claimed}, LOST ${lost} of ${e.runs.length} (the wake-up consumed, BullMQ completed with claimed=false: ${consumed}; the job still queued with attempts 0, ` +
      `sent and dispatched, left to the scanner's 60 s); claims inside the confirmation's lock window: ${inWindow} of ${deliveries.length}, ` +
      `answered in ${range(deliveries.map(({ d }) => claimMs(d)))} without waiting${describeTrouble(e)} ` +
      `(expected: every one of the ${LOST_WAKEUP_JOBS} lost, the course's defect)`,
  );
}

function fixedClaimTakesEveryJob(e: WakeupEvidence) {
  const deliveries = allDeliveries(e);
  const claimedFirst = countWhere(
    e.runs,
    (run) => run.deliveries.length === 1 && run.deliveries[0]?.outcome === 'claimed' && rowIs(run, 'running', 1),
  );
  const lost = countWhere(e.runs, (run) => run.row?.status === 'queued');
  const busy = countWhere(deliveries, ({ d }) => d.outcome === 'busy');
  const waitedFor = deliveries.filter(
    ({ run, d }) => d.outcome === 'claimed' && staged(run, d, e.faultDelayMs) && waited(run, d, e.faultDelayMs),
  );
  const completed = countWhere(
    e.runs.flatMap((r) => r.messages),
    (m) => m.state === 'completed' && m.claimed === true,
  );
  const ok =
    e.runs.length === LOST_WAKEUP_JOBS &&
    claimedFirst === LOST_WAKEUP_JOBS &&
    waitedFor.length === LOST_WAKEUP_JOBS &&
    completed === LOST_WAKEUP_JOBS &&
    e.runs.every((r) => r.settled && confirmedAndDispatched(r));
  return outcome(
    ok,
    `${describeSetup(e)}: ${e.runs.length} jobs, ${deliveries.length} deliveries (${tally(deliveries.map(({ d }) => d.outcome))}); ` +
      `claimed by their first delivery: ${claimedFirst} of ${e.runs.length}, lost ${lost}, put back busy ${busy}; ` +
      `claims that met the locked row and waited for the confirmation's commit: ${waitedFor.length}` +
      `${waitedFor.length ? `, waiting ${range(waitedFor.map(({ d }) => claimMs(d)))}` : ''} (lock wait ${e.lockWaitSeconds} s); all claims took ${range(deliveries.map(({ d }) => claimMs(d)))}${describeTrouble(e)} ` +
      `(expected: all ${LOST_WAKEUP_JOBS} claimed by their first delivery, after a wait, none left for the scanner)`,
  );
}

function duplicateClaimsOnce(e: WakeupEvidence) {
  const oneClaim = (run: WakeupRun) => {
    const outcomes = run.deliveries.map((d) => d.outcome).sort();
    return (
      outcomes.length === 2 && outcomes[0] === 'claimed' && outcomes[1] === 'not-claimable' && rowIs(run, 'running', 1)
    );
  };
  const deliveries = allDeliveries(e);
  const bothWaited = countWhere(
    e.runs,
    (run) =>
      run.deliveries.length === 2 &&
      run.deliveries.every((d) => staged(run, d, e.faultDelayMs) && waited(run, d, e.faultDelayMs)),
  );
  const good = countWhere(e.runs, oneClaim);
  const ok =
    e.runs.length === DUPLICATE_JOBS &&
    good === DUPLICATE_JOBS &&
    bothWaited === DUPLICATE_JOBS &&
    e.runs.every((r) => r.settled && confirmedAndDispatched(r));
  const perJob = e.runs
    .map(
      (run, i) =>
        `job ${i + 1}: ${tally(run.deliveries.map((d) => d.outcome))}, now ${run.row?.status ?? 'missing'} with attempts ${run.row?.attempts ?? '?'}`,
    )
    .join('; ');
  return outcome(
    ok,
    `${describeSetup(e)}, each event's wake-up sent twice: ${perJob}; jobs whose two deliveries both met the locked row and waited: ${bothWaited} of ${e.runs.length}; ` +
      `claims took ${range(deliveries.map(({ d }) => claimMs(d)))}${describeTrouble(e)} ` +
      `(expected per job: one claimed, one not-claimable after re-checking the row, attempts 1)`,
  );
}

export function buildWakeupChecks(deps: WakeupCheckDeps = {}): Check[] {
  const changes = {
    faultDelayMs: deps.wakeupFaultDelayMs ?? FAULT_DELAY_MS,
    ...(deps.wakeupTimings ? { timings: deps.wakeupTimings } : {}),
  };
  const timeoutMs = 30 * SECOND;
  /** The two checks a claim that fixes the lost wake-up must pass; `suffix` names its form in the ids. */
  const fixedClaimChecks = (fixed: NamedClaim, suffix: string): Check[] => [
    defineCheck({
      id: `lost-wake-up-fixed${suffix}`,
      name: `The same experiment with ${fixed.name}: each of the ${LOST_WAKEUP_JOBS} jobs is claimed by its first delivery, which waits for the confirmation to commit (none lost, none put back)`,
      timeoutMs,
      scenario: (signal) => lostWakeUps(wakeupSetup(fixed, changes))(signal),
      judge: fixedClaimTakesEveryJob,
    }),
    defineCheck({
      id: `duplicate-wake-up-one-claim${suffix}`,
      name: `Two wake-ups of one job arrive during its confirmation (${DUPLICATE_JOBS} jobs), claimed with ${fixed.name}: both wait on the row; one claims it, the other re-checks and claims nothing; attempts stays 1`,
      timeoutMs,
      scenario: (signal) =>
        lostWakeUps(wakeupSetup(fixed, { ...changes, jobs: DUPLICATE_JOBS, duplicates: true }))(signal),
      judge: duplicateClaimsOnce,
    }),
  ];
  return [
    defineCheck({
      id: 'lost-wake-up-course-claim',
      name:
        `The course's defect, reproduced: with the confirmation holding the job row ${FAULT_DELAY_MS} ms (confirm-holding-job-lock) and the worker claiming ` +
        `${CLAIM_DELAY_MS} ms after receipt, lesson 11's SKIP LOCKED claim finds nothing for every one of ${LOST_WAKEUP_JOBS} wake-ups: each is consumed ` +
        '(completed, claimed=false) and its job stays queued, waiting for the scanner',
      timeoutMs,
      scenario: (signal) => lostWakeUps(wakeupSetup(COURSE_CLAIM, changes))(signal),
      judge: courseClaimLosesEveryWakeUp,
    }),
    ...fixedClaimChecks(inPlaceOf(FIXED_CLAIM, deps.wakeupFixedClaim), ''),
    ...fixedClaimChecks(inPlaceOf(ONE_UPDATE_CLAIM, deps.wakeupOneUpdateClaim), '-one-update'),
  ];
}

/** The claim a check runs: the lab's, or a can-fail's broken one named as standing in its place. */
function inPlaceOf(lab: NamedClaim, replaced: ClaimFn | undefined): NamedClaim {
  return replaced ? { name: `${replaced.name || 'another claim'} (in ${lab.name}'s place)`, claim: replaced } : lab;
}
