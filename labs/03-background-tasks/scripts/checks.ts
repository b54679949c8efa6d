// Lesson 03's learning checks and fault drill. The experiments (scripts/scenarios.ts,
// scripts/drill-kill.ts) run the real thing: a real server process polled over HTTP,
// real timers, a real child process that crashes, a real SIGKILL. Each check judges
// the evidence. `buildChecks(deps)` lets the can-fail tests swap in broken parts;
// building the checks starts nothing.
import { fileURLToPath } from 'node:url';
import { defineCheck, outcome, type Check } from '@tasks-lab/lab-kit';
import { TaskRegistry } from '../src/index.ts';
import { runKillDrill } from './drill-kill.ts';
import type { ServerProcess } from './lab-server.ts';
import {
  backgroundExport,
  failingTask,
  QUICK_GRACE_MS,
  shutdownWithQuickTask,
  shutdownWithSlowTask,
  sigtermDuringExport,
  SLOW_TASK_MS,
  unobservedRejection,
  type CreateRegistry,
  type ProcessRun,
} from './scenarios.ts';
import { DRILL_ERROR_MESSAGE } from './unobserved-rejection.ts';

export interface CheckDeps {
  /** Builds the registry under test. @defaultValue the real TaskRegistry */
  createRegistry?: CreateRegistry;
  /** The server run as a real process. @defaultValue src/server.ts */
  server?: ServerProcess;
  /** The script with the `plain` and `registry` modes. @defaultValue scripts/unobserved-rejection.ts */
  rejectionScript?: string;
}

const REJECTION_SCRIPT = fileURLToPath(new URL('./unobserved-rejection.ts', import.meta.url));

/** True when `seen` only holds states from `order`, in that order, without repeats. */
function isInOrder(seen: readonly string[], order: readonly string[]): boolean {
  const positions = seen.map((state) => order.indexOf(state));
  return positions.every((position, i) => position >= 0 && (i === 0 || position > positions[i - 1]!));
}

function lastLines(text: string, count = 3): string {
  return text.trim().split('\n').slice(-count).join(' | ');
}

const describeExit = ({ exit }: ProcessRun) => (exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`);

export function buildChecks(deps: CheckDeps = {}): Check[] {
  const createRegistry: CreateRegistry = deps.createRegistry ?? ((store, options) => new TaskRegistry(store, options));
  const server = deps.server ?? {};
  const rejectionScript = deps.rejectionScript ?? REJECTION_SCRIPT;
  return [
    defineCheck({
      id: 'export-runs-after-202',
      name: 'The short export runs after the 202 and reaches succeeded',
      scenario: (signal) => backgroundExport(server, signal),
      judge: (e) => {
        // The 202 body says "queued": the response left before the export started.
        const ok =
          e.submitStatus === 202 &&
          e.location === `/exports/${e.jobId}` &&
          e.statusIn202 === 'queued' &&
          isInOrder(e.seen, ['queued', 'running', 'succeeded']) &&
          e.final.status === 'succeeded' &&
          e.final.result?.rows === 2;
        return outcome(
          ok,
          `${e.submitStatus} with status ${e.statusIn202}, Location ${e.location ? 'set' : 'missing'}; ` +
            `polled ${e.seen.join(' -> ')}, result ${JSON.stringify(e.final.result)}`,
        );
      },
    }),
    defineCheck({
      id: 'failure-becomes-failed-job',
      name: 'The registry turns a failing task into a failed job, without a crash',
      scenario: (signal) => failingTask(createRegistry, signal),
      judge: (e) => {
        const ok =
          e.jobState === 'failed' &&
          e.jobError === DRILL_ERROR_MESSAGE &&
          e.failureJobIds.length === 1 &&
          e.failureJobIds[0] === e.jobId &&
          e.loggedWithId &&
          e.remaining === 0;
        return outcome(
          ok,
          `outcome ${e.outcome}, job ${e.jobState} with error ${JSON.stringify(e.jobError)}, ${e.failureJobIds.length} failure(s) recorded, ` +
            `log line with job id: ${e.loggedWithId ? 'yes' : 'no'}, ${e.remaining} remaining`,
        );
      },
    }),
    defineCheck({
      id: 'slow-task-cancelled-after-grace',
      name: 'Shutdown waits the grace period for a slow task, then cancels it: cleanup ran, 0 remaining',
      scenario: (signal) => shutdownWithSlowTask(createRegistry, signal),
      judge: (e) => {
        const ok =
          e.waitedMs >= e.graceMs - 20 && // it did wait for the grace period (timers never fire early by more than rounding)
          e.waitedMs < SLOW_TASK_MS / 2 && // and did not wait for the task itself
          e.report.cancelled === 1 &&
          e.report.remaining === 0 &&
          e.cleanupRan &&
          e.jobState === 'cancelled' &&
          e.remaining === 0;
        return outcome(
          ok,
          `waited ${e.waitedMs} ms (grace ${e.graceMs} ms), cancelled ${e.report.cancelled}, cleanup ran: ${e.cleanupRan ? 'yes' : 'no'}, ` +
            `job ${e.jobState}, remaining ${e.remaining}`,
        );
      },
    }),
    defineCheck({
      id: 'quick-task-finishes-in-grace',
      name: 'Shutdown lets a quick task finish within the grace period',
      scenario: (signal) => shutdownWithQuickTask(createRegistry, signal),
      judge: (e) => {
        const ok =
          e.report.finishedInGrace === 1 &&
          e.report.cancelled === 0 &&
          e.report.remaining === 0 &&
          e.jobState === 'succeeded' &&
          e.jobResult?.rows === 2 &&
          e.waitedMs < QUICK_GRACE_MS && // it returned when the task finished, not at the end of the grace period
          e.remaining === 0;
        return outcome(
          ok,
          `shutdown returned after ${e.waitedMs} ms (grace ${e.graceMs} ms): finished in grace ${e.report.finishedInGrace}, ` +
            `cancelled ${e.report.cancelled}, job ${e.jobState} with ${JSON.stringify(e.jobResult)}, remaining ${e.remaining}`,
        );
      },
    }),
    defineCheck({
      id: 'unobserved-rejection-crashes',
      name: 'An unobserved rejection crashes a plain process; the registry-managed one does not',
      scenario: (signal) => unobservedRejection(rejectionScript, signal),
      judge: ({ plain, registry }) => {
        const plainCrashed =
          plain.exit.code === 1 &&
          plain.output.includes(`Error: ${DRILL_ERROR_MESSAGE}`) &&
          !plain.output.includes('still alive');
        const managedSurvived =
          registry.exit.code === 0 &&
          registry.output.includes('job state failed, remaining 0') &&
          registry.output.includes('still alive');
        return outcome(
          plainCrashed && managedSurvived,
          `plain: ${describeExit(plain)}, printed the error: ${plain.output.includes(DRILL_ERROR_MESSAGE) ? 'yes' : 'no'}; ` +
            `registry: ${describeExit(registry)}, ` +
            (managedSurvived
              ? 'job failed, remaining 0, still alive'
              : `printed ${JSON.stringify(lastLines(registry.output))}`),
        );
      },
    }),
    defineCheck({
      id: 'sigterm-drains-export',
      name: 'SIGTERM drains: the server lets a running export finish before it exits',
      scenario: (signal) => sigtermDuringExport(server, signal),
      judge: (e) => {
        const how = e.exit.signal ? `killed by ${e.exit.signal}` : `exit code ${e.exit.code}`;
        if (!e.summary)
          return outcome(false, `export was ${e.statusAtSignal} at SIGTERM; ${how}; no shutdown summary printed`);
        const ok =
          e.exit.code === 0 && e.summary.includes('1 finished within grace') && e.summary.includes('0 remaining');
        return outcome(ok, `export was ${e.statusAtSignal} at SIGTERM; ${how}; ${e.summary}`);
      },
    }),
    defineCheck({
      id: 'kill-loses-job',
      name: 'Drill: SIGKILL during a slow export loses the job (404 after restart)',
      timeoutMs: 90_000,
      scenario: (signal) => runKillDrill({ server, signal }),
      judge: (e) =>
        outcome(
          e.statusBeforeKill === 'running' && e.exit.signal === 'SIGKILL' && e.httpStatusAfterRestart === 404,
          `job was ${e.statusBeforeKill}, server ended by ${e.exit.signal ?? `exit code ${e.exit.code}`}, ` +
            `GET old id after restart -> ${e.httpStatusAfterRestart}`,
        ),
    }),
  ];
}
