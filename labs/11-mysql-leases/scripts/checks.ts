// Lesson 11's learning checks and drills: the lease checks run the data layer against the
// real database (scripts/lease-checks.ts); the pipeline checks run the HTTP API, BullMQ and a
// worker process end to end (scripts/pipeline-checks.ts). buildChecks(deps) swaps broken parts
// in for the can-fail tests; building starts nothing.
import type { Check } from '@tasks-lab/lab-kit';
import { buildLeaseChecks, type LeaseCheckDeps } from './lease-checks.ts';
import { buildPipelineChecks, type PipelineCheckDeps } from './pipeline-checks.ts';

export type CheckDeps = LeaseCheckDeps & PipelineCheckDeps;

export function buildChecks(deps: CheckDeps = {}): Check[] {
  return [...buildLeaseChecks(deps), ...buildPipelineChecks(deps)];
}
