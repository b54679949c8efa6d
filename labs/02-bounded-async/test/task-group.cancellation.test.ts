import { describe, expect, it } from 'vitest';
import { abortableDelay, runTaskGroup, type GroupTask } from '../src/index.ts';

describe('runTaskGroup', () => {
  it('When every task succeeds, Then the group resolves after the slowest one', async () => {
    const finished: string[] = [];
    const task =
      (name: string, ms: number): GroupTask =>
      async (signal) => {
        await abortableDelay(ms, signal);
        finished.push(name);
      };
    await runTaskGroup([task('slow', 60), task('fast', 10)]);
    expect(finished).toEqual(['fast', 'slow']);
  });

  it('When one task fails, Then the others are aborted, their clean-up finishes, and the group rejects with that first error [test:group-waits-for-cleanup]', async () => {
    const failure = new Error('product 3 is not valid');
    const log: string[] = [];
    const failing: GroupTask = async () => {
      await abortableDelay(10, new AbortController().signal);
      throw failure;
    };
    const slowToCleanUp: GroupTask = async (signal) => {
      try {
        await abortableDelay(5_000, signal);
      } finally {
        // Clean-up that itself takes time: the group must still wait for it.
        await new Promise((resolve) => setTimeout(resolve, 50));
        log.push('cleaned up');
      }
    };
    await expect(runTaskGroup([failing, slowToCleanUp, slowToCleanUp])).rejects.toBe(failure);
    expect(log).toEqual(['cleaned up', 'cleaned up']);
  });

  it('When the tasks are awaited with plain Promise.all instead, Then it rejects before the clean-up is done (the orphan problem)', async () => {
    const log: string[] = [];
    const stop = new AbortController();
    const failing = async () => {
      stop.abort(new Error('boom'));
      throw new Error('boom');
    };
    const slowToCleanUp = async () => {
      try {
        await abortableDelay(5_000, stop.signal);
      } finally {
        await new Promise((resolve) => setTimeout(resolve, 50));
        log.push('cleaned up');
      }
    };
    const orphan = slowToCleanUp();
    await expect(Promise.all([orphan, failing()])).rejects.toThrow('boom');
    expect(log).toEqual([]); // the caller moved on while the other task was still cleaning up
    await orphan.catch(() => {});
    expect(log).toEqual(['cleaned up']);
  });

  it('When the parent signal aborts, Then every task sees it and the group rejects with the parent reason', async () => {
    const deadline = new AbortController();
    const seen: unknown[] = [];
    const waiter: GroupTask = async (signal) => {
      try {
        await abortableDelay(5_000, signal);
      } catch (err) {
        seen.push(err);
        throw err;
      }
    };
    const reason = new Error('deadline');
    setTimeout(() => deadline.abort(reason), 20);
    await expect(runTaskGroup([waiter, waiter], deadline.signal)).rejects.toBe(reason);
    expect(seen).toEqual([reason, reason]);
  });
});
