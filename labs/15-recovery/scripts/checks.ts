// Lesson 15's learning checks and drills: the recovery checks run the scanner's passes, the
// course's retry-gate and queued-recovery scripts, three expiries and a replay against the
// real database (scripts/recovery-checks.ts); the wake-up checks reproduce the lost wake-up
// with a fault point that holds the job's lock during the publisher's confirmation, then show
// the fixed claim (scripts/wakeup-checks.ts); the interrupt checks (the course's drills)
// SIGKILL a worker mid-export and cancel a running job for real (scripts/interrupt-checks.ts).
// buildChecks(deps) swaps broken parts in for the can-fail tests; building starts nothing.
import type { Check } from '@tasks-lab/lab-kit';
import { buildInterruptChecks, type InterruptCheckDeps } from './interrupt-checks.ts';
import { buildRecoveryChecks, type RecoveryCheckDeps } from './recovery-checks.ts';
import { buildWakeupChecks, type WakeupCheckDeps } from './wakeup-checks.ts';

export type CheckDeps = RecoveryCheckDeps & WakeupCheckDeps & InterruptCheckDeps;

export function buildChecks(deps: CheckDeps = {}): Check[] {
  return [...buildRecoveryChecks(deps), ...buildWakeupChecks(deps), ...buildInterruptChecks(deps)];
}
