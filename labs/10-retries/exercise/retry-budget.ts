// Try it yourself (lesson 10): decide what happens after a temporary failure.
// A retry needs BOTH a retry left AND enough time before the deadline for the wait
// plus the least time one more try takes. Leftover retries are not a promise.
// Check your answer: pnpm -w lab 10 --exercise   (hint: pnpm -w lab 10 --hint)

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
  // TODO: fail with 'attempts exhausted' when no run is left. Careful: attempts counts the first run too.
  void runsSoFar;
  void attempts;
  // TODO: fail with 'insufficient retry budget' when the wait plus one more try would not end before the deadline.
  void nowMs;
  void deadlineAt;
  void minWorkMs;
  return { action: 'retry', delayMs };
}
