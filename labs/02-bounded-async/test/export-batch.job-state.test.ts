// The batch runs for a lesson-01 job and leaves its outcome on the job record.
import { describe, expect, it } from 'vitest';
import { failingOn, InvalidTransitionError, JobStore, runExportBatch, simulatedRead } from '../src/index.ts';

const ids = Array.from({ length: 20 }, (_, index) => index + 1);

describe('runExportBatch', () => {
  it('When the batch completes, Then the job goes queued -> running -> succeeded with {rows: 20}', async () => {
    const store = new JobStore();
    const job = store.create(ids);
    const seen: string[] = [];
    const read = simulatedRead({ readDelayMs: 10 });
    const products = await runExportBatch(store, job.id, {
      read: async (id, signal) => {
        seen.push(store.require(job.id).state);
        return read(id, signal);
      },
    });
    expect(products).toHaveLength(20);
    expect(new Set(seen)).toEqual(new Set(['running']));
    expect(store.require(job.id)).toMatchObject({ state: 'succeeded', result: { rows: 20 }, error: null });
  });

  it('When the deadline passes, Then the job fails with "batch timed out after 150 ms" and keeps no result', async () => {
    const store = new JobStore();
    const job = store.create(ids);
    await expect(runExportBatch(store, job.id, { budgetMs: 150 })).rejects.toThrow('batch timed out after 150 ms');
    expect(store.require(job.id)).toMatchObject({ state: 'failed', result: null, error: 'batch timed out after 150 ms' });
  });

  it('When a product fails, Then the job fails with the batch error and keeps no result', async () => {
    const store = new JobStore();
    const job = store.create(ids);
    const read = failingOn(3, simulatedRead({ readDelayMs: 10 }));
    await expect(runExportBatch(store, job.id, { read })).rejects.toThrow(/^batch failed: product 3 /);
    expect(store.require(job.id)).toMatchObject({ state: 'failed', result: null });
    expect(store.require(job.id).error).toMatch(/^batch failed: product 3 /);
  });

  it('When the job has already finished, Then running it again is refused and the record is unchanged', async () => {
    const store = new JobStore();
    const job = store.create([1, 2]);
    await runExportBatch(store, job.id, { readDelayMs: 5 });
    const before = store.require(job.id);
    await expect(runExportBatch(store, job.id, { readDelayMs: 5 })).rejects.toBeInstanceOf(InvalidTransitionError);
    expect(store.require(job.id)).toEqual(before);
  });
});
