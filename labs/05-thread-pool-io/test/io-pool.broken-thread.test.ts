import { describe, expect, it } from 'vitest';
import { BlockingIoPool } from '../src/io-pool.ts';

describe('BlockingIoPool: a thread that cannot start', () => {
  it('When the worker code throws while loading, Then ready() rejects with that error and the pool does not restart it forever', async () => {
    const pool = new BlockingIoPool({
      threads: 1,
      workerUrl: new URL('./fixtures/crashing-worker.ts', import.meta.url),
    });

    await expect(pool.ready()).rejects.toThrow(/before it was ready \(the export SDK is not installed\)/);
    expect(pool.snapshot().liveThreads).toBe(0);
    expect(await pool.close()).toEqual([]);
  });
});
