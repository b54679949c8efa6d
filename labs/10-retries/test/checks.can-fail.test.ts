// Every check of lesson 10 must be able to fail: each case breaks one real part (a
// broken worker process, a broken function, a producer setting), runs the check's
// experiment for real (Redis, the database, processes) and expects a failed check.
import { fileURLToPath } from 'node:url';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { describe } from 'vitest';
import { buildChecks, type RetryCheckDeps } from '../scripts/checks.ts';
import { deductWithoutRecord, submitWithoutBackoff, uncappedDelayMs } from './fixtures/broken-variants.ts';

const BROKEN_WORKER = fileURLToPath(new URL('./fixtures/broken-worker.ts', import.meta.url));
const brokenWorker = (variant: string): RetryCheckDeps => ({ worker: { script: BROKEN_WORKER, args: [variant] } });

describe('checks.can-fail', () => {
  const suite = canFailSuite(buildChecks);
  suite.breaks('backoff-capped-full-jitter', 'the backoff has no cap', () => ({ backoffDelay: uncappedDelayMs }), {
    observed: /511999/,
  });
  suite.breaks('recovers-after-two-failures', 'the allow-list is empty', () => brokenWorker('empty-allow-list'), {
    observed: /failed .*1 run\(s\)/,
  });
  suite.breaks(
    'expired-deadline-skips-source',
    'the worker skips the deadline check',
    () => brokenWorker('no-deadline-check'),
    { observed: /[1-9] read\(s\)/ },
  );
  suite.breaks(
    'permanent-error-runs-once',
    'the worker retries every error',
    () => brokenWorker('retries-everything'),
    { observed: /4 run\(s\)/ },
  );
  suite.breaks('always-failing-runs-four-times', 'jobs are submitted with attempts 5', () => ({ attempts: 5 }), {
    observed: /5 run\(s\)/,
  });
  suite.breaks(
    'retry-waits-follow-backoff',
    'the producer drops the backoff option (BullMQ retries at once)',
    () => ({ submitExport: submitWithoutBackoff }),
    {
      observed: /between its 4 runs \(off by -\d+, -\d+, -\d+ ms/,
    },
  );
  suite.breaks(
    'retry-past-deadline-refused',
    'the worker schedules retries past the deadline',
    () => brokenWorker('no-budget-check'),
    {
      observed: /failed with "deadline exceeded"; [2-9] run/,
    },
  );
  suite.breaks('soft-limit-stops-work', 'the crawl ignores the signal', () => brokenWorker('crawl-ignores-signal'), {
    observed: /completed after/,
  });
  // A blocked child never runs its SIGTERM handler, so it outlives the watchdog however long
  // the check waits: 1.5 s past the 1.5 s hard limit (verify waits 10 s) shows it as well, and is
  // still far more than the lab's own watchdog needs (its job settles ~0.1 s past the limit).
  // The observed text must show that wait: still running 3000 ms or more after the job was added.
  suite.breaks(
    'hard-limit-kills-child',
    'the watchdog sends SIGTERM',
    () => ({ ...brokenWorker('watchdog-sends-sigterm'), hardLimitGraceMs: 1500 }),
    {
      observed: /active; child \d+ is STILL running (?:[3-9]\d{3}|\d{5,}) ms after the job was added/,
      timeoutMs: 90_000,
    },
  );
  suite.breaks(
    'same-order-deducted-once',
    'the deduction keeps no record',
    () => ({ deductOnce: deductWithoutRecord }),
    { observed: /stock 10 -> 0/ },
  );
  suite.breaks(
    'rerun-job-deducts-once',
    'the deduction job keeps no record',
    () => brokenWorker('deducts-without-record'),
    { observed: /stock 10 -> 4/ },
  );
  suite.coversEveryCheck();
});
