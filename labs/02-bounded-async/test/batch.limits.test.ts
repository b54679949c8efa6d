// Integration: the real batch (real timers, p-limit, queue, task group) with short reads.
import { describe, expect, it } from 'vitest';
import { BatchFailedError, BatchRecorder, collectProducts, failingOn, simulatedRead } from '../src/index.ts';

const ids = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

describe('collectProducts', () => {
  it('When 20 products are collected with the default limits, Then all 20 come back in id order and 4 consumers drain', async () => {
    const recorder = new BatchRecorder();
    const products = await collectProducts(ids(20), { readDelayMs: 20, onEvent: recorder.record });
    expect(products.map((product) => product.id)).toEqual(ids(20));
    expect(recorder.closedConsumers.map(({ reason }) => reason)).toEqual(['drained', 'drained', 'drained', 'drained']);
    expect(recorder.peakInFlight).toBe(2);
    expect(recorder.longestQueue).toBeLessThanOrEqual(4);
  });

  it.each([1, 3])(
    'When readConcurrency is %i, Then the measured peak of reads in flight is exactly that',
    async (limit) => {
      const recorder = new BatchRecorder();
      await collectProducts(ids(12), { readDelayMs: 20, readConcurrency: limit, onEvent: recorder.record });
      expect(recorder.peakInFlight).toBe(limit);
    },
  );

  it('When each limit is set on its own, Then each measurement follows only its own setting [test:limits-set-separately]', async () => {
    for (const limits of [
      { consumers: 2, queueCapacity: 3, readConcurrency: 1 },
      { consumers: 6, queueCapacity: 1, readConcurrency: 3 },
    ]) {
      const recorder = new BatchRecorder();
      await collectProducts(ids(12), { ...limits, readDelayMs: 10, onEvent: recorder.record });
      expect({
        consumers: recorder.closedConsumers.length,
        queueCapacity: recorder.longestQueue,
        readConcurrency: recorder.peakInFlight,
      }).toEqual(limits);
    }
  });

  it('When the queue is unbounded, Then the producer never waits and the queue grows past 4 (why the bound matters)', async () => {
    const recorder = new BatchRecorder();
    await collectProducts(ids(20), { readDelayMs: 5, queueCapacity: Infinity, onEvent: recorder.record });
    expect(recorder.producerWaits).toBe(0);
    expect(recorder.longestQueue).toBeGreaterThan(4);
  });

  it('When the ids repeat or are out of order, Then the results follow the input order', async () => {
    const products = await collectProducts([5, 2, 5, 9], { readDelayMs: 5 });
    expect(products.map((product) => product.id)).toEqual([5, 2, 5, 9]);
  });

  it('When the list is empty, Then the batch returns an empty list and every consumer still closes', async () => {
    const recorder = new BatchRecorder();
    expect(await collectProducts([], { onEvent: recorder.record })).toEqual([]);
    expect(recorder.closedConsumers).toHaveLength(4);
  });

  it('When one product fails, Then the batch rejects with BatchFailedError whose cause is that product error', async () => {
    const recorder = new BatchRecorder();
    const read = failingOn(3, simulatedRead({ readDelayMs: 20 }));
    const error = await collectProducts(ids(20), { read, onEvent: recorder.record }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(BatchFailedError);
    expect((error as BatchFailedError).message).toBe('batch failed: product 3 is not valid (injected fault)');
    expect(recorder.count('read-failed')).toBe(1);
    expect(recorder.inFlight).toBe(0);
    expect(recorder.closedConsumers).toHaveLength(4);
  });

  it('When the caller aborts, Then the batch rejects with the caller reason unchanged (not as a failed item)', async () => {
    const stop = new AbortController();
    const reason = new Error('caller stopped the batch');
    setTimeout(() => stop.abort(reason), 30);
    await expect(collectProducts(ids(20), { readDelayMs: 20, signal: stop.signal })).rejects.toBe(reason);
  });
});
