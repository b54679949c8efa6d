// Try it yourself (lesson 04): shrink the queue to 1, slow each read to 200 ms, and
// watch the producer wait. This is the producer of the batch: it feeds every id into
// the bounded queue and reports how long each put had to wait for room.
//
// Check your work: pnpm lab 04 --exercise   (a hint: pnpm lab 04 --hint)
import type { BoundedQueue } from '@tasks-lab/02-bounded-async';
import type { PutTiming } from '../src/producer.ts';

export async function feedQueue(queue: BoundedQueue<number>, ids: readonly number[]): Promise<PutTiming[]> {
  const timings: PutTiming[] = [];
  for (const id of ids) {
    // TODO: measure how long this put waits (performance.now() before and after) and push { id, waitedMs } to timings.
    await queue.put(id);
  }
  // TODO: tell the consumers that no more ids are coming, or their threads never exit.
  return timings;
}
