import { MemoryJobStore } from '@tasks-lab/01-state-machine';
import { describe, expect, it } from 'vitest';
import { runThreadedBatch, ThreadedBatchTimeoutError } from '../src/batch.ts';
import { feedQueue, type FeedQueue } from '../src/producer.ts';
import { wallClockMs } from '../src/thread-time.ts';

/** A producer that never closes the queue: the consumers wait for more ids forever. */
const neverCloses: FeedQueue = async (queue, ids) => {
  for (const id of ids) await queue.put(id);
  return [];
};

describe('runThreadedBatch (real worker threads)', () => {
  it('When id 7 fails, Then 19 are done, 1 failed, the error names 7, both threads exit 0 and the job is failed', async () => {
    const store = new MemoryJobStore();
    const report = await runThreadedBatch({ store, workMs: 20 });

    expect({ done: report.done, failed: report.failed }).toEqual({ done: 19, failed: 1 });
    expect(report.errors).toEqual([{ id: 7, message: expect.stringContaining('product 7') }]);
    expect(report.threads.map((t) => t.exitCode)).toEqual([0, 0]);
    expect(report.threadsStillRunning).toBe(0);
    expect(report.peakQueueLength).toBeLessThanOrEqual(4);
    expect(await store.require(report.job.id)).toMatchObject({ state: 'failed', error: expect.stringContaining('7') });
  });

  it('When no id fails, Then the job succeeds with 20 rows', async () => {
    const report = await runThreadedBatch({ failingIds: [], workMs: 10 });
    expect(report.done).toBe(20);
    expect(report.job).toMatchObject({ state: 'succeeded', result: { rows: 20 } });
  });

  it('When both threads share the work, Then each thread handles some of the ids', async () => {
    const report = await runThreadedBatch({ workMs: 20 });
    const perThread = new Map<number, number>();
    for (const span of report.spans) perThread.set(span.threadId, (perThread.get(span.threadId) ?? 0) + 1);
    expect(perThread.size).toBe(2);
    expect([...perThread.values()].reduce((a, b) => a + b)).toBe(20);
  });

  it('When the producer never closes the queue, Then the batch times out, terminates its threads and fails the job [test:unclosed-queue-times-out]', async () => {
    const store = new MemoryJobStore();
    const run = runThreadedBatch({ store, ids: [1, 2, 3], workMs: 10, feed: neverCloses, timeoutMs: 4_000 });
    await expect(run).rejects.toBeInstanceOf(ThreadedBatchTimeoutError);
    expect(await store.list()).toMatchObject([{ state: 'failed', error: 'timed out after 4000 ms' }]);
  });

  it('When the caller aborts the batch, Then its threads are terminated at once and the job fails with the reason [test:abort-fails-job]', async () => {
    const store = new MemoryJobStore();
    const caller = new AbortController();
    const run = runThreadedBatch({ store, ids: [1, 2, 3], workMs: 10, feed: neverCloses, signal: caller.signal });
    setTimeout(() => caller.abort(new Error('the caller gave up')), 1_500);
    const started = Date.now();

    await expect(run).rejects.toThrow('the caller gave up');
    expect(Date.now() - started).toBeLessThan(4_000); // well before the 15 s batch timeout
    expect(await store.list()).toMatchObject([{ state: 'failed', error: 'the caller gave up' }]);
  });

  it('When the queue is empty for the first time after the last put, Then ids handed out are still being read: an empty queue is not a finished batch [test:empty-queue-is-not-done]', async () => {
    let emptyAt = Number.NaN;
    const feedThenWatch: FeedQueue = async (queue, ids) => {
      const timings = await feedQueue(queue, ids);
      while (queue.length > 0) await new Promise((resolve) => setTimeout(resolve, 1));
      emptyAt = wallClockMs();
      return timings;
    };
    const report = await runThreadedBatch({ workMs: 50, feed: feedThenWatch });

    const stillReading = report.spans.filter((span) => span.endedAt > emptyAt);
    expect(stillReading.length).toBeGreaterThanOrEqual(1);
    // What the batch waits for instead: every id counted and every thread gone.
    expect(report.done + report.failed).toBe(20);
    expect(report.threads.map((t) => t.exitCode)).toEqual([0, 0]);
  });

  it('When a setting is zero, Then the batch refuses to start and names the setting', async () => {
    await expect(runThreadedBatch({ capacity: 0 })).rejects.toThrow(/capacity must be a whole number from 1/);
  });
});
