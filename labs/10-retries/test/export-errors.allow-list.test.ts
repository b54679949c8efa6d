import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { TemporaryExportError, failFastUnlessRetryable, isRetryable, plannedDelayOf, withPlannedDelay } from '../src/export-errors.ts';
import { plannedBackoff } from '../src/export-job.ts';

describe('export-errors: the retryable allow-list', () => {
  it('When a temporary error fails a try, Then it stays as it is (BullMQ may retry it)', () => {
    const err = new TemporaryExportError('temporary source failure');
    expect(isRetryable(err)).toBe(true);
    expect(failFastUnlessRetryable(err)).toBe(err);
  });

  it('When any other error fails a try, Then it becomes an UnrecoverableError with the same message', () => {
    for (const err of [new TypeError('invalid export request'), new Error('permission denied'), 'a string']) {
      const converted = failFastUnlessRetryable(err);
      expect(converted).toBeInstanceOf(UnrecoverableError);
      expect(converted.message).toBe(err instanceof Error ? err.message : err);
    }
  });

  it('When an error is already unrecoverable, Then it is kept', () => {
    const err = new UnrecoverableError('deadline exceeded');
    expect(failFastUnlessRetryable(err)).toBe(err);
  });
});

describe('export-job: the planned backoff strategy', () => {
  it('When an error carries a planned wait, Then the strategy returns exactly that wait', () => {
    const err = withPlannedDelay(new TemporaryExportError('x'), 321);
    expect(plannedDelayOf(err)).toBe(321);
    expect(plannedBackoff(1, 'planned-full-jitter', err)).toBe(321);
  });

  it('When an error comes with no plan, Then the strategy returns -1 (BullMQ does not retry)', () => {
    expect(plannedBackoff(1, 'planned-full-jitter', new TemporaryExportError('x'))).toBe(-1);
    expect(plannedBackoff(1, 'planned-full-jitter', undefined)).toBe(-1);
  });
});
