// Lesson 14's learning checks and drills: the slot checks call scheduleOnce and the tick
// handler with injected times around a minute boundary (scripts/slot-checks.ts); the
// scheduler checks run the real periodic signal with worker processes, stop one for more
// than two intervals and count the slots (scripts/scheduler-checks.ts).
// buildChecks(deps) swaps broken parts in for the can-fail tests; building starts nothing.
import type { Check } from '@tasks-lab/lab-kit';
import { buildSchedulerChecks, type SchedulerCheckDeps } from './scheduler-checks.ts';
import { buildSlotChecks, type SlotCheckDeps } from './slot-checks.ts';

export type CheckDeps = SlotCheckDeps & SchedulerCheckDeps;

export function buildChecks(deps: CheckDeps = {}): Check[] {
  return [...buildSlotChecks(deps), ...buildSchedulerChecks(deps)];
}
