import { describe, expect, it } from 'vitest';
import { JobStore } from '../src/store.ts';
import { runExportJob, simulatedExport } from '../src/export-work.ts';

describe('runExportJob', () => {
  it('When the simulated export completes, Then the job goes queued -> running -> succeeded with one row per product', async () => {
    const store = new JobStore();
    const job = store.create([1, 2]);
    const running = runExportJob(store, job.id, simulatedExport({ workMs: 30 }), new AbortController().signal);
    expect(store.require(job.id).state).toBe('running');
    await expect(running).resolves.toEqual({ rows: 2 });
    expect(store.require(job.id)).toMatchObject({ state: 'succeeded', result: { rows: 2 } });
  });

  it('When the signal aborts mid-export, Then it rejects with an AbortError and leaves the job running for its owner to settle', async () => {
    const store = new JobStore();
    const job = store.create([1, 2]);
    const controller = new AbortController();
    const running = runExportJob(store, job.id, simulatedExport({ workMs: 30_000 }), controller.signal);
    controller.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    expect(store.require(job.id).state).toBe('running');
  });

  it('When the job already finished, Then running it again is an invalid transition and nothing changes', async () => {
    const store = new JobStore();
    const job = store.create([1]);
    await runExportJob(store, job.id, simulatedExport({ workMs: 1 }), new AbortController().signal);
    await expect(runExportJob(store, job.id, simulatedExport({ workMs: 1 }), new AbortController().signal)).rejects.toThrow(
      'succeeded -> running is not allowed',
    );
    expect(store.require(job.id).state).toBe('succeeded');
  });
});
