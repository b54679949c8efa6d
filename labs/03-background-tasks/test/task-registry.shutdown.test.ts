import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MemoryJobStore, type ExportJob, type JobState, type TransitionPatch } from '@tasks-lab/01-state-machine';
import { TaskRegistry } from '../src/task-registry.ts';
import { runExportJob, type ExportWork } from '../src/export-work.ts';

const takes =
  (ms: number, onCleanup: () => void = () => {}): ExportWork =>
  async (ids, signal) => {
    try {
      await delay(ms, undefined, { signal });
      return { rows: ids.length };
    } finally {
      onCleanup();
    }
  };

/** A store whose writes take a while, as a database's do (lesson 11). */
class SlowWritesStore extends MemoryJobStore {
  override async transition(id: string, to: JobState, patch?: TransitionPatch): Promise<ExportJob> {
    await delay(50);
    return super.transition(id, to, patch);
  }
}

function setup(options: { graceMs?: number; cleanupMs?: number } = {}, store = new MemoryJobStore()) {
  const registry = new TaskRegistry(store, { ...options, log: () => {} });
  return { store, registry };
}

describe('TaskRegistry: shutdown', () => {
  it('When nothing is running, Then shutdown reports zeros at once', async () => {
    const { registry } = setup({ graceMs: 10_000 });
    const started = Date.now();
    expect(await registry.shutdown()).toEqual({ finishedInGrace: 0, cancelled: 0, remaining: 0 });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('When a task outlasts the grace period, Then it is aborted, its cleanup runs, the job is cancelled and 0 remain', async () => {
    const { store, registry } = setup({ graceMs: 200 });
    const job = await store.create([1, 2]);
    let cleanups = 0;
    void registry.start(job.id, (signal) =>
      runExportJob(
        store,
        job.id,
        takes(30_000, () => cleanups++),
        signal,
      ),
    );
    const started = Date.now();
    const report = await registry.shutdown();
    expect(Date.now() - started).toBeGreaterThanOrEqual(180);
    expect(report).toEqual({ finishedInGrace: 0, cancelled: 1, remaining: 0 });
    expect(cleanups).toBe(1);
    expect((await store.require(job.id)).state).toBe('cancelled');
    expect(registry.size).toBe(0);
  });

  it('When one task is quick and one is slow, Then the quick one finishes and only the slow one is cancelled', async () => {
    const { store, registry } = setup({ graceMs: 1_500 });
    const quick = await store.create([1]);
    const slow = await store.create([1, 2, 3]);
    void registry.start(quick.id, (signal) => runExportJob(store, quick.id, takes(50), signal));
    void registry.start(slow.id, (signal) => runExportJob(store, slow.id, takes(30_000), signal));
    const report = await registry.shutdown();
    expect(report).toEqual({ finishedInGrace: 1, cancelled: 1, remaining: 0 });
    expect((await store.require(quick.id)).state).toBe('succeeded');
    expect((await store.require(slow.id)).state).toBe('cancelled');
  });

  it('When a task ignores the abort signal, Then shutdown still returns after grace + cleanup and reports it as remaining [test:ignored-abort-reported-remaining]', async () => {
    const { store, registry } = setup({ graceMs: 100, cleanupMs: 100 });
    const job = await store.create([1, 2]);
    const stubborn = new AbortController(); // lets the test end the task afterwards
    void registry.start(job.id, () => delay(30_000, undefined, { signal: stubborn.signal }).catch(() => {}));
    const report = await registry.shutdown();
    expect(report).toEqual({ finishedInGrace: 0, cancelled: 0, remaining: 1 });
    expect(registry.size).toBe(1);
    stubborn.abort();
    await delay(20);
    expect(registry.size).toBe(0);
  });

  it('When a task is started after shutdown began, Then it never runs and its job is cancelled [test:no-start-after-shutdown]', async () => {
    const { store, registry } = setup({ graceMs: 100 });
    const job = await store.create([1, 2]);
    await registry.shutdown();
    let ran = false;
    const outcome = await registry.start(job.id, async () => {
      ran = true;
    });
    expect(outcome).toBe('cancelled');
    expect(ran).toBe(false);
    expect((await store.require(job.id)).state).toBe('cancelled');
  });

  it('When the store writes slowly, Then shutdown returns only after the cancelled job has been written', async () => {
    const { store, registry } = setup({ graceMs: 100 }, new SlowWritesStore());
    const job = await store.create([1, 2]);
    void registry.start(job.id, (signal) => runExportJob(store, job.id, takes(30_000), signal));
    expect(await registry.shutdown()).toEqual({ finishedInGrace: 0, cancelled: 1, remaining: 0 });
    // Read straight from the in-memory map: no write may still be on its way.
    expect((await store.get(job.id))?.state).toBe('cancelled');
  });

  it('When shutdown cancels a task whose "running" write is still in flight, Then its work never starts and the job is cancelled [test:cancel-before-work-starts]', async () => {
    const { store, registry } = setup({ graceMs: 0 }, new SlowWritesStore());
    const job = await store.create([1, 2]);
    let started = false;
    void registry.start(job.id, (signal) =>
      runExportJob(store, job.id, async (ids) => ((started = true), { rows: ids.length }), signal),
    );
    expect(await registry.shutdown()).toEqual({ finishedInGrace: 0, cancelled: 1, remaining: 0 });
    expect(started).toBe(false);
    expect((await store.require(job.id)).state).toBe('cancelled');
  });
});
