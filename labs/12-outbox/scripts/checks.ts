// Lesson 12's learning checks and drills: the outbox checks run the submit transaction and
// the publisher against the real database and Redis (scripts/outbox-checks.ts); the drill
// checks break the broker or the confirmation for real (scripts/drill-checks.ts).
// buildChecks(deps) swaps broken parts in for the can-fail tests; building starts nothing.
import type { Check } from '@tasks-lab/lab-kit';
import { buildOutboxChecks, type OutboxCheckDeps } from './outbox-checks.ts';
import { buildDrillChecks, type DrillCheckDeps } from './drill-checks.ts';

export type CheckDeps = OutboxCheckDeps & DrillCheckDeps;

export function buildChecks(deps: CheckDeps = {}): Check[] {
  return [...buildOutboxChecks(deps), ...buildDrillChecks(deps)];
}
