// Every check, fed a deliberately broken part (a fixture worker, a broken writer or
// producer, a setting pushed too far, a wrong table): each must report a failure.
import { fileURLToPath } from 'node:url';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { describe } from 'vitest';
import { buildChecks, type CheckDeps } from '../scripts/checks.ts';
import { writeArtifactInPlace } from '../src/artifact.ts';
import { QUEUE_SETTINGS } from '../src/queue-settings.ts';
import { submitExport } from '../src/submit.ts';

const TIMESTAMPED_WORKER = fileURLToPath(new URL('./fixtures/timestamped-worker.ts', import.meta.url));
const EARLY_ACK_WORKER = fileURLToPath(new URL('./fixtures/early-ack-worker.ts', import.meta.url));

describe('checks can fail', () => {
  const suite = canFailSuite<CheckDeps>(buildChecks);

  suite.breaks(
    'duplicate-delivery-same-file',
    'the worker stamps the time into the artifact',
    () => ({ workerScript: TIMESTAMPED_WORKER }),
    {
      observed: /paths equal; sha256 (\w+) \/ (?!\1)\w+/,
      timeoutMs: 120_000,
    },
  );

  suite.breaks('no-torn-reads', 'the artifact is written in place', () => ({ write: writeArtifactInPlace }), {
    observed: /: [1-9]\d* torn/,
    timeoutMs: 120_000,
  });

  suite.breaks(
    'same-jobid-runs-once',
    'the producer ignores the custom jobId',
    () => ({ submit: (queue, message) => submitExport(queue, message) }),
    {
      observed: /second add returned another job/,
      timeoutMs: 120_000,
    },
  );

  suite.breaks(
    'crash-after-rename-runs-again',
    'the worker stamps the time into the artifact',
    () => ({ workerScript: TIMESTAMPED_WORKER }),
    {
      observed: /2 executions by pids/,
      timeoutMs: 150_000,
    },
  );

  suite.breaks(
    'late-ack-window-duplicates',
    'the worker acknowledges early (completes the job before doing it)',
    () => ({ workerScript: EARLY_ACK_WORKER }),
    {
      observed:
        /the job being completed in Redis; 1 execution\(s\); ledger \(not idempotent\): 1 line.*BEFORE the side effects/,
      timeoutMs: 150_000,
    },
  );

  // Shorter lock and stall check than the drill's (2000 / 1000 ms): each of the 4 workers gets the
  // job back sooner after the previous one died. maxStalledCount 50 keeps the job alive whatever
  // the timings, so the case fails for the same reason, in less time.
  suite.breaks(
    'poison-job-fails',
    'maxStalledCount is very high',
    () => ({ poisonMaxStalledCount: 50, poisonTimings: { lockDurationMs: 1000, stalledIntervalMs: 250 } }),
    {
      observed: /maxStalledCount 50: 4 workers started, 4 killed by the job; state (active|waiting)/,
      timeoutMs: 150_000,
    },
  );

  suite.breaks(
    'no-prefetch',
    'the first worker takes 4 jobs at once (a prefetch buffer)',
    () => ({ firstWorkerConcurrency: 4 }),
    {
      observed: /worker B started no job within|after A's first job ended/,
      timeoutMs: 120_000,
    },
  );

  suite.breaks('blocked-loop-runs-twice', 'the fix keeps the busy loop inline', () => ({ fixedProcessor: 'inline' }), {
    observed: /; inline: [2-9] execution/,
    timeoutMs: 180_000,
  });

  suite.breaks(
    'queue-settings-rules',
    'pay may be re-run after a stall',
    () => ({ settings: QUEUE_SETTINGS.map((s) => (s.queue === 'pay' ? { ...s, maxStalledCount: 1 } : s)) }),
    { observed: /pay: work that must not run twice/ },
  );

  suite.coversEveryCheck();
});
