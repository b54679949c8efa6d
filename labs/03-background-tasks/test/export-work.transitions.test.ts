import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { waitFor } from '@tasks-lab/lab-kit';
import { MemoryJobStore, type ExportJob, type JobState, type TransitionPatch } from '@tasks-lab/01-state-machine';
import { runExportJob, simulatedExport, type ExportWork } from '../src/export-work.ts';

async function queuedJob(store = new MemoryJobStore(), productIds = [1, 2]) {
  return { store, job: await store.create(productIds) };
}

/** A store whose writes take a while, as a database's do (lesson 11). */
class SlowWritesStore extends MemoryJobStore {
  override async transition(id: string, to: JobState, patch?: TransitionPatch): Promise<ExportJob> {
    await delay(50);
    return super.transition(id, to, patch);
  }
}

describe('runExportJob', () => {
  it('When the simulated export completes, Then the job goes queued -> running -> succeeded with one row per product', async () => {
    const { store, job } = await queuedJob();
    const running = runExportJob(store, job.id, simulatedExport({ workMs: 30 }), new AbortController().signal);
    await waitFor('running', async () => (await store.require(job.id)).state === 'running', { intervalMs: 5 });
    await expect(running).resolves.toEqual({ rows: 2 });
    expect(await store.require(job.id)).toMatchObject({ state: 'succeeded', result: { rows: 2 } });
  });

  it('When the signal aborts mid-export, Then it rejects with an AbortError and leaves the job running for its owner to settle', async () => {
    const { store, job } = await queuedJob();
    const controller = new AbortController();
    const running = runExportJob(store, job.id, simulatedExport({ workMs: 30_000 }), controller.signal);
    await waitFor('running', async () => (await store.require(job.id)).state === 'running', { intervalMs: 5 });
    controller.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    expect((await store.require(job.id)).state).toBe('running');
  });

  it('When the task is cancelled while its "running" write is still in flight, Then the work never starts', async () => {
    const { store, job } = await queuedJob(new SlowWritesStore());
    const controller = new AbortController();
    let started = false;
    const work: ExportWork = async (productIds) => {
      started = true;
      return { rows: productIds.length };
    };
    const running = runExportJob(store, job.id, work, controller.signal);
    controller.abort(new Error('shutdown: the grace period ended'));
    await expect(running).rejects.toThrow('shutdown: the grace period ended');
    expect(started).toBe(false);
    expect((await store.require(job.id)).state).toBe('running');
  });

  it('When the job already finished, Then running it again is an invalid transition and nothing changes', async () => {
    const { store, job } = await queuedJob(undefined, [1]);
    await runExportJob(store, job.id, simulatedExport({ workMs: 1 }), new AbortController().signal);
    await expect(
      runExportJob(store, job.id, simulatedExport({ workMs: 1 }), new AbortController().signal),
    ).rejects.toThrow('succeeded -> running is not allowed');
    expect((await store.require(job.id)).state).toBe('succeeded');
  });
});
