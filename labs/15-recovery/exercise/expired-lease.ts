// Try it yourself (lesson 15): what the recovery scanner does with a running job whose lease
// has expired. The course's exercise: let one job's lease expire again and again, and check
// that after the 3rd claim it ends failed, with no 4th claim.
//   - a cancel was requested   -> cancelled ('user_cancelled'): never run again
//   - the deadline has passed  -> failed ('deadline_exceeded'), with a dead letter
//   - no attempts left         -> failed ('attempts_exhausted'), with a dead letter
//   - otherwise                -> queued again ('lease_expired'), after the backoff
// This is the function the real scanner calls (src/recovery.ts, through src/expired-lease-rule.ts):
// with LAB_EXERCISE=student it runs this file instead of solutions/expired-lease.ts.
// Check your answer: pnpm -w lab 15 --exercise   (hint: pnpm -w lab 15 --hint). The test makes
// jobs whose leases expired in a fresh database and runs the scanner's batch on them.
// Watch it live: LAB_EXERCISE=student pnpm scanner

export interface ExpiredLease {
  /** Claims so far (each claim adds one; an expiry does not). */
  attempts: number;
  cancelRequested: boolean;
  deadlinePassed: boolean;
}

export type ExpiredLeaseDecision =
  | { to: 'cancelled'; reason: 'user_cancelled' }
  | { to: 'failed'; reason: 'deadline_exceeded' | 'attempts_exhausted' }
  | { to: 'queued'; reason: 'lease_expired' };

export function decideExpiredLease(lease: ExpiredLease, maxAttempts: number): ExpiredLeaseDecision {
  // TODO: a requested cancel comes first: the user asked for it, whatever else is true.
  // TODO: then the deadline, then the attempts (compare with maxAttempts): both end the job.
  void lease;
  void maxAttempts;
  return { to: 'queued', reason: 'lease_expired' };
}
