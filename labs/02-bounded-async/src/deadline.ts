// A deadline for a whole batch: the Node counterpart of `async with asyncio.timeout(3)`.
// asyncio cancels the tasks inside the block; Node cannot, so the deadline is an
// AbortSignal that the work must pass down to everything that waits.

export class BatchTimeoutError extends Error {
  constructor(readonly budgetMs: number) {
    super(`batch timed out after ${budgetMs} ms`);
    this.name = 'BatchTimeoutError';
  }
}

/**
 * Runs `work` with a signal that aborts after `budgetMs`, with a BatchTimeoutError as
 * its reason. (`AbortSignal.timeout(ms)` works too, but its reason is a generic
 * "TimeoutError" DOMException and its timer cannot be cleared when the work ends early.)
 */
export async function withDeadline<T>(budgetMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new BatchTimeoutError(budgetMs)), budgetMs);
  try {
    return await work(deadline.signal);
  } finally {
    clearTimeout(timer);
  }
}
