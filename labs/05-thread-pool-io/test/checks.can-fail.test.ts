// A check that cannot fail proves nothing. Each test below runs one of the lesson's
// checks against a pool or helper with one rule broken, and expects the check to fail.
import { runCheck, type Check } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { buildChecks, type CheckDeps } from '../scripts/checks.ts';
import type { ReadOutcome } from '../src/blocking-read.ts';
import type { BlockingIoPool } from '../src/io-pool.ts';
import { waitWithTimeout, type DeadlineResult } from '../src/waiting.ts';
import {
  CancelPendingDoesNothingPool,
  CancelRunningClaimsSuccessPool,
  NoReplacementPool,
  poolWith,
  stopIgnoringWorker,
} from './fixtures/broken-pools.ts';

// Shorter reads than the course's so the suite stays quick; the code paths are the same.
const fast: CheckDeps = { slices: 20, sliceMs: 25, waitTimeoutMs: 60 };

function check(name: string, deps: CheckDeps): Check {
  const found = buildChecks({ ...fast, ...deps }).find((c) => c.name.startsWith(name));
  if (!found) throw new Error(`no check named "${name}"`);
  return found;
}

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
  options: { slices?: number; sliceMs?: number; timeoutMs?: number } = {},
): Promise<DeadlineResult> => {
  const { timeoutMs = 200, ...read } = options;
  const started = Date.now();
  const task = pool.submit(productId, read);
  const timer = new Promise<DeadlineResult>((resolve) =>
    setTimeout(() => resolve({ kind: 'timed-out', afterMs: Date.now() - started, task }), timeoutMs),
  );
  const finished = task.result.then((outcome: ReadOutcome): DeadlineResult => ({ kind: 'finished', outcome }));
  return Promise.race([finished, timer]);
};

describe('the checks fail when the pool breaks a rule of the lesson', () => {
  it('When the correct pool runs every check, Then all of them pass', async () => {
    for (const c of buildChecks(fast)) {
      const result = await runCheck(c);
      expect(result.ok, `${c.name}: ${result.observed}`).toBe(true);
    }
  }, 60_000);

  it('When the wait stops the read on timeout, Then the wait-timeout check fails', async () => {
    const result = await runCheck(check('a wait timeout does not stop', { waitWithTimeout: stoppingWait }));
    expect(result.ok, result.observed).toBe(false);
  });

  it('When cancel() of a pending task claims success but leaves it queued, Then the pending-cancel check fails', async () => {
    const result = await runCheck(
      check('cancel() on a pending task', { createPool: (o) => new CancelPendingDoesNothingPool(o) }),
    );
    expect(result.ok, result.observed).toBe(false);
    expect(result.observed).toContain('ran it anyway');
  });

  it('When cancel() of a running task claims success, Then the running-cancel check fails', async () => {
    const result = await runCheck(
      check('cancel() on a running task', { createPool: (o) => new CancelRunningClaimsSuccessPool(o) }),
    );
    expect(result.ok, result.observed).toBe(false);
    expect(result.observed).toContain('cancel() returned true');
  });

  it('When the worker ignores the stop flag, Then the stop-flag and AbortSignal checks fail', async () => {
    const deps = { createPool: poolWith({ workerUrl: stopIgnoringWorker }) };
    const stopFlag = await runCheck(check('a stop flag ends', deps));
    const abort = await runCheck(check('an AbortSignal', deps));
    expect(stopFlag.ok, stopFlag.observed).toBe(false);
    expect(abort.ok, abort.observed).toBe(false);
  });

  it('When the pool has 3 threads, Then the limits check fails on running', async () => {
    const result = await runCheck(check('at most 4 pending', { createPool: poolWith({ threads: 3 }) }));
    expect(result.ok, result.observed).toBe(false);
    expect(result.observed).toMatch(/at most 3 reads at once/);
  });

  it('When the pool allows 8 pending tasks, Then the limits check fails on pending', async () => {
    const result = await runCheck(check('at most 4 pending', { createPool: poolWith({ maxPending: 8 }) }));
    expect(result.ok, result.observed).toBe(false);
    expect(result.observed).toMatch(/submit\(\) took 10/);
  });

  it('When the async deadline does not set the stop flag, Then the AbortSignal check fails', async () => {
    const result = await runCheck(check('an AbortSignal', { readWithDeadline: deadlineWithoutSignal }));
    expect(result.ok, result.observed).toBe(false);
    expect(result.observed).toContain('NOT stopped');
  });

  it('When the pool does not replace a terminated thread, Then the fault drill fails', async () => {
    const result = await runCheck(check('fault drill', { createPool: (o) => new NoReplacementPool(o) }));
    expect(result.ok, result.observed).toBe(false);
    expect(result.observed).toContain('1/2 threads alive');
  });
});
