// The batch runs for a lesson-01 job (MemoryJobStore) and leaves its outcome on the job record.
import { describe, expect, it } from 'vitest';
import { InvalidTransitionError, MemoryJobStore } from '@tasks-lab/01-state-machine';
import { failingOn, runExportBatch, simulatedRead } from '../src/index.ts';

const ids = Array.from({ length: 20 }, (_, index) => index + 1);

async function queuedJob(productIds: number[] = ids) {
  const store = new MemoryJobStore();
  const job = await store.create(productIds);
  return { store, job };
}

describe('runExportBatch', () => {
  it('When the batch completes, Then the job goes queued -> running -> succeeded with {rows: 20}', async () => {
    const { store, job } = await queuedJob();
    const seen: string[] = [];
    const read = simulatedRead({ readDelayMs: 10 });
    const products = await runExportBatch(store, job.id, {
      read: async (id, signal) => {
        seen.push((await store.require(job.id)).state);
        return read(id, signal);
      },
    });
    expect(products).toHaveLength(20);
    expect(new Set(seen)).toEqual(new Set(['running']));
    expect(await store.require(job.id)).toMatchObject({ state: 'succeeded', result: { rows: 20 }, error: null });
  });

  it('When the deadline passes, Then the job fails with "batch timed out after 150 ms" and keeps no result', async () => {
    const { store, job } = await queuedJob();
    await expect(runExportBatch(store, job.id, { budgetMs: 150 })).rejects.toThrow('batch timed out after 150 ms');
    expect(await store.require(job.id)).toMatchObject({
      state: 'failed',
      result: null,
      error: 'batch timed out after 150 ms',
    });
  });

  it('When a product fails, Then the job fails with the batch error and keeps no result', async () => {
    const { store, job } = await queuedJob();
    const read = failingOn(3, simulatedRead({ readDelayMs: 10 }));
    await expect(runExportBatch(store, job.id, { read })).rejects.toThrow(/^batch failed: product 3 /);
    const after = await store.require(job.id);
    expect(after).toMatchObject({ state: 'failed', result: null });
    expect(after.error).toMatch(/^batch failed: product 3 /);
  });

  it('When the job has already finished, Then running it again is refused and the record is unchanged', async () => {
    const { store, job } = await queuedJob([1, 2]);
    await runExportBatch(store, job.id, { readDelayMs: 5 });
    const before = await store.require(job.id);
    await expect(runExportBatch(store, job.id, { readDelayMs: 5 })).rejects.toBeInstanceOf(InvalidTransitionError);
    expect(await store.require(job.id)).toEqual(before);
  });

  it('When two callers run the same queued job at once, Then exactly one batch runs and the other is refused', async () => {
    const { store, job } = await queuedJob([1, 2]);
    let reads = 0;
    const read = simulatedRead({ readDelayMs: 5 });
    const counted: typeof read = (id, signal) => {
      reads += 1;
      return read(id, signal);
    };
    const outcomes = await Promise.allSettled([
      runExportBatch(store, job.id, { read: counted }),
      runExportBatch(store, job.id, { read: counted }),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: expect.any(InvalidTransitionError) });
    expect(reads).toBe(2);
    expect(await store.require(job.id)).toMatchObject({ state: 'succeeded', result: { rows: 2 } });
  });
});
