// Lesson 10's learning checks and fault drills. Each runs an experiment from
// scripts/scenarios.ts for real (a worker in its own process, BullMQ on the lab's Redis,
// the lab's database) and judges the evidence; every retry check counts real
// executions the worker wrote to Redis. buildChecks(deps) swaps in broken parts for
// test/checks.can-fail.test.ts; building starts nothing.
import { defineCheck, faultRule, outcome, type Check } from '@tasks-lab/lab-kit';
import {
  EXPORT_ATTEMPTS,
  DEADLINE_EXCEEDED,
  INSUFFICIENT_RETRY_BUDGET,
  type fullJitterDelayMs,
} from '../src/retry-policy.ts';
import type { deductStockOnce } from '../src/inventory.ts';
import { HARD_TIME_LIMIT_EXCEEDED, SOFT_TIME_LIMIT_EXCEEDED } from '../src/time-limits.ts';
import {
  VERIFY_TIMINGS,
  crawlRun,
  exportRun,
  rerunDeductionJob,
  sameOrderDeductions,
  sampleBackoff,
  timedRetries,
  type ExportRunEvidence,
  type SubmitExport,
  type WorkerUnderTest,
} from './scenarios.ts';

export interface RetryCheckDeps {
  /** The backoff function the cap check samples. */
  backoffDelay?: typeof fullJitterDelayMs;
  /** `attempts` on every submitted export (all runs, the first included). */
  attempts?: number;
  /** The worker process the job checks start; fixtures start a broken variant. */
  worker?: WorkerUnderTest;
  /** The deduction the same-order check runs in this process. */
  deductOnce?: typeof deductStockOnce;
  /** How the timed-backoff check's producer adds its job (a broken variant drops `backoff`). */
  submitExport?: SubmitExport;
  /** How long past the hard limit the hard-limit check waits for its job to settle. @defaultValue 10000 */
  hardLimitGraceMs?: number;
}

/**
 * How far a measured gap may stray from its planned wait. It cannot be shorter (BullMQ
 * keeps a delayed job until its time, and the gap also holds the failed run itself); it
 * may be longer by the failed run, BullMQ moving the job back, and the next pickup.
 */
const GAP_EARLY_MS = 5;
const GAP_LATE_MS = 400;

/** The budget drill (doc step 5 uses the same): a 3 s deadline, and a source that needs all of it before it fails. */
const SLOW_SOURCE_MS = 3000;

const describeRun = (run: ExportRunEvidence) =>
  `${run.state}${run.state === 'failed' ? ` with "${run.failedReason}"` : ''}; ${run.runs.length} run(s), ${run.reads} read(s) of the source` +
  `${run.faults ? ` (LAB_FAULTS ${run.faults})` : ''}`;

export function buildChecks(deps: RetryCheckDeps = {}): Check[] {
  const { worker } = deps;
  const attempts = deps.attempts ?? EXPORT_ATTEMPTS;
  return [
    defineCheck({
      id: 'backoff-capped-full-jitter',
      name: 'Backoff waits are full jitter under a cap of 8 s',
      scenario: () => sampleBackoff(deps.backoffDelay),
      judge: (e) => {
        // A missing wait is NaN, and NaN < x is false: a short list does not "grow".
        const [first = NaN, second = NaN, third = NaN, fourth = NaN] = e.longest;
        const grows = first < second && second < third && third < fourth;
        return outcome(
          grows && e.longest.every((wait) => wait <= e.capMs) && e.shortest === 0 && e.outside === 0,
          `longest waits for retries 1-6 and 10: ${e.longest.join(', ')} ms (ceilings ${e.ceilings.join(', ')}); shortest ${e.shortest} ms; ` +
            `${e.outside} of ${e.samples} random waits outside [0, ceiling]`,
        );
      },
    }),
    defineCheck({
      id: 'recovers-after-two-failures',
      name: 'Two temporary failures, then success: 3 runs, completed',
      scenario: (signal) =>
        exportRun(signal, {
          worker,
          submit: deps.submitExport,
          faults: faultRule('source-read', 'throw', 2),
          request: { deadlineInMs: 30_000, attempts },
        }),
      judge: (run) =>
        outcome(
          run.state === 'completed' && run.runs.length === 3 && run.rows === 1,
          `${describeRun(run)}; result rows ${run.rows}; waits between runs ${run.gaps.join(', ')} ms`,
        ),
    }),
    defineCheck({
      id: 'expired-deadline-skips-source',
      name: 'An expired deadline fails before any read',
      scenario: (signal) =>
        exportRun(signal, { worker, submit: deps.submitExport, request: { deadlineInMs: -1000, attempts } }),
      judge: (run) =>
        outcome(
          run.state === 'failed' && run.failedReason === DEADLINE_EXCEEDED && run.reads === 0 && run.runs.length <= 1,
          describeRun(run),
        ),
    }),
    defineCheck({
      id: 'permanent-error-runs-once',
      name: 'A permanent error runs exactly once',
      // Real invalid input: a category the source does not have. No fault needed.
      scenario: (signal) =>
        exportRun(signal, {
          worker,
          submit: deps.submitExport,
          request: { category: 'discontinued', deadlineInMs: 30_000, attempts },
        }),
      judge: (run) =>
        outcome(
          run.state === 'failed' && run.runs.length === 1,
          `${describeRun(run)} (attempts allowed: ${run.attemptsAllowed})`,
        ),
    }),
    defineCheck({
      id: 'always-failing-runs-four-times',
      name: 'A job that always fails runs exactly 4 times (1 + 3 retries)',
      scenario: (signal) =>
        exportRun(signal, {
          worker,
          submit: deps.submitExport,
          faults: faultRule('source-read', 'throw', 'always'),
          request: { deadlineInMs: 60_000, attempts },
        }),
      judge: (run) =>
        outcome(
          run.state === 'failed' && run.runs.length === 4 && run.failedReason === 'temporary source failure',
          `${describeRun(run)}; waits between runs ${run.gaps.join(', ')} ms ` +
            `(ceilings ${VERIFY_TIMINGS.backoffBaseMs}, ${VERIFY_TIMINGS.backoffBaseMs * 2}, ${VERIFY_TIMINGS.backoffBaseMs * 4} ms, plus pickup)`,
        ),
    }),
    defineCheck({
      id: 'retry-waits-follow-backoff',
      name: "Retries wait the planned backoff: the gaps between runs in the worker's own log match the seeded waits",
      scenario: (signal) => timedRetries(signal, { worker, submit: deps.submitExport }),
      judge: (run) => {
        const offBy = run.planned.map((wait, i) => (run.gaps[i] ?? NaN) - wait);
        const within = (d: number) => d >= -GAP_EARLY_MS && d <= GAP_LATE_MS; // NaN (a missing gap) is never within
        return outcome(
          run.runs.length === EXPORT_ATTEMPTS && run.gaps.length === run.planned.length && offBy.every(within),
          `RETRY_JITTER_SEED=${run.seed} plans waits of ${run.planned.join(', ')} ms; the worker's run log shows gaps of ${run.gaps.join(', ') || 'none'} ms ` +
            `between its ${run.runs.length} runs (off by ${offBy.map((d) => (d >= 0 ? `+${d}` : String(d))).join(', ')} ms; allowed -${GAP_EARLY_MS} to +${GAP_LATE_MS})`,
        );
      },
    }),
    defineCheck({
      id: 'retry-past-deadline-refused',
      name: 'A retry that would overrun the deadline fails with "insufficient retry budget"',
      // The source takes the whole 3 s budget to answer, then fails: retries are left, time is not.
      scenario: (signal) =>
        exportRun(signal, {
          worker,
          submit: deps.submitExport,
          faults: `${faultRule('source-connect', `delay-${SLOW_SOURCE_MS}`, 'always')},${faultRule('source-read', 'throw', 'always')}`,
          request: { deadlineInMs: SLOW_SOURCE_MS, attempts },
        }),
      judge: (run) =>
        outcome(
          run.state === 'failed' &&
            run.failedReason === INSUFFICIENT_RETRY_BUDGET &&
            run.runs.length < run.attemptsAllowed,
          `${describeRun(run)} (attempts allowed: ${run.attemptsAllowed})`,
        ),
    }),
    defineCheck({
      id: 'soft-limit-stops-work',
      name: 'Soft time limit: the signal stops the work, cleanup runs, the job fails',
      scenario: (signal) => crawlRun(signal, { worker, mode: 'cooperative', workMs: 4000 }),
      judge: (e) =>
        outcome(
          e.state === 'failed' &&
            e.failedReason === SOFT_TIME_LIMIT_EXCEEDED &&
            e.notes.includes('cleanup ran') &&
            e.attemptsMade === 1 &&
            e.tookMs < e.workMs / 2,
          `${e.state}${e.state === 'failed' ? ` with "${e.failedReason}"` : ''} after ${e.tookMs} ms of ${e.workMs} ms of work ` +
            `(soft limit ${VERIFY_TIMINGS.softTimeLimitMs} ms); notes: ${e.notes.join(', ') || 'none'}; runs ${e.attemptsMade}`,
        ),
    }),
    defineCheck({
      id: 'hard-limit-kills-child',
      name: 'Hard time limit: the blocked child process is killed, the job fails',
      scenario: (signal) =>
        crawlRun(signal, { worker, mode: 'blocking', workMs: 0, settleGraceMs: deps.hardLimitGraceMs }),
      judge: (e) =>
        outcome(
          e.state === 'failed' &&
            e.failedReason === HARD_TIME_LIMIT_EXCEEDED &&
            e.childPid !== undefined &&
            !e.childAlive,
          `${e.state}${e.state === 'failed' ? ` with "${e.failedReason}"` : ''}; ` +
            (e.childPid === undefined
              ? 'no child pid was recorded'
              : `child ${e.childPid} ${e.childAlive ? `is STILL running ${e.tookMs} ms after the job was added` : 'is gone'}`) +
            ` (its own ${VERIFY_TIMINGS.softTimeLimitMs} ms exit timer and its SIGTERM handler cannot run in a blocked loop; ` +
            `the parent's watchdog fires at ${VERIFY_TIMINGS.hardTimeLimitMs} ms)`,
        ),
    }),
    defineCheck({
      id: 'same-order-deducted-once',
      name: 'The same order, twice in turn and five times at once, takes stock once',
      scenario: (signal) => sameOrderDeductions(signal, deps.deductOnce),
      judge: (e) => {
        const deducted = (outcomes: string[]) => outcomes.filter((o) => o === 'deducted').length;
        const expected = e.stockBefore - 2 * e.quantity;
        return outcome(
          e.stockAfter === expected && deducted(e.inTurn) + deducted(e.atOnce) === 2,
          `stock ${e.stockBefore} -> ${e.stockAfter} after two orders of ${e.quantity}; in turn: ${e.inTurn.join(', ')}; ` +
            `at once: ${deducted(e.atOnce)} deducted, ${e.atOnce.length - deducted(e.atOnce)} already applied; deduction records ${e.records}`,
        );
      },
    }),
    defineCheck({
      id: 'rerun-job-deducts-once',
      name: 'A deduction job run again after its commit takes stock once',
      scenario: (signal) =>
        rerunDeductionJob(signal, { worker, faults: faultRule('after-deduct-commit', 'throw', 'once') }),
      judge: (e) =>
        outcome(
          e.state === 'completed' && e.attemptsMade === 2 && e.stockAfter === e.stockBefore - e.quantity,
          `${e.state} after ${e.attemptsMade} runs (${e.outcomes.join(', ')}); stock ${e.stockBefore} -> ${e.stockAfter} for an order of ${e.quantity} (LAB_FAULTS ${e.faults})`,
        ),
    }),
  ];
}
