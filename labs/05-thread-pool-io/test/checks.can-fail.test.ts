// A check that cannot fail proves nothing. Each case below runs one of the lesson's
// checks for real against a pool, a thread or a helper with one rule of the lesson
// broken, and expects the check to fail.
import { runCheck } from '@tasks-lab/lab-kit';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { describe, expect, it } from 'vitest';
import { buildChecks, type CheckDeps } from '../scripts/checks.ts';
import type { BlockingIoPool, SubmitOptions } from '../src/io-pool.ts';
import { waitWithTimeout, type DeadlineResult } from '../src/waiting.ts';
import {
  CancelPendingDoesNothingPool,
  CancelRunningClaimsSuccessPool,
  CloseKillsRunningReadsPool,
  NoReplacementPool,
  poolWith,
  stopIgnoringWorker,
} from './fixtures/broken-pools.ts';

// Shorter reads than the course's so the suite stays quick; the code paths are the same.
const fast: CheckDeps = { slices: 20, sliceMs: 25, waitTimeoutMs: 60 };
const withFast = (deps: CheckDeps) => () => ({ ...fast, ...deps });

/** A wait that "helpfully" stops the read when it gives up: the thread no longer reads on. */
const stoppingWait: typeof waitWithTimeout = async (task, timeoutMs) => {
  const result = await waitWithTimeout(task, timeoutMs);
  if (result.kind === 'timed-out') task.requestStop();
  return result;
};

/** A deadline that only races a timer: the caller gives up, the thread is never told. */
const deadlineWithoutSignal = async (
  pool: BlockingIoPool,
  productId: number,
  options: Omit<SubmitOptions, 'signal'> & { timeoutMs?: number } = {},
): Promise<DeadlineResult> => {
  const { timeoutMs = 200, ...read } = options;
  const started = Date.now();
  const task = pool.submit(productId, read);
  const timer = new Promise<DeadlineResult>((resolve) =>
    setTimeout(() => resolve({ kind: 'timed-out', afterMs: Date.now() - started, task }), timeoutMs),
  );
  const finished = task.result.then((outcome): DeadlineResult => ({ kind: 'finished', outcome }));
  return Promise.race([finished, timer]);
};

const stopIgnoringPool = { createPool: poolWith({ workerUrl: stopIgnoringWorker }) };

describe('the checks pass with the lesson pool at test speed', () => {
  it('When the correct pool runs every check with shorter reads, Then all of them pass', async () => {
    for (const check of buildChecks(fast)) {
      const result = await runCheck(check);
      expect(result.ok, `${check.id}: ${result.observed}`).toBe(true);
    }
  }, 90_000);
});

describe('the checks fail when the pool breaks a rule of the lesson', () => {
  const suite = canFailSuite(buildChecks);

  suite.breaks(
    'wait-timeout-read-goes-on',
    'the wait stops the read when it gives up',
    withFast({ waitWithTimeout: stoppingWait }),
    {
      observed: /stopped early/,
    },
  );
  suite.breaks(
    'cancel-pending-never-runs',
    'cancel() of a pending task claims success but leaves it queued',
    withFast({ createPool: (o) => new CancelPendingDoesNothingPool(o) }),
    { observed: /ran it anyway/ },
  );
  suite.breaks(
    'cancel-running-returns-false',
    'cancel() of a running task claims success',
    withFast({ createPool: (o) => new CancelRunningClaimsSuccessPool(o) }),
    { observed: /cancel\(\) returned true/ },
  );
  suite.breaks('stop-flag-ends-read', 'the worker ignores the stop flag', withFast(stopIgnoringPool), {
    observed: /NOT stopped after 20\/20/,
  });
  suite.breaks(
    'pool-limits-pending-and-running',
    'the pool has 3 threads',
    withFast({ createPool: poolWith({ threads: 3 }) }),
    {
      observed: /peaked at 3 reads at once/,
    },
  );
  // Every upper bound holds for a one-thread pool: only the "2 really run at once" part catches it.
  suite.breaks(
    'pool-limits-pending-and-running',
    'the pool has 1 thread',
    withFast({ createPool: poolWith({ threads: 1 }) }),
    {
      observed:
        /submit\(\) took 5 \(1 running, 4 waiting\).*peaked at 1 read at once \(the lesson needs 2: 2 reads never ran at the same time/,
    },
  );
  suite.breaks(
    'pool-limits-pending-and-running',
    'the pool lets 8 tasks wait',
    withFast({ createPool: poolWith({ maxPending: 8 }) }),
    {
      observed: /submit\(\) took 10/,
    },
  );
  suite.breaks(
    'abort-signal-sets-stop-flag',
    'the async deadline only races a timer',
    withFast({ readWithDeadline: deadlineWithoutSignal }),
    {
      observed: /NOT stopped/,
    },
  );
  suite.breaks('abort-signal-sets-stop-flag', 'the worker ignores the stop flag', withFast(stopIgnoringPool), {
    observed: /NOT stopped/,
  });
  suite.breaks(
    'drill-terminate-mid-write',
    'the pool does not replace a terminated thread',
    withFast({ createPool: (o) => new NoReplacementPool(o) }),
    { observed: /1\/2 threads alive/ },
  );
  suite.breaks(
    'close-finishes-then-threads-exit',
    'close() terminates the threads instead of letting the reads finish',
    withFast({ createPool: (o) => new CloseKillsRunningReadsPool(o) }),
    { observed: /0\/2 reads finished/ },
  );

  suite.coversEveryCheck();
});
