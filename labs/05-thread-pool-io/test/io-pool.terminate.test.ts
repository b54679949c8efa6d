// Integration: worker.terminate() really ends a thread in the middle of a read.
import { waitFor } from '@tasks-lab/lab-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockingIoPool } from '../src/io-pool.ts';

describe('BlockingIoPool: terminate', () => {
  let pool: BlockingIoPool;
  beforeAll(async () => {
    pool = new BlockingIoPool({ threads: 1 });
    await pool.ready();
  });
  afterAll(async () => {
    await pool.close();
  });

  it('When a running read is terminated, Then it fails, its progress stays, and a new thread takes the next read [test:terminate-keeps-progress]', async () => {
    const before = pool.snapshot().threadIds;
    const task = pool.submit(1, { slices: 40, sliceMs: 25 });
    const next = pool.submit(2, { slices: 2, sliceMs: 5 });
    await waitFor('two slices', () => task.slicesDone >= 2);

    expect(await pool.terminate(task)).toBe(true);

    await expect(task.result).rejects.toThrow(/terminated by the pool/);
    expect(task.state).toBe('failed');
    expect(pool.store.require(task.id).state).toBe('failed');
    expect(task.slicesDone).toBeGreaterThanOrEqual(2);
    expect(task.slicesDone).toBeLessThan(40);
    // The queued read was not lost with the thread: the replacement ran it.
    expect(await next.result).toMatchObject({ productId: 2, stopped: false });
    const after = pool.snapshot();
    expect(after.liveThreads).toBe(1);
    expect(after.threadIds).not.toEqual(before);
  });

  it('When the task is not running, Then terminate() answers false and ends nothing', async () => {
    const task = pool.submit(3, { slices: 1, sliceMs: 1 });
    await task.result;
    const before = pool.snapshot().threadIds;

    expect(await pool.terminate(task)).toBe(false);
    expect(pool.snapshot().threadIds).toEqual(before);
  });
});

describe('BlockingIoPool: destroy', () => {
  it('When the pool is destroyed mid-read, Then the running read fails, the pending one is cancelled and every thread is gone at once [test:destroy-ends-every-thread]', async () => {
    const pool = new BlockingIoPool({ threads: 1 });
    await pool.ready();
    const running = pool.submit(1, { slices: 400, sliceMs: 25 }); // 10 s if nothing ended it
    const pending = pool.submit(2, { slices: 2, sliceMs: 5 });
    await waitFor('the first slice', () => running.slicesDone >= 1);
    const started = Date.now();

    const exitCodes = await pool.destroy();

    expect(Date.now() - started).toBeLessThan(2_000);
    expect(exitCodes).toHaveLength(1);
    await expect(running.result).rejects.toThrow(/terminated by the pool/);
    await expect(pending.result).rejects.toThrow(/cancelled/);
    expect(pool.snapshot().liveThreads).toBe(0);
    expect(await pool.close()).toEqual([]);
  });
});
