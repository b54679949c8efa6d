// The course's second troubleshooting entry: leaving the pool (close()) hangs for a long
// time. close() waits for running reads, like leaving a `with ThreadPoolExecutor()` block,
// so a long read keeps it waiting; stopping the read first is what ends the wait early.
import { waitFor } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { BlockingIoPool } from '../src/io-pool.ts';

async function poolWithLongRead(slices: number) {
  const pool = new BlockingIoPool({ threads: 1 });
  await pool.ready();
  const task = pool.submit(1, { slices, sliceMs: 25 });
  await waitFor('the read to start', () => task.slicesDone >= 1);
  return { pool, task };
}

describe('BlockingIoPool: close() and a read that is still running', () => {
  it('When close() is called during a read, Then it waits for the whole read instead of ending the thread [test:close-waits-for-running-read]', async () => {
    const { pool, task } = await poolWithLongRead(20);

    const exitCodes = await pool.close();

    expect(await task.result).toMatchObject({ slicesDone: 20, stopped: false });
    expect(exitCodes).toEqual([0]);
  });

  it('When the read is stopped before close(), Then close() returns at the next slice and the thread exits normally [test:stop-before-close]', async () => {
    const { pool, task } = await poolWithLongRead(400); // 10 s if nothing stopped it
    const started = Date.now();

    task.requestStop();
    const exitCodes = await pool.close();

    const outcome = await task.result;
    expect(outcome.stopped).toBe(true);
    expect(outcome.slicesDone).toBeLessThan(400);
    expect(exitCodes).toEqual([0]);
    // Generous: a busy machine may be slow, but nowhere near the read's 10 s.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
