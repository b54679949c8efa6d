// Grades the try-it-yourself exercise: solutions/expired-lease.ts by default,
// exercise/expired-lease.ts with LAB_EXERCISE=student (pnpm lab 15 --exercise).
import { loadExercise } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';

const { decideExpiredLease } = await loadExercise<typeof import('../solutions/expired-lease.ts')>(import.meta.url, 'expired-lease.ts');

const lease = (attempts: number, more: { cancelRequested?: boolean; deadlinePassed?: boolean } = {}) => ({ attempts, cancelRequested: false, deadlinePassed: false, ...more });

describe('exercise: what an expired lease becomes', () => {
  it('When the lease of a job with 3 attempts expires after its 1st, 2nd and 3rd claim, Then it is queued, queued, then failed: no 4th claim [test:exercise-third-expiry-fails]', () => {
    expect([1, 2, 3].map((attempts) => decideExpiredLease(lease(attempts), 3))).toEqual([
      { to: 'queued', reason: 'lease_expired' },
      { to: 'queued', reason: 'lease_expired' },
      { to: 'failed', reason: 'attempts_exhausted' },
    ]);
  });

  it('When a cancel was requested, Then the job is cancelled, whatever its attempts or deadline [test:exercise-cancel-wins]', () => {
    expect(decideExpiredLease(lease(3, { cancelRequested: true, deadlinePassed: true }), 3)).toEqual({ to: 'cancelled', reason: 'user_cancelled' });
  });

  it('When the deadline has passed, Then the job fails as deadline_exceeded, even with attempts left [test:exercise-deadline-fails]', () => {
    expect(decideExpiredLease(lease(1, { deadlinePassed: true }), 3)).toEqual({ to: 'failed', reason: 'deadline_exceeded' });
  });
});
