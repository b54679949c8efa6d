// Try it yourself (lesson 05): one read runs, a second one waits in the queue.
// Which of the two can cancel() take back, and what does the running one still need?
// Check your answer with `pnpm -w lab 05 --exercise`.
import { waitFor } from '@tasks-lab/lab-kit';
import type { ReadOutcome } from '../src/blocking-read.ts';
import { BlockingIoPool, type TaskState } from '../src/io-pool.ts';

export interface CancelReport {
  /** What cancel() answered for the first read, which a thread is running. */
  runningCancelled: boolean;
  /** What cancel() answered for the second read, which waits for a thread. */
  queuedCancelled: boolean;
  queuedState: TaskState;
  /** Whether a thread ever started the second read. */
  queuedEverStarted: boolean;
  /** How the first read actually ended. */
  firstOutcome: ReadOutcome;
}

export async function cancelRunningAndQueued(read = { slices: 20, sliceMs: 100 }): Promise<CancelReport> {
  // TODO: size the pool so that the second read has no thread and must wait in the queue.
  const pool = new BlockingIoPool({ threads: 2 });
  try {
    await pool.ready();
    const first = pool.submit(1, read);
    await waitFor('the first read to start', () => first.slicesDone >= 1);
    const second = pool.submit(2, read);

    const runningCancelled = first.cancel();
    // TODO: cancel the second read and keep what cancel() answered.
    const queuedCancelled = false;

    // TODO: cancel() could not stop the first read. Ask it to stop before waiting for it.
    const firstOutcome = await first.result;

    return {
      runningCancelled,
      queuedCancelled,
      queuedState: second.state,
      queuedEverStarted: pool.startedTaskIds.includes(second.id),
      firstOutcome,
    };
  } finally {
    await pool.close();
  }
}
