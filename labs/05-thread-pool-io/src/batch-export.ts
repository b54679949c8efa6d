// Exporting many products through the pool without an unbounded queue: the threads
// limit how many reads run, the pending limit how many wait. When the queue is full
// this caller waits for room instead of catching PoolFullError.
import type { ReadOutcome } from './blocking-read.ts';
import type { BlockingIoPool, SubmitOptions } from './io-pool.ts';

/** Outcomes come back in completion order, not input order (like as_completed). */
export async function exportAll(
  pool: BlockingIoPool,
  productIds: readonly number[],
  read: Omit<SubmitOptions, 'signal'> = {},
): Promise<ReadOutcome[]> {
  const outcomes: ReadOutcome[] = [];
  const running: Promise<void>[] = [];
  for (const productId of productIds) {
    await pool.waitForRoom();
    const task = pool.submit(productId, read);
    running.push(task.result.then((outcome) => void outcomes.push(outcome)));
  }
  await Promise.all(running);
  return outcomes;
}
