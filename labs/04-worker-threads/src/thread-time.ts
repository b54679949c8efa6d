// Two small helpers the worker threads use.

// A cell nobody ever notifies, so Atomics.wait on it always sleeps until its timeout.
const neverNotified = new Int32Array(new SharedArrayBuffer(4));

/**
 * Blocks the calling thread for `ms`, like Python's time.sleep(): the thread does
 * nothing else meanwhile (no event loop turns). Stands in for a slow, blocking read.
 * Only call it inside a worker thread; on the main thread it would freeze the server.
 */
export function pauseThread(ms: number): void {
  Atomics.wait(neverNotified, 0, 0, ms);
}

/**
 * A timestamp in milliseconds that can be compared across threads. performance.now()
 * alone starts at 0 in every thread; adding the thread's timeOrigin puts all threads
 * on the same clock.
 */
export function wallClockMs(): number {
  return performance.timeOrigin + performance.now();
}
