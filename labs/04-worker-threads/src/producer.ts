// The producer side of the batch, in the main thread: put every id into the bounded
// queue, then close it. `put` waits while the queue is full, which holds the producer
// back to the pace of the consumer threads: the backpressure. This producer does not
// time anything; the queue itself counts the puts that found it full (`blockedPuts` in
// the batch's report). Seeing the wait from the producer's side, put by put, is the
// lesson's try-it-yourself exercise (exercise/producer.ts).
import type { BoundedQueue } from '@tasks-lab/02-bounded-async';

/** What a producer that times its puts reports for one id. */
export interface PutTiming {
  id: number;
  /** How long this put waited for room in the queue. */
  waitedMs: number;
}

/**
 * How the batch fills its queue. A producer may return the timing of each put (the
 * exercise's does); the lesson's own returns nothing. Either way it must close the queue
 * when the last id is in, or the consumers wait for ever.
 */
export type FeedQueue = (queue: BoundedQueue<number>, ids: readonly number[]) => Promise<PutTiming[] | void>;

export const feedQueue: FeedQueue = async (queue, ids) => {
  for (const id of ids) await queue.put(id);
  // Closing is how the consumers learn the work is over (Python sends one None per thread).
  queue.close();
};
