// Try it yourself (lesson 10): decide what happens after a temporary failure.
// A retry needs BOTH a retry left AND enough time before the deadline for the wait
// plus the least time one more try takes. Leftover retries are not a promise.

export interface AfterFailure {
  nowMs: number;
  /** Epoch ms, set once by the producer. */
  deadlineAt: number;
  /** Runs that have finished (failed) so far, this one included. */
  runsSoFar: number;
  /** BullMQ's `attempts`: all runs, the first one included. */
  attempts: number;
  /** The wait the backoff drew for the next try. */
  delayMs: number;
  /** The least time one more try needs. */
  minWorkMs: number;
}

export type NextStep =
  | { action: 'retry'; delayMs: number }
  | { action: 'fail'; reason: 'attempts exhausted' | 'insufficient retry budget' };

export function nextStep({ nowMs, deadlineAt, runsSoFar, attempts, delayMs, minWorkMs }: AfterFailure): NextStep {
  // attempts counts the first run, so 4 attempts = 1 run + 3 retries.
  if (runsSoFar >= attempts) return { action: 'fail', reason: 'attempts exhausted' };
  // The wait and the next try must both end before the shared deadline.
  if (nowMs + delayMs + minWorkMs >= deadlineAt) return { action: 'fail', reason: 'insufficient retry budget' };
  return { action: 'retry', delayMs };
}
