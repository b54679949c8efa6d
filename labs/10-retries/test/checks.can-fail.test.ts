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
  suite.breaks('backoff-capped-full-jitter', 'the backoff has no cap', () => ({ backoffDelay: uncappedDelayMs }), { observed: /511999/ });
  suite.breaks('recovers-after-two-failures', 'the allow-list is empty', () => brokenWorker('empty-allow-list'), { observed: /failed .*1 run\(s\)/ });
  suite.breaks('expired-deadline-skips-source', 'the worker skips the deadline check', () => brokenWorker('no-deadline-check'), { observed: /[1-9] read\(s\)/ });
  suite.breaks('permanent-error-runs-once', 'the worker retries every error', () => brokenWorker('retries-everything'), { observed: /4 run\(s\)/ });
  suite.breaks('always-failing-runs-four-times', 'jobs are submitted with attempts 5', () => ({ attempts: 5 }), { observed: /5 run\(s\)/ });
  suite.breaks('retry-waits-follow-backoff', 'the producer drops the backoff option (BullMQ retries at once)', () => ({ submitExport: submitWithoutBackoff }), {
    observed: /between its 4 runs \(off by -\d+, -\d+, -\d+ ms/,
  });
  suite.breaks('retry-past-deadline-refused', 'the worker schedules retries past the deadline', () => brokenWorker('no-budget-check'), {
    observed: /failed with "deadline exceeded"; [2-9] run/,
  });
  suite.breaks('soft-limit-stops-work', 'the crawl ignores the signal', () => brokenWorker('crawl-ignores-signal'), { observed: /completed after/ });
  suite.breaks('hard-limit-kills-child', 'the watchdog sends SIGTERM', () => brokenWorker('watchdog-sends-sigterm'), { observed: /STILL running/, timeoutMs: 90_000 });
  suite.breaks('same-order-deducted-once', 'the deduction keeps no record', () => ({ deductOnce: deductWithoutRecord }), { observed: /stock 10 -> 0/ });
  suite.breaks('rerun-job-deducts-once', 'the deduction job keeps no record', () => brokenWorker('deducts-without-record'), { observed: /stock 10 -> 4/ });
  suite.coversEveryCheck();
});
