// Grades the try-it-yourself exercise: solutions/retry-budget.ts by default,
// exercise/retry-budget.ts with LAB_EXERCISE=student (pnpm lab 10 --exercise).
import { loadExercise } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';

const { nextStep } = await loadExercise<typeof import('../solutions/retry-budget.ts')>(
  import.meta.url,
  'retry-budget.ts',
);

const now = 1_000_000;
const base = { nowMs: now, deadlineAt: now + 60_000, runsSoFar: 1, attempts: 4, delayMs: 500, minWorkMs: 100 };

describe('exercise: a retry needs both a retry left and time left', () => {
  it('When one run failed and there is plenty of time, Then it retries after the drawn wait', () => {
    expect(nextStep(base)).toEqual({ action: 'retry', delayMs: 500 });
  });

  it('When the budget is only 50 ms, Then it fails with "insufficient retry budget" although 3 retries are left [test:exercise-50ms-budget-fails]', () => {
    expect(nextStep({ ...base, deadlineAt: now + 50, delayMs: 0 })).toEqual({
      action: 'fail',
      reason: 'insufficient retry budget',
    });
  });

  it('When the wait alone would end past the deadline, Then it fails with "insufficient retry budget"', () => {
    expect(nextStep({ ...base, deadlineAt: now + 1000, delayMs: 950 })).toEqual({
      action: 'fail',
      reason: 'insufficient retry budget',
    });
  });

  it('When the wait plus one more try ends exactly at the deadline, Then that is already too late', () => {
    expect(nextStep({ ...base, deadlineAt: now + 600 })).toEqual({
      action: 'fail',
      reason: 'insufficient retry budget',
    });
  });

  it('When 4 runs (1 + 3 retries) have failed with attempts 4, Then it fails with "attempts exhausted" [test:exercise-attempts-exhausted]', () => {
    expect(nextStep({ ...base, runsSoFar: 4 })).toEqual({ action: 'fail', reason: 'attempts exhausted' });
  });

  it('When 3 runs have failed with attempts 4, Then one retry is still allowed', () => {
    expect(nextStep({ ...base, runsSoFar: 3 })).toEqual({ action: 'retry', delayMs: 500 });
  });
});
