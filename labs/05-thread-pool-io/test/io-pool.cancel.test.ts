// Integration: a real pool with real worker threads.
import { waitFor } from '@tasks-lab/lab-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockingIoPool, PoolClosedError, PoolFullError, TaskCancelledError, type TaskHandle } from '../src/io-pool.ts';
import { SyncJobStore } from '../src/sync-job-store.ts';

const long = { slices: 40, sliceMs: 25 };

describe('BlockingIoPool: cancel, stop and limits', () => {
  const store = new SyncJobStore();
  let pool: BlockingIoPool;
  beforeAll(async () => {
    pool = new BlockingIoPool({ threads: 1, maxPending: 2, store });
    await pool.ready();
  });
  afterAll(async () => {
    await pool.close();
  });

  /** Stops whatever the test left running, so the next test starts with an idle thread. */
  async function drain(tasks: TaskHandle[]) {
    for (const task of tasks) task.requestStop();
    await Promise.all(tasks.map((task) => task.result.catch(() => undefined)));
  }

  it('When a task is submitted, Then it is an export job in the store that the pool moves along', async () => {
    const task = pool.submit(5, { slices: 2, sliceMs: 5 });
    expect(store.require(task.id).productIds).toEqual([5]);

    const outcome = await task.result;

    expect(outcome).toMatchObject({ productId: 5, slicesDone: 2, stopped: false });
    expect(task.state).toBe('done');
    expect(store.require(task.id)).toMatchObject({ state: 'succeeded', result: { rows: 2 } });
  });

  it('When the only thread is busy, Then the next task is pending, cancel() takes it back and its result rejects [test:cancel-pending-takes-it-back]', async () => {
    const running = pool.submit(1, long);
    const queued = pool.submit(2, long);
    await waitFor('the first read to start', () => running.slicesDone >= 1);

    expect(queued.state).toBe('pending');
    expect(queued.cancel()).toBe(true);
    expect(queued.cancel()).toBe(true); // cancelling twice is still "cancelled", like Future.cancel()
    expect(running.cancel()).toBe(false);
    await expect(queued.result).rejects.toBeInstanceOf(TaskCancelledError);
    expect(store.require(queued.id).state).toBe('cancelled');

    await drain([running]);
    expect(pool.startedTaskIds).not.toContain(queued.id);
  });

  it('When requestStop() is called on a pending task, Then it is cancelled without ever reaching a thread', async () => {
    const running = pool.submit(1, long);
    const queued = pool.submit(2, long);

    queued.requestStop();

    expect(queued.state).toBe('cancelled');
    await drain([running]);
    expect(pool.startedTaskIds).not.toContain(queued.id);
  });

  it('When the queue holds maxPending tasks, Then submit() throws PoolFullError and waitForRoom() waits for a start [test:pool-full-refuses-and-waits]', async () => {
    const tasks = [pool.submit(1, long), pool.submit(2, long), pool.submit(3, long)];
    await waitFor('the first read to start', () => tasks[0]!.slicesDone >= 1);

    expect(() => pool.submit(4, long)).toThrow(PoolFullError);
    let roomAt = 0;
    const room = pool.waitForRoom().then(() => (roomAt = Date.now()));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(roomAt).toBe(0);

    tasks[0]!.requestStop();
    await room;
    expect(tasks[1]!.state).toBe('running');
    await drain(tasks);
  });

  it('When the AbortSignal of a running task aborts, Then the read stops at its next slice', async () => {
    const controller = new AbortController();
    const task = pool.submit(1, { ...long, signal: controller.signal });
    await waitFor('the read to start', () => task.slicesDone >= 1);

    controller.abort();
    const outcome = await task.result;

    expect(outcome.stopped).toBe(true);
    expect(outcome.slicesDone).toBeLessThan(long.slices);
    expect(store.require(task.id).state).toBe('cancelled');
  });

  it('When the signal is already aborted, Then submit() throws and creates no job', () => {
    const before = store.count();
    expect(() => pool.submit(1, { signal: AbortSignal.abort() })).toThrow();
    expect(store.count()).toBe(before);
  });

  it('When a read has zero slices, Then submit() refuses it by name and creates no job', () => {
    const before = store.count();
    expect(() => pool.submit(1, { slices: 0 })).toThrow(/slices must be a whole number from 1/);
    expect(store.count()).toBe(before);
  });

  it('When the pool is closed, Then it finishes running work, its thread exits with code 0 and submit() is refused [test:close-finishes-running-work]', async () => {
    const other = new BlockingIoPool({ threads: 1 });
    await other.ready();
    const task = other.submit(1, { slices: 4, sliceMs: 25 });

    const codes = await other.close();

    expect(task.state).toBe('done');
    expect(codes).toEqual([0]);
    expect(other.snapshot().liveThreads).toBe(0);
    expect(() => other.submit(2)).toThrow(PoolClosedError);
  });
});
