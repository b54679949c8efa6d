// Lesson 12's learning checks and drills: the outbox checks run the submit transaction and
// the publisher against the real database and Redis (scripts/outbox-checks.ts); the fault
// checks (the course's drills) break the broker or the confirmation for real (scripts/fault-checks.ts).
// buildChecks(deps) swaps broken parts in for the can-fail tests; building starts nothing.
import type { Check } from '@tasks-lab/lab-kit';
import { buildOutboxChecks, type OutboxCheckDeps } from './outbox-checks.ts';
import { buildFaultChecks, type FaultCheckDeps } from './fault-checks.ts';

export type CheckDeps = OutboxCheckDeps & FaultCheckDeps;

export function buildChecks(deps: CheckDeps = {}): Check[] {
  return [...buildOutboxChecks(deps), ...buildFaultChecks(deps)];
}
