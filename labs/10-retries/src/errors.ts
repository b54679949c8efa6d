// The errors lesson 10's worker decides on. BullMQ retries every thrown error until
// `attempts` runs out, unless it is an UnrecoverableError; these are, and each carries
// a stable `code` for whatever acts on it (a log line, a check, lesson 11's record).
// The message is for people and may change; the code may not.
import { UnrecoverableError } from 'bullmq';
import { errorCode, errorMessage } from '@tasks-lab/lab-kit';
import { DEADLINE_EXCEEDED, INSUFFICIENT_RETRY_BUDGET } from './retry-policy.ts';

/** Fails the job at once (no retry), with a stable code. */
export class FailFastError extends UnrecoverableError {
  constructor(
    readonly code: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message);
    this.name = new.target.name;
    if ('cause' in options) this.cause = options.cause;
  }

  /** Any thrown value as a fail-fast error that keeps its message, and its code when it has one. */
  static from(err: unknown, fallbackCode: string): FailFastError {
    return new FailFastError(errorCode(err) ?? fallbackCode, errorMessage(err), { cause: err });
  }
}

/** The producer's deadline passed before this try began: not one read of the source. */
export class DeadlineExceededError extends FailFastError {
  constructor() {
    super('deadline-exceeded', DEADLINE_EXCEEDED);
  }
}

/** Retries are left, but the wait plus one more try would end after the deadline. */
export class InsufficientRetryBudgetError extends FailFastError {
  constructor() {
    super('insufficient-retry-budget', INSUFFICIENT_RETRY_BUDGET);
  }
}

/** The job's data does not match its job name's contract; it will not match on a retry either. */
export class InvalidJobDataError extends FailFastError {
  constructor(jobName: string, problems: readonly string[]) {
    super('invalid-job-data', `invalid ${jobName} job: ${problems.join('; ')}`);
  }
}
