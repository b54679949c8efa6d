import { UnrecoverableError } from 'bullmq';
import { CodedError } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { DeadlineExceededError, FailFastError, InsufficientRetryBudgetError } from '../src/errors.ts';
import {
  TemporaryExportError,
  failFastUnlessRetryable,
  isRetryable,
  plannedDelayOf,
  withPlannedDelay,
} from '../src/export-errors.ts';
import { plannedBackoff } from '../src/export-job.ts';

describe('export-errors: the retryable allow-list', () => {
  it('When a temporary error fails a try, Then it stays as it is (BullMQ may retry it)', () => {
    const err = new TemporaryExportError();
    expect(isRetryable(err)).toBe(true);
    expect(failFastUnlessRetryable(err)).toBe(err);
    expect(err).toMatchObject({
      name: 'TemporaryExportError',
      code: 'temporary-source-failure',
      message: 'temporary source failure',
    });
  });

  it('When any other error fails a try, Then it becomes a FailFastError (an UnrecoverableError) with the same message [test:non-retryable-fails-fast]', () => {
    for (const err of [new TypeError('invalid export request'), new Error('permission denied'), 'a string']) {
      const converted = failFastUnlessRetryable(err);
      expect(converted).toBeInstanceOf(UnrecoverableError);
      expect(converted).toMatchObject({
        code: 'not-retryable',
        message: err instanceof Error ? err.message : err,
        cause: err,
      });
    }
  });

  it('When the error has a code of its own, Then the fail-fast error keeps it', () => {
    expect(failFastUnlessRetryable(new CodedError('unknown-category', 'no product category "x"'))).toMatchObject({
      code: 'unknown-category',
    });
  });

  it('When an error is already unrecoverable, Then it is kept', () => {
    const err = new DeadlineExceededError();
    expect(failFastUnlessRetryable(err)).toBe(err);
  });

  it('When the worker gives up, Then each reason has a stable code and its own class name', () => {
    expect(new DeadlineExceededError()).toMatchObject({
      name: 'DeadlineExceededError',
      code: 'deadline-exceeded',
      message: 'deadline exceeded',
    });
    expect(new InsufficientRetryBudgetError()).toMatchObject({
      code: 'insufficient-retry-budget',
      message: 'insufficient retry budget',
    });
    expect(new InsufficientRetryBudgetError()).toBeInstanceOf(FailFastError);
  });
});

describe('export-job: the planned backoff strategy', () => {
  it('When an error carries a planned wait, Then the strategy returns exactly that wait', () => {
    const err = withPlannedDelay(new TemporaryExportError('x'), 321);
    expect(plannedDelayOf(err)).toBe(321);
    expect(plannedBackoff(1, 'planned-full-jitter', err)).toBe(321);
  });

  it('When an error comes with no plan, Then the strategy returns -1 (BullMQ does not retry) [test:unplanned-error-not-retried]', () => {
    expect(plannedBackoff(1, 'planned-full-jitter', new TemporaryExportError('x'))).toBe(-1);
    expect(plannedBackoff(1, 'planned-full-jitter', undefined)).toBe(-1);
  });
});
