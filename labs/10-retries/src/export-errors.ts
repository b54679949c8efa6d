// Which failures deserve another try. BullMQ retries EVERY thrown error until
// `attempts` runs out, unless the error is an UnrecoverableError. Celery has an
// allow-list (autoretry_for); BullMQ has none, so we build it: only the errors on
// RETRYABLE_ERRORS are retried, everything else becomes a FailFastError.
import { UnrecoverableError } from 'bullmq';
import { CodedError } from '@tasks-lab/lab-kit';
import { FailFastError } from './errors.ts';

/** The product source could not be read right now; waiting a little may fix it. */
export class TemporaryExportError extends CodedError {
  constructor(message = 'temporary source failure', options?: { cause?: unknown }) {
    super('temporary-source-failure', message, options);
  }
}

/**
 * The wait the processor planned for an error it lets BullMQ retry (see planRetry).
 * The worker's backoff strategy reads it back, so the wait that was checked against
 * the deadline is the wait that happens. A WeakMap: the plan lives as long as the error.
 */
const plannedDelays = new WeakMap<Error, number>();

export function withPlannedDelay<E extends Error>(err: E, delayMs: number): E {
  plannedDelays.set(err, delayMs);
  return err;
}

export function plannedDelayOf(err: Error | undefined): number | undefined {
  return err ? plannedDelays.get(err) : undefined;
}

/** The allow-list: error classes that waiting can fix. Input, permission and code errors are not on it. */
export const RETRYABLE_ERRORS: ReadonlyArray<abstract new (...args: never[]) => Error> = [TemporaryExportError];

export function isRetryable(err: unknown, allowList = RETRYABLE_ERRORS): boolean {
  return allowList.some((kind) => err instanceof kind);
}

/** Keeps a retryable error as it is; turns anything else into a FailFastError with the same message (and code, if it had one). */
export function failFastUnlessRetryable(err: unknown, allowList = RETRYABLE_ERRORS): Error {
  if (err instanceof UnrecoverableError || isRetryable(err, allowList)) return err as Error;
  return FailFastError.from(err, 'not-retryable');
}
