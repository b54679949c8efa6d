// Recovery budgets (the course's step 5): set the target first, then check each measured
// recovery against it. A budget is the sum of the timers the recovery path waits on, plus an
// allowance for what no timer bounds (the queue wait and the export itself). The paths differ,
// and one path's budget must not be applied to another's:
//
//   lease       a running job whose holder died (or was cancelled): the lease runs out, the
//               next scan sees it, the retry backoff passes, then a worker claims and finishes.
//               Course timers: 30 s + 5 s + 10 s = 45 s, + 15 s allowance = the course's 60 s.
//   unclaimed   a queued job whose wake-up was lost (or failed before its claim): the unclaimed
//               threshold, the next scan, then a worker. 60 s + 5 s + 15 s = 80 s, inside the
//               course's 90 s for this path.
//   publish     an event the broker did not take, or whose confirmation was lost: the
//               publisher's claim on it runs out (it may be sent again), the next poll sends it.
//               30 s + 5 s + 15 s = 50 s.
// Pure: the matrix's judge reads the budget from the record, which the runner fills from here.
import type { ObservabilityOptionValues } from '../options.ts';

export type RecoveryPath = 'lease' | 'unclaimed' | 'publish';

type BudgetTimings = Pick<
  ObservabilityOptionValues,
  | 'leaseMs'
  | 'recoveryScanMs'
  | 'retryBackoffMs'
  | 'unclaimedThresholdMs'
  | 'claimMs'
  | 'pollMs'
  | 'recoveryAllowanceMs'
>;

/** The timers each path waits on, in order, with their values. */
export function budgetTerms(path: RecoveryPath, t: BudgetTimings): Array<[string, number]> {
  const allowance: [string, number] = ['allowance', t.recoveryAllowanceMs];
  switch (path) {
    case 'lease':
      return [['lease', t.leaseMs], ['scan', t.recoveryScanMs], ['backoff', t.retryBackoffMs], allowance];
    case 'unclaimed':
      return [['unclaimed threshold', t.unclaimedThresholdMs], ['scan', t.recoveryScanMs], allowance];
    case 'publish':
      return [['publisher claim', t.claimMs], ['poll', t.pollMs], allowance];
  }
}

/** The path's budget in seconds. */
export function recoveryBudgetSeconds(path: RecoveryPath, timings: BudgetTimings): number {
  return budgetTerms(path, timings).reduce((sum, [, ms]) => sum + ms, 0) / 1000;
}

/** "lease 1.5 s + scan 0.2 s + backoff 0.5 s + allowance 4 s = 6.2 s". */
export function describeBudget(path: RecoveryPath, timings: BudgetTimings): string {
  const terms = budgetTerms(path, timings).map(([name, ms]) => `${name} ${ms / 1000} s`);
  return `${terms.join(' + ')} = ${recoveryBudgetSeconds(path, timings)} s`;
}
