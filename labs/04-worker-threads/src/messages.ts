// What the main thread and the consumer threads say to each other. Messages are
// copied between threads (structured clone), never shared: a worker that changes a
// message it received changes only its own copy.

/** Main thread -> consumer: the next product id, or "no more work, exit". */
export type ToConsumer = { type: 'job'; id: number } | { type: 'stop' };

/** Consumer -> main thread. */
export type FromConsumer =
  /** "Give me the next id." Sent once at start-up and again after every job, success or failure. */
  | { type: 'ready' }
  /** One id failed: the error travels to the main thread as data, so nothing is lost silently. */
  | { type: 'failed'; id: number; message: string }
  /** When the slow work ran and how long the lock was held afterwards, for the checks. */
  | { type: 'worked'; span: WorkSpan };

export interface WorkSpan {
  threadId: number;
  id: number;
  /** Wall-clock ms (comparable across threads) around the slow work, which runs outside the lock. */
  startedAt: number;
  endedAt: number;
  /** How long this job held the counter lock. */
  lockHeldMs: number;
}

/** What each consumer thread receives as workerData when it starts. */
export interface ConsumerSetup {
  counters: SharedArrayBuffer;
  /** Product ids whose (simulated) read throws. */
  failingIds: number[];
  /** How long the simulated read of one product blocks the thread. */
  workMs: number;
}
