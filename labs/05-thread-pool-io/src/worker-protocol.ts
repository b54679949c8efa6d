// The messages between the pool (main thread) and its worker threads.
import type { ReadOutcome, ReadPlan } from './blocking-read.ts';

/** What every worker thread gets at start. */
export interface WorkerSetup {
  /** The shared in-read gauge (see read-gauge.ts). */
  gauge: SharedArrayBuffer;
}

export type ToWorker =
  | { type: 'read'; taskId: string; plan: ReadPlan; cells: SharedArrayBuffer }
  /** No more work: the thread closes its port and exits with code 0. */
  | { type: 'close' };

export type FromWorker =
  /** The thread has loaded its code and listens for reads. */
  | { type: 'ready' }
  | { type: 'started'; taskId: string }
  | { type: 'finished'; taskId: string; outcome: ReadOutcome }
  | { type: 'failed'; taskId: string; error: string };
