// Lesson 05's learning checks and fault drill. Each check runs one experiment from
// scenarios.ts (a real pool of worker threads, real blocking reads) and judges the
// evidence it returns. buildChecks(deps) lets the can-fail tests swap in broken parts.
import { defineCheck, outcome, type Check } from '@tasks-lab/lab-kit';
import { BlockingIoPool } from '../src/io-pool.ts';
import { BLOCKING_READ_OPTIONS } from '../src/options.ts';
import { readWithDeadline, waitWithTimeout } from '../src/waiting.ts';
import type { ReadOutcome } from '../src/blocking-read.ts';
import {
  abortSignal,
  type LimitsEvidence,
  cancelPending,
  cancelRunning,
  closeWhileReading,
  LESSON_POOL,
  limits,
  stopFlag,
  terminateMidWrite,
  waitTimeout,
  type ScenarioParts,
} from './scenarios.ts';

/** The parts to swap: a broken pool, wait or deadline; shorter reads for the tests. */
export type CheckDeps = Partial<ScenarioParts>;

const { threads: THREADS, maxPending: MAX_PENDING } = LESSON_POOL;

export function buildChecks(deps: CheckDeps = {}): Check[] {
  const course = BLOCKING_READ_OPTIONS.defaults();
  const parts: ScenarioParts = {
    createPool: deps.createPool ?? ((options) => new BlockingIoPool(options)),
    waitWithTimeout: deps.waitWithTimeout ?? waitWithTimeout,
    readWithDeadline: deps.readWithDeadline ?? readWithDeadline,
    slices: deps.slices ?? course.slices,
    sliceMs: deps.sliceMs ?? course.sliceMs,
    waitTimeoutMs: deps.waitTimeoutMs ?? course.waitTimeoutMs,
  };

  return [
    defineCheck({
      id: 'wait-timeout-read-goes-on',
      name: 'a wait timeout does not stop the running read',
      scenario: (signal) => waitTimeout(parts, signal),
      judge: (e) =>
        outcome(
          e.waitKind === 'timed-out' &&
            e.read !== undefined &&
            !e.read.stopped &&
            e.read.slicesDone === e.slices &&
            e.finishedAtMs > e.gaveUpAtMs &&
            e.jobState === 'succeeded',
          `wait ${e.waitKind} at ${e.gaveUpAtMs} ms with ${e.slicesAtTimeout}/${e.slices} slices done; ` +
            (e.read
              ? `the read went on and finished ${e.read.slicesDone}/${e.read.totalSlices} slices at ${e.finishedAtMs} ms` +
                (e.read.stopped ? ' (stopped early)' : '')
              : 'the read did not return') +
            `; job ${e.jobState}`,
        ),
    }),
    defineCheck({
      id: 'cancel-pending-never-runs',
      name: 'cancel() on a pending task succeeds and it never runs',
      scenario: (signal) => cancelPending(parts, signal),
      judge: (e) =>
        outcome(
          e.stateBefore === 'pending' &&
            e.cancelled &&
            e.stateAfter === 'cancelled' &&
            e.rejectedAsCancelled &&
            !e.ranAnyway &&
            e.jobState === 'cancelled',
          `queued task was ${e.stateBefore}; cancel() returned ${e.cancelled}; state ${e.stateAfter}; ` +
            `result ${e.rejectedAsCancelled ? 'rejected with TaskCancelledError' : 'did not reject as cancelled'}; ` +
            `a thread ${e.ranAnyway ? 'ran it anyway' : 'never started it'}; job ${e.jobState}`,
        ),
    }),
    defineCheck({
      id: 'cancel-running-returns-false',
      name: 'cancel() on a running task returns false and the read goes on',
      scenario: (signal) => cancelRunning(parts, signal),
      judge: (e) =>
        outcome(
          !e.cancelled && e.stateAfter === 'running' && e.slicesLater > e.slicesAtCancel && e.read !== undefined,
          `cancel() returned ${e.cancelled} at ${e.slicesAtCancel}/${e.slices} slices; state ${e.stateAfter}; ` +
            `${e.slicesLater - e.slicesAtCancel} more slices ran after it; ` +
            `the read ${e.read ? `returned normally (stopped by the flag at ${e.read.slicesDone})` : 'did not return a result'}`,
        ),
    }),
    defineCheck({
      id: 'stop-flag-ends-read',
      name: 'a stop flag ends the running read at the next slice',
      scenario: (signal) => stopFlag(parts, signal),
      judge: (e) =>
        outcome(
          e.waitKind === 'timed-out' &&
            e.read !== undefined &&
            e.read.stopped &&
            e.read.slicesDone < e.slices &&
            e.read.slicesDone <= e.slicesAtStop + 1 &&
            e.jobState === 'cancelled',
          `stop requested at ${e.slicesAtStop}/${e.slices} slices; ` +
            (e.read
              ? `the read returned ${stoppedOrNot(e.read)} after ${e.read.slicesDone}/${e.read.totalSlices} slices, ${e.tookMs} ms later`
              : 'the read did not return') +
            `; job ${e.jobState}`,
        ),
    }),
    defineCheck({
      id: 'pool-limits-pending-and-running',
      name: `${MAX_PENDING} pending and ${THREADS} running at once, never more, measured over time`,
      scenario: (signal) => limits(parts, signal),
      judge: judgeLimits,
    }),
    defineCheck({
      id: 'abort-signal-sets-stop-flag',
      name: 'an AbortSignal from async code sets the same stop flag',
      scenario: (signal) => abortSignal(parts, signal),
      judge: (e) => {
        if (e.callerGot === 'finished') {
          return outcome(false, `the caller got a full result after ${e.gaveUpAtMs} ms instead of timing out`);
        }
        return outcome(
          e.read !== undefined && e.read.stopped && e.read.slicesDone < e.slices && e.jobState === 'cancelled',
          `the caller gave up at ${e.gaveUpAtMs} ms; ` +
            (e.read
              ? `the thread returned ${stoppedOrNot(e.read)} after ${e.read.slicesDone}/${e.read.totalSlices} slices at ${e.finishedAtMs} ms`
              : 'the thread did not return') +
            `; job ${e.jobState}`,
        );
      },
    }),
    defineCheck({
      id: 'drill-terminate-mid-write',
      name: 'fault drill: terminate() ends a thread mid-write, leaves the half-written file and counter, and the pool replaces the thread',
      scenario: (signal) => terminateMidWrite(parts, signal),
      judge: (e) =>
        outcome(
          e.terminated &&
            e.taskState === 'failed' &&
            e.resultRejected &&
            e.jobState === 'failed' &&
            e.linesLeft > 0 &&
            e.linesLeft < e.slices &&
            e.counterAtKill > 0 &&
            e.counterLater === e.counterAtKill &&
            !e.finalFileExists &&
            e.liveThreadsAfter === THREADS &&
            e.newThreads === 1 &&
            e.followUpCompleted,
          `terminate() ${e.terminated ? 'ended' : 'did not end'} the thread; task ${e.taskState}, job ${e.jobState}; ` +
            `temp file left with ${e.linesLeft}/${e.slices} lines, final file ${e.finalFileExists ? 'present' : 'absent'}; ` +
            `shared counter ${e.counterAtKill} then ${e.counterLater} (nothing rolled it back); ` +
            `${e.liveThreadsAfter}/${THREADS} threads alive, ${e.newThreads} new; next read ${e.followUpCompleted ? 'completed' : 'failed'}`,
        ),
    }),
    defineCheck({
      id: 'close-finishes-then-threads-exit',
      name: 'close() lets running reads finish, then every thread exits',
      scenario: (signal) => closeWhileReading(parts, signal),
      judge: (e) =>
        outcome(
          e.finished === e.submitted &&
            e.exitCodes.length === THREADS &&
            e.exitCodes.every((code) => code === 0) &&
            e.liveThreadsAfter === 0 &&
            e.refusedAfterClose,
          `close() returned after ${e.closedAfterMs} ms with ${e.finished}/${e.submitted} reads finished; ` +
            `thread exit codes [${e.exitCodes.join(', ')}], ${e.liveThreadsAfter} threads alive; ` +
            `submit after close ${e.refusedAfterClose ? 'refused' : 'accepted'}`,
        ),
    }),
  ];
}

const stoppedOrNot = (read: ReadOutcome) => (read.stopped ? 'stopped' : 'NOT stopped');

/**
 * Both limits, from both sides: never passed (upper bounds) and really reached (a pool
 * whose reads never overlap passes every upper bound). Running is counted twice: by the
 * pool's bookkeeping (sampled) and by the threads themselves (the shared gauge).
 */
function judgeLimits(e: LimitsEvidence) {
  const queueLimitHeld = e.refusedWithPoolFull && e.pendingAtRefusal === MAX_PENDING;
  const neverPassed =
    e.maxPendingSeen <= MAX_PENDING &&
    e.poolPeakPending <= MAX_PENDING &&
    e.maxRunningSeen <= THREADS &&
    e.peakInRead <= THREADS;
  const reached = e.maxPendingSeen === MAX_PENDING && e.maxRunningSeen === THREADS && e.peakInRead === THREADS;
  const reads = (n: number) => `${n} read${n === 1 ? '' : 's'}`;
  const overlap =
    e.peakInRead < THREADS ? ` (the lesson needs ${THREADS}: ${THREADS} reads never ran at the same time)` : '';
  return outcome(
    queueLimitHeld && neverPassed && reached && e.complete === e.exported,
    `submit() took ${e.accepted} (${e.runningAtRefusal} running, ${e.pendingAtRefusal} waiting) then ` +
      `${e.refusedWithPoolFull ? 'refused with PoolFullError' : 'did not refuse'}; ` +
      `exporting ${e.exported}: ${e.samples} samples saw at most ${e.maxPendingSeen} pending and ${e.maxRunningSeen} running ` +
      `(pool peak pending ${e.poolPeakPending}); the threads' own count peaked at ${reads(e.peakInRead)} at once${overlap}; ` +
      `${e.complete}/${e.exported} complete`,
  );
}
