// The producer side of the batch, in the main thread: put every id into the bounded
// queue, then close it. `put` waits while the queue is full, so timing each put shows
// the backpressure: the producer is held back to the pace of the consumer threads.
import type { BoundedQueue } from '@tasks-lab/02-bounded-async';

export interface PutTiming {
  id: number;
  /** How long this put waited for room in the queue. */
  waitedMs: number;
}

/** How the batch fills its queue; the try-it-yourself exercise writes its own. */
export type FeedQueue = (queue: BoundedQueue<number>, ids: readonly number[]) => Promise<PutTiming[]>;

export const feedQueue: FeedQueue = async (queue, ids) => {
  const timings: PutTiming[] = [];
  for (const id of ids) {
    const before = performance.now();
    await queue.put(id);
    timings.push({ id, waitedMs: performance.now() - before });
  }
  // Closing is how the consumers learn the work is over (Python sends one None per thread).
  queue.close();
  return timings;
};
