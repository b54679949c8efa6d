// Two ways for async code to wait on a blocking read, and what each does to the thread.
import type { ReadOutcome } from './blocking-read.ts';
import type { BlockingIoPool, SubmitOptions, TaskHandle } from './io-pool.ts';
import { BLOCKING_READ_OPTIONS } from './options.ts';

/** The course's numbers: the caller waits 0.2 s for a 2 s read. */
const COURSE_WAIT_MS = BLOCKING_READ_OPTIONS.defaults().waitTimeoutMs;

export type WaitResult = { kind: 'finished'; outcome: ReadOutcome } | { kind: 'timed-out'; afterMs: number };

/**
 * Python's future.result(timeout=...): races the result against a timer. Only the
 * caller stops waiting; the thread is not told anything and reads on.
 */
export async function waitWithTimeout(task: TaskHandle, timeoutMs = COURSE_WAIT_MS): Promise<WaitResult> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<WaitResult>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timed-out', afterMs: Date.now() - started }), timeoutMs);
  });
  try {
    const finished = task.result.then((outcome): WaitResult => ({ kind: 'finished', outcome }));
    return await Promise.race([finished, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

export type DeadlineResult =
  | { kind: 'finished'; outcome: ReadOutcome }
  /** The caller gave up; the stop flag is set, and `task.result` settles when the thread actually stops. */
  | { kind: 'timed-out'; afterMs: number; task: TaskHandle };

/**
 * The async side of the same stop path (Python: asyncio.timeout + to_thread + Event.set):
 * an AbortSignal with a deadline is wired to the task's stop flag, so giving up also asks
 * the read to end at its next slice.
 */
export async function readWithDeadline(
  pool: BlockingIoPool,
  productId: number,
  options: Omit<SubmitOptions, 'signal'> & { timeoutMs?: number } = {},
): Promise<DeadlineResult> {
  const { timeoutMs = COURSE_WAIT_MS, ...read } = options;
  const started = Date.now();
  const signal = AbortSignal.timeout(timeoutMs);
  const task = pool.submit(productId, { ...read, signal });
  const aborted = new Promise<DeadlineResult>((resolve) => {
    const onAbort = () => resolve({ kind: 'timed-out', afterMs: Date.now() - started, task });
    signal.addEventListener('abort', onAbort, { once: true });
    const forget = () => signal.removeEventListener('abort', onAbort);
    task.result.then(forget, forget);
  });
  const finished = task.result.then((outcome): DeadlineResult => ({ kind: 'finished', outcome }));
  return Promise.race([finished, aborted]);
}
