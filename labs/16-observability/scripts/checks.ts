// Lesson 16's learning checks and drills:
//   the trace checks (scripts/trace-checks.ts) follow one job through the phase logs of every
//     component, with one W3C trace from the submit to the worker, and grep every log line for a
//     product's description and the credentials;
//   the monitoring checks (scripts/monitoring-checks.ts) run the course's queries, the /metrics
//     endpoint, housekeeping and the terminal-state check against the artifact, on a real database;
//   the wait check (scripts/wait-checks.ts) bounds a waiting job by its persisted next attempt
//     AND by its deadline (the fifth learning check, both halves);
//   the failure matrix (scripts/matrix-checks.ts) runs each of the course's 15 rows for real, one
//     at a time, plus a fault-free regression, writing an evidence record and an SVG timeline per
//     row and a summary (evidence/summary.md);
//   the flow checks (scripts/flow-checks.ts) are the deep dive: a fan-out export as a BullMQ flow.
// buildChecks(deps) swaps broken parts in for the can-fail tests; building starts nothing.
import type { Check } from '@tasks-lab/lab-kit';
import { buildFlowChecks, type FlowCheckDeps } from './flow-checks.ts';
import { buildMatrixChecks, type MatrixCheckDeps } from './matrix-checks.ts';
import { buildMonitoringChecks, type MonitoringCheckDeps } from './monitoring-checks.ts';
import { buildTraceChecks, type TraceCheckDeps } from './trace-checks.ts';
import { buildWaitChecks, type WaitCheckDeps } from './wait-checks.ts';

export type CheckDeps = TraceCheckDeps & MonitoringCheckDeps & WaitCheckDeps & MatrixCheckDeps & FlowCheckDeps;

export function buildChecks(deps: CheckDeps = {}): Check[] {
  return [
    ...buildTraceChecks(deps),
    ...buildMonitoringChecks(deps),
    ...buildWaitChecks(deps),
    ...buildMatrixChecks(deps),
    ...buildFlowChecks(deps),
  ];
}
