// Lesson 13's learning checks and drills: the admission checks send real concurrent HTTP
// requests through the gate (both designs, the same judges), the per-client quota and a
// gate held locked (scripts/admission-checks.ts); the routing checks run a real worker
// process per queue, pause one for real and read the backlog (scripts/routing-checks.ts).
// buildChecks(deps) swaps broken parts in for the can-fail tests; building starts nothing.
import type { Check } from '@tasks-lab/lab-kit';
import { buildAdmissionChecks, type AdmissionCheckDeps } from './admission-checks.ts';
import { buildRoutingChecks, type RoutingCheckDeps } from './routing-checks.ts';

export type CheckDeps = AdmissionCheckDeps & RoutingCheckDeps;

export function buildChecks(deps: CheckDeps = {}): Check[] {
  return [...buildAdmissionChecks(deps), ...buildRoutingChecks(deps)];
}
