// Integration: the two waiting helpers against a real pool.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportAll } from '../src/batch-export.ts';
import { BlockingIoPool } from '../src/io-pool.ts';
import { readWithDeadline, waitWithTimeout } from '../src/waiting.ts';

describe('waiting on blocking reads', () => {
  let pool: BlockingIoPool;
  beforeAll(async () => {
    pool = new BlockingIoPool();
    await pool.ready();
  });
  afterAll(async () => {
    await pool.close();
  });

  it('When the read ends before the timeout, Then waitWithTimeout returns its outcome', async () => {
    const task = pool.submit(1, { slices: 2, sliceMs: 5 });
    const result = await waitWithTimeout(task, 10_000);
    expect(result).toMatchObject({ kind: 'finished', outcome: { slicesDone: 2, stopped: false } });
  });

  it('When the read ends before the deadline, Then readWithDeadline returns its outcome', async () => {
    const result = await readWithDeadline(pool, 1, { slices: 2, sliceMs: 5, timeoutMs: 10_000 });
    expect(result).toMatchObject({ kind: 'finished', outcome: { slicesDone: 2, stopped: false } });
  });

  it('When the deadline passes, Then the caller is told at once and the read stops at a slice boundary', async () => {
    const result = await readWithDeadline(pool, 1, { slices: 40, sliceMs: 25, timeoutMs: 100 });
    expect(result.kind).toBe('timed-out');
    if (result.kind !== 'timed-out') return;
    const outcome = await result.task.result;
    expect(outcome.stopped).toBe(true);
    expect(outcome.slicesDone).toBeLessThan(40);
  });

  it('When exportAll gets more products than the queue holds, Then every product is read and the queue never passes its limit [test:export-all-waits-for-room]', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => i + 1);
    const outcomes = await exportAll(pool, ids, { slices: 2, sliceMs: 10 });

    expect(outcomes.map((o) => o.productId).sort((a, b) => a - b)).toEqual(ids);
    expect(pool.peakPending).toBeLessThanOrEqual(pool.maxPending);
    expect(pool.readGauge().peakInRead).toBeLessThanOrEqual(pool.threads);
  });
});
