// One answer to exercise/expired-lease.ts (lesson 15). The order matters: a cancel is the
// user's decision and wins; a passed deadline means no result may be published any more;
// attempts count real claims, so the 3rd expiry of a job with 3 attempts ends it.
// The recovery scanner calls it (src/expired-lease-rule.ts picks this file unless LAB_EXERCISE=student).
export interface ExpiredLease {
  attempts: number;
  cancelRequested: boolean;
  deadlinePassed: boolean;
}

export type ExpiredLeaseDecision =
  | { to: 'cancelled'; reason: 'user_cancelled' }
  | { to: 'failed'; reason: 'deadline_exceeded' | 'attempts_exhausted' }
  | { to: 'queued'; reason: 'lease_expired' };

export function decideExpiredLease(lease: ExpiredLease, maxAttempts: number): ExpiredLeaseDecision {
  if (lease.cancelRequested) return { to: 'cancelled', reason: 'user_cancelled' };
  if (lease.deadlinePassed) return { to: 'failed', reason: 'deadline_exceeded' };
  if (lease.attempts >= maxAttempts) return { to: 'failed', reason: 'attempts_exhausted' };
  return { to: 'queued', reason: 'lease_expired' };
}
