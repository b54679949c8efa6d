import { describe, expect, it } from 'vitest';
import { BoundedQueue, QueueClosedError } from '../src/index.ts';

/** Lets pending promise callbacks run, so "still waiting" means really waiting. */
const settleMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('BoundedQueue', () => {
  it('When the queue is full, Then put waits until a get makes room, and the queue counts that put as blocked', async () => {
    const queue = new BoundedQueue<number>(2);
    await queue.put(1);
    await queue.put(2);
    expect(queue.blockedPuts).toBe(0);
    let thirdStored = false;
    const third = queue.put(3).then(() => (thirdStored = true));
    await settleMicrotasks();
    expect(thirdStored).toBe(false);
    expect(queue.length).toBe(2);

    expect(await queue.get()).toBe(1);
    await third;
    expect(thirdStored).toBe(true);
    expect(queue.peakLength).toBe(2);
    expect(queue.blockedPuts).toBe(1);
  });

  it('When the queue is empty, Then get waits for the next put and items come out first in, first out', async () => {
    const queue = new BoundedQueue<number>(4);
    const first = queue.get();
    await queue.put(7);
    await queue.put(8);
    expect(await first).toBe(7);
    expect(await queue.get()).toBe(8);
  });

  it('When the queue is closed, Then consumers drain what is left and then get undefined', async () => {
    const queue = new BoundedQueue<number>(4);
    const waiting = queue.get();
    await queue.put(1);
    expect(await waiting).toBe(1);
    await queue.put(2);
    queue.close();
    expect(await queue.get()).toBe(2);
    expect(await queue.get()).toBeUndefined();
    await expect(queue.put(3)).rejects.toBeInstanceOf(QueueClosedError);
  });

  it('When the signal aborts a waiting put or get, Then it rejects with the abort reason and leaves the queue intact', async () => {
    const full = new BoundedQueue<number>(1);
    await full.put(1);
    const stop = new AbortController();
    const blockedPut = full.put(2, stop.signal);
    const empty = new BoundedQueue<number>(1);
    const blockedGet = empty.get(stop.signal);
    const reason = new Error('batch stopped');
    stop.abort(reason);
    await expect(blockedPut).rejects.toBe(reason);
    await expect(blockedGet).rejects.toBe(reason);
    expect(full.length).toBe(1);
    // The aborted put left the line: a get now wakes the next real waiter, not a stale one.
    const nextPut = full.put(3);
    expect(await full.get()).toBe(1);
    await nextPut;
    expect(await full.get()).toBe(3);
  });

  it('When the capacity is not a whole number of at least 1, Then the constructor says so', () => {
    expect(() => new BoundedQueue<number>(0)).toThrow(/capacity must be a whole number >= 1, got 0/);
    expect(() => new BoundedQueue<number>(2.5)).toThrow(RangeError);
  });
});
