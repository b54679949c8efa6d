import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MemoryJobStore } from '@tasks-lab/01-state-machine';
import { TaskRegistry } from '../src/task-registry.ts';
import { runExportJob, type ExportWork } from '../src/export-work.ts';

async function setup() {
  const store = new MemoryJobStore();
  const logged: string[] = [];
  const registry = new TaskRegistry(store, { log: (line) => logged.push(line) });
  return { store, logged, registry, job: await store.create([1, 2]) };
}

const failsAfter =
  (ms: number, message: string): ExportWork =>
  async (_ids, signal) => {
    await delay(ms, undefined, { signal });
    throw new Error(message);
  };

describe('TaskRegistry: observing outcomes', () => {
  it('When a task is started, Then the registry holds it until it settles', async () => {
    const { store, registry, job } = await setup();
    const settled = registry.start(job.id, (signal) => runExportJob(store, job.id, failsAfter(50, 'boom'), signal));
    expect(registry.size).toBe(1);
    await settled;
    expect(registry.size).toBe(0);
  });

  it('When the work succeeds, Then the log names the job once, as completed, when the job is already succeeded, and no failure is recorded', async () => {
    const store = new MemoryJobStore();
    const job = await store.create([1, 2]);
    const logged: Array<{ line: string; state: Promise<string> }> = [];
    const registry = new TaskRegistry(store, {
      log: (line) => logged.push({ line, state: store.require(job.id).then((j) => j.state) }),
    });
    const succeeds: ExportWork = async (ids) => ({ rows: ids.length });
    expect(await registry.start(job.id, (signal) => runExportJob(store, job.id, succeeds, signal))).toBe('completed');
    expect(logged.map((entry) => entry.line)).toEqual([`[registry] job ${job.id} completed`]);
    expect(await logged[0]?.state).toBe('succeeded');
    expect(registry.failures).toEqual([]);
    expect(registry.size).toBe(0);
  });

  it('When the work rejects, Then the job is failed with the message, the failure is recorded, and the log names the job [test:failure-logged-with-job-id]', async () => {
    const { store, logged, registry, job } = await setup();
    const outcome = await registry.start(job.id, (signal) =>
      runExportJob(store, job.id, failsAfter(20, 'disk full'), signal),
    );
    expect(outcome).toBe('failed');
    expect(await store.require(job.id)).toMatchObject({ state: 'failed', error: 'disk full' });
    expect(registry.failures).toEqual([expect.objectContaining({ jobId: job.id, message: 'disk full' })]);
    expect(logged).toEqual([`[registry] job ${job.id} failed: disk full`]);
  });

  it('When the work throws synchronously, Then it is observed like a rejection', async () => {
    const { registry, job } = await setup();
    const outcome = await registry.start(job.id, () => {
      throw new Error('thrown before any await');
    });
    expect(outcome).toBe('failed');
    expect(registry.failures[0]?.message).toBe('thrown before any await');
  });

  it('When the work fails while the job is still queued, Then the job stays queued (queued -> failed is not allowed) and the log says why', async () => {
    const { store, logged, registry, job } = await setup();
    await registry.start(job.id, async () => {
      throw new Error('failed before running');
    });
    expect((await store.require(job.id)).state).toBe('queued');
    expect(logged.at(-1)).toContain('queued -> failed is not allowed');
  });

  it('When the job is not in the store, Then the failure is still observed and the log says there was nothing to mark', async () => {
    const { logged, registry } = await setup();
    const outcome = await registry.start('no-such-job', async () => {
      throw new Error('boom');
    });
    expect(outcome).toBe('failed');
    expect(logged.at(-1)).toBe('[registry] job no-such-job is not in the store; nothing to mark failed');
  });

  it('When the work succeeds, Then the outcome is completed and nothing is recorded', async () => {
    const { store, registry, job } = await setup();
    const ok: ExportWork = async (ids) => ({ rows: ids.length });
    const outcome = await registry.start(job.id, (signal) => runExportJob(store, job.id, ok, signal));
    expect(outcome).toBe('completed');
    expect(await store.require(job.id)).toMatchObject({ state: 'succeeded', result: { rows: 2 } });
    expect(registry.failures).toEqual([]);
  });
});
