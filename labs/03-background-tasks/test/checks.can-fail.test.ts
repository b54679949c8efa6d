// A check that cannot fail proves nothing. Each test feeds one check a deliberately
// broken part (through buildChecks' deps) and expects the check to report ok: false.
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCheck } from '@tasks-lab/lab-kit';
import { TaskRegistry, type ShutdownReport, type TaskOutcome, type TaskWork } from '../src/index.ts';
import { buildChecks, type CheckDeps } from '../scripts/checks.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

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

async function runNamed(deps: CheckDeps, nameStart: string) {
  const check = buildChecks(deps).find((c) => c.name.startsWith(nameStart));
  if (!check) throw new Error(`no check named "${nameStart}..."`);
  return runCheck(check);
}

describe('the lesson 03 checks can fail', () => {
  it('When the server runs the export before answering, Then the background-export check fails (the 202 is not "queued")', async () => {
    const result = await runNamed({ serverScript: fixture('blocking-server.ts') }, 'The short export runs after the 202');
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('202 with status succeeded');
  });

  it('When the registry swallows rejections, Then the failure-observed check fails (job not failed, nothing recorded)', async () => {
    const result = await runNamed(
      { createRegistry: (store, options) => new SwallowingRegistry(store, options) },
      'The registry turns a failing task',
    );
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('0 failure(s) recorded');
  });

  it('When shutdown neither waits nor cancels, Then the slow-task check fails with 1 remaining', async () => {
    const result = await runNamed(
      { createRegistry: (store, options) => new ForgetfulRegistry(store, options) },
      'Shutdown waits the grace period for a slow task',
    );
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('remaining 1');
  });

  it('When shutdown waits but never cancels, Then the slow-task check fails: no cleanup, 1 remaining', async () => {
    const result = await runNamed(
      { createRegistry: (store, options) => new NonCancellingRegistry(store, options) },
      'Shutdown waits the grace period for a slow task',
    );
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('cleanup ran: no');
  });

  it('When shutdown cancels without a grace period, Then the quick-task check fails (the quick task is cancelled)', async () => {
    const result = await runNamed(
      { createRegistry: (store, options) => new ImpatientRegistry(store, options) },
      'Shutdown lets a quick task finish',
    );
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('cancelled 1');
  });

  it('When the "registry" never observes the rejection, Then the unobserved-rejection check fails (both processes crash)', async () => {
    const result = await runNamed({ rejectionScript: fixture('leaky-rejection.ts') }, 'An unobserved rejection crashes');
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('registry: exit code 1');
  });

  it('When SIGTERM exits without draining, Then the SIGTERM check fails (no shutdown summary)', async () => {
    const result = await runNamed({ serverScript: fixture('no-drain-server.ts') }, 'SIGTERM drains');
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('no shutdown summary');
  });
});
