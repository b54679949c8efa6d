// The key checks, fed deliberately broken parts: each must report a failure.
import { fileURLToPath } from 'node:url';
import { runCheck, type Check } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { buildChecks, type CheckDeps } from '../scripts/checks.ts';
import { writeArtifactInPlace } from '../src/artifact.ts';
import { QUEUE_SETTINGS } from '../src/queue-settings.ts';
import { submitExport } from '../src/submit.ts';

const TIMESTAMPED_WORKER = fileURLToPath(new URL('./fixtures/timestamped-worker.ts', import.meta.url));

async function runOnly(deps: CheckDeps, nameStart: string) {
  const check = buildChecks(deps).find((c: Check) => c.name.startsWith(nameStart));
  if (!check) throw new Error(`no check named "${nameStart}..."`);
  return runCheck(check);
}

describe('checks can fail', () => {
  it('When the worker stamps the time into the artifact, Then the same-digest check fails', { timeout: 120_000 }, async () => {
    const result = await runOnly({ workerScript: TIMESTAMPED_WORKER }, 'two deliveries of one business job');
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/paths equal; sha256 (\w+) \/ (?!\1)\w+/);
  });

  it('When the worker stamps the time into the artifact, Then the crash drill sees a changed digest and fails', { timeout: 150_000 }, async () => {
    const result = await runOnly({ workerScript: TIMESTAMPED_WORKER }, 'drill: a worker SIGKILLed');
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/2 executions by pids/);
  });

  it('When the artifact is written in place, Then the torn-read check fails', { timeout: 120_000 }, async () => {
    const result = await runOnly({ write: writeArtifactInPlace }, 'readers never see a half-written artifact');
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/: [1-9]\d* torn/);
  });

  it('When the producer ignores the custom jobId, Then the same-jobId check counts two executions and fails', { timeout: 120_000 }, async () => {
    const result = await runOnly({ submit: (queue, message) => submitExport(queue, message) }, 'adding the same custom jobId twice');
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/second add returned another job/);
  });

  it('When maxStalledCount is very high, Then the poison job is still alive when the window closes and the check fails', { timeout: 150_000 }, async () => {
    const result = await runOnly({ poisonMaxStalledCount: 50 }, 'a poison job');
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/maxStalledCount 50: 4 workers started, 4 killed by the job; state (active|waiting)/);
  });

  it('When the first worker takes 4 jobs at once (a prefetch buffer), Then the no-prefetch check fails', { timeout: 120_000 }, async () => {
    const result = await runOnly({ firstWorkerConcurrency: 4 }, 'deep dive: no prefetch');
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/worker B started no job within|after A's first job ended/);
  });

  it('When the fix keeps the busy loop inline, Then the blocked-loop check fails', { timeout: 180_000 }, async () => {
    const result = await runOnly({ fixedProcessor: 'inline' }, 'deep dive: a busy loop');
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/; inline: [2-9] execution/);
  });

  it('When pay may be re-run after a stall, Then the settings check fails', () => {
    const settings = QUEUE_SETTINGS.map((s) => (s.queue === 'pay' ? { ...s, maxStalledCount: 1 } : s));
    const check = buildChecks({ settings }).find((c) => c.name.startsWith('deep dive: the per-queue settings'))!;
    const result = check.run() as { ok: boolean; observed: string };
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/pay: work that must not run twice/);
  });
});
