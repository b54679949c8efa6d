// Try it yourself (lesson 04): shrink the queue to 1, slow each read to 200 ms, and
// watch the producer wait. This is the producer of the batch: it feeds every id into
// the bounded queue and reports how long each put had to wait for room. The lesson's
// own producer (src/producer.ts) times nothing: the queue only counts how many puts
// found it full. Yours says how long each one was held back.
//
// Check your work: pnpm -w lab 04 --exercise   (a hint: pnpm -w lab 04 --hint)
import type { BoundedQueue } from '@tasks-lab/02-bounded-async';
import type { PutTiming } from '../src/producer.ts';

export async function feedQueue(queue: BoundedQueue<number>, ids: readonly number[]): Promise<PutTiming[]> {
  const timings: PutTiming[] = [];
  for (const id of ids) {
    // TODO: measure how long this put waits (performance.now() before and after) and push { id, waitedMs } to timings.
    await queue.put(id);
  }
  // Closing the queue is what lets each consumer hear "stop" and its thread exit.
  queue.close();
  return timings;
}
