// Grades the try-it-yourself exercise: solutions/read-gauge.ts by default,
// exercise/read-gauge.ts with LAB_EXERCISE=student (pnpm lab 02 --exercise).
import { describe, expect, it } from 'vitest';
import { loadExercise } from '@tasks-lab/lab-kit';
import { MemoryJobStore } from '@tasks-lab/01-state-machine';
import { failingOn, runExportBatch, simulatedRead, type ExportBatchOptions } from '../src/index.ts';

const { ReadGauge, gaugedRead } = await loadExercise<typeof import('../solutions/read-gauge.ts')>(
  import.meta.url,
  'read-gauge.ts',
);

const PRODUCT_IDS = Array.from({ length: 20 }, (_, index) => index + 1);

/** Runs one export batch with the gauged read; resolves either way and returns the gauge. */
async function gaugeBatch(options: ExportBatchOptions & { failProduct?: number } = {}) {
  const gauge = new ReadGauge();
  const base = simulatedRead({ readDelayMs: 100 });
  const read = gaugedRead(gauge, options.failProduct === undefined ? base : failingOn(options.failProduct, base));
  const store = new MemoryJobStore();
  const job = await store.create(PRODUCT_IDS);
  const settled = await runExportBatch(store, job.id, { ...options, read }).then(
    () => 'completed',
    (err: Error) => err.message,
  );
  return { gauge, settled };
}

describe('read gauge (try it yourself)', () => {
  it('When 20 products are read with 2 reads allowed at once, Then the gauge peaks at exactly 2 and ends at 0 [test:exercise-peak-two]', async () => {
    const { gauge, settled } = await gaugeBatch();
    expect(settled).toBe('completed');
    expect(gauge.peak).toBe(2);
    expect(gauge.current).toBe(0);
  });

  it('When the limiter allows 3 reads, Then the gauge measures 3 (it counts, it does not guess)', async () => {
    const { gauge } = await gaugeBatch({ readConcurrency: 3 });
    expect(gauge.peak).toBe(3);
    expect(gauge.current).toBe(0);
  });

  it('When the 150 ms deadline aborts reads in flight, Then the peak stays at most 2 and no read is left counted [test:exercise-timeout-counted-out]', async () => {
    const { gauge, settled } = await gaugeBatch({ budgetMs: 150 });
    expect(settled).toBe('batch timed out after 150 ms');
    expect(gauge.peak).toBeGreaterThanOrEqual(1);
    expect(gauge.peak).toBeLessThanOrEqual(2);
    expect(gauge.current).toBe(0);
  });

  it('When product 3 fails, Then the failed and the aborted reads are counted out too', async () => {
    const { gauge, settled } = await gaugeBatch({ failProduct: 3 });
    expect(settled).toMatch(/^batch failed: product 3 /);
    expect(gauge.peak).toBeGreaterThanOrEqual(1);
    expect(gauge.peak).toBeLessThanOrEqual(2);
    expect(gauge.current).toBe(0);
  });
});
