// A check that cannot fail proves nothing. Each case breaks one real part (a registry
// that swallows, forgets or does not wait, a server of a different design, a script
// that leaks the rejection), runs the check's experiment for real, and expects the
// check to fail. The last case proves every check has such a case.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, describe } from 'vitest';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { TaskRegistry, type ShutdownReport, type TaskOutcome, type TaskWork } from '../src/index.ts';
import { buildChecks, type CheckDeps } from '../scripts/checks.ts';
import type { CreateRegistry } from '../scripts/scenarios.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh file for the file-backed server's jobs. */
function jobsFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lab03-jobs-'));
  tempDirs.push(dir);
  return join(dir, 'jobs.jsonl');
}

/** Catches rejections with an empty handler: no crash, but the failure is hidden. */
class SwallowingRegistry extends TaskRegistry {
  override start(_jobId: string, work: TaskWork): Promise<TaskOutcome> {
    return work(new AbortController().signal).then(
      () => 'completed' as const,
      () => 'completed' as const,
    );
  }
}

/** Shutdown neither waits nor cancels: it just reports what is still running. */
class ForgetfulRegistry extends TaskRegistry {
  override async shutdown(): Promise<ShutdownReport> {
    return { finishedInGrace: 0, cancelled: 0, remaining: this.size };
  }
}

/** Waits the grace period but never aborts the late tasks. */
class NonCancellingRegistry extends TaskRegistry {
  override async shutdown(): Promise<ShutdownReport> {
    await delay(400);
    return { finishedInGrace: 0, cancelled: 0, remaining: this.size };
  }
}

/** Cancels everything at once, without a grace period. */
class ImpatientRegistry extends TaskRegistry {
  override shutdown(): Promise<ShutdownReport> {
    return super.shutdown({ graceMs: 0 });
  }
}

const registry = (Variant: typeof TaskRegistry): CheckDeps => ({
  createRegistry: ((store, options) => new Variant(store, options)) satisfies CreateRegistry,
});

describe('the lesson 03 checks can fail', () => {
  const suite = canFailSuite<CheckDeps>(buildChecks);

  suite.breaks(
    'export-runs-after-202',
    'the server runs the export before answering',
    () => ({
      server: { script: fixture('blocking-server.ts') },
    }),
    { observed: /202 with status succeeded/ },
  );

  suite.breaks('failure-becomes-failed-job', 'the registry swallows rejections', () => registry(SwallowingRegistry), {
    observed: /0 failure\(s\) recorded/,
  });

  suite.breaks(
    'slow-task-cancelled-after-grace',
    'shutdown neither waits nor cancels',
    () => registry(ForgetfulRegistry),
    {
      observed: /remaining 1/,
    },
  );

  suite.breaks(
    'slow-task-cancelled-after-grace',
    'shutdown waits but never cancels',
    () => registry(NonCancellingRegistry),
    {
      observed: /cleanup ran: no/,
    },
  );

  suite.breaks(
    'quick-task-finishes-in-grace',
    'shutdown cancels without a grace period',
    () => registry(ImpatientRegistry),
    {
      observed: /cancelled 1/,
    },
  );

  suite.breaks(
    'unobserved-rejection-crashes',
    'the "registry" never observes the rejection',
    () => ({
      rejectionScript: fixture('leaky-rejection.ts'),
    }),
    { observed: /registry: exit code 1/ },
  );

  suite.breaks(
    'sigterm-drains-export',
    'SIGTERM closes the server without draining the registry',
    () => ({
      server: { script: fixture('no-drain-server.ts') },
    }),
    { observed: /no shutdown summary/ },
  );

  suite.breaks(
    'kill-loses-job',
    'the server keeps its jobs in a file that survives the restart',
    () => ({
      server: {
        script: fixture('file-backed-server.ts'),
        env: { JOBS_FILE: jobsFile() },
      },
    }),
    { observed: /after restart -> 200/, timeoutMs: 90_000 },
  );

  suite.coversEveryCheck();
});
