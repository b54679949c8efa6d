// Integration: the lesson 01 job record (its async store, in memory) around a real pool batch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidTransitionError, MemoryJobStore } from '@tasks-lab/01-state-machine';
import { runScoringExport } from '../src/export-job.ts';
import { ProcessPool } from '../src/process-pool.ts';
import { exportRowFor, type ExportRow } from '../src/scoring.ts';

let pool: ProcessPool;

beforeAll(async () => {
  pool = await new ProcessPool({ size: 2 }).start();
});

afterAll(async () => {
  await pool?.close();
});

describe('runScoringExport', () => {
  it('When the batch succeeds, Then the job is succeeded with the row count', async () => {
    const store = new MemoryJobStore();
    const job = await store.create([1, 2, 3]);

    const { scores } = await runScoringExport({ store, pool, jobId: job.id, rounds: 50 });

    expect(scores.map((s) => s.productId)).toEqual([1, 2, 3]);
    expect(await store.require(job.id)).toMatchObject({ state: 'succeeded', result: { rows: 3 }, error: null });
  });

  it('When the batch fails, Then the job is failed with the error and has no result [test:failed-batch-fails-job]', async () => {
    const store = new MemoryJobStore();
    const job = await store.create([1]);
    const rows = [{ ...exportRowFor(1), hook: () => 'not data' } as ExportRow];

    await expect(runScoringExport({ store, pool, jobId: job.id, rows })).rejects.toThrow(/could not be cloned/);

    const after = await store.require(job.id);
    expect(after.state).toBe('failed');
    expect(after.error).toMatch(/^row 0 cannot be sent to a worker process/);
    expect(after.result).toBeNull();
  });

  it('When the job has already finished, Then the export is refused before any row is scored', async () => {
    const store = new MemoryJobStore();
    const job = await store.create([1, 2]);
    await store.transition(job.id, 'running');
    await store.transition(job.id, 'succeeded', { result: { rows: 2 } });
    let scored = 0;

    await expect(
      runScoringExport({ store, pool, jobId: job.id, rounds: 10, onProgress: () => (scored += 1) }),
    ).rejects.toThrow(InvalidTransitionError);

    expect(scored).toBe(0);
    expect(await store.require(job.id)).toMatchObject({ state: 'succeeded', result: { rows: 2 } });
  });
});
