// Lesson 03's learning checks and fault drill. Each one runs the real thing: a real
// server process polled over HTTP, real timers, a real child process that crashes,
// a real SIGKILL. `buildChecks(deps)` lets the can-fail tests swap in broken parts.
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { fail, outcome, pass, startTsProcess, waitFor, type Check } from '@tasks-lab/lab-kit';
import { JobStore, runExportJob, TaskRegistry, type ExportWork, type TaskRegistryOptions } from '../src/index.ts';
import { runKillDrill } from './drill-kill.ts';
import { readJob, SERVER_SCRIPT, startLabServer, submitBackgroundExport } from './lab-server.ts';
import { DRILL_ERROR_MESSAGE, failingExport } from './unobserved-rejection.ts';

export interface CheckDeps {
  /** Builds the registry under test. @defaultValue the real TaskRegistry */
  createRegistry?: (store: JobStore, options: TaskRegistryOptions) => TaskRegistry;
  /** The server entry point run as a real process. @defaultValue src/server.ts */
  serverScript?: string;
  /** The script with the `plain` and `registry` scenarios. @defaultValue scripts/unobserved-rejection.ts */
  rejectionScript?: string;
}

const REJECTION_SCRIPT = fileURLToPath(new URL('./unobserved-rejection.ts', import.meta.url));

/** Short timings so verify stays quick; the lesson's defaults are 3 s grace and a 30 s slow task. */
const TEST_GRACE_MS = 400;
const SLOW_TASK_MS = 30_000;
const QUICK_TASK_MS = 100;
const QUICK_GRACE_MS = 3000;

export function buildChecks(deps: CheckDeps = {}): Check[] {
  const createRegistry = deps.createRegistry ?? ((store, options) => new TaskRegistry(store, options));
  const serverScript = deps.serverScript ?? SERVER_SCRIPT;
  const rejectionScript = deps.rejectionScript ?? REJECTION_SCRIPT;
  return [
    {
      name: 'The short export runs after the 202 and reaches succeeded',
      run: () => checkBackgroundExport(serverScript),
    },
    {
      name: 'The registry turns a failing task into a failed job, without a crash',
      run: () => checkFailureObserved(createRegistry),
    },
    {
      name: 'Shutdown waits the grace period for a slow task, then cancels it: cleanup ran, 0 remaining',
      run: () => checkSlowTaskCancelled(createRegistry),
    },
    {
      name: 'Shutdown lets a quick task finish within the grace period',
      run: () => checkQuickTaskFinishes(createRegistry),
    },
    {
      name: 'An unobserved rejection crashes a plain process; the registry-managed one does not',
      run: () => checkUnobservedRejection(rejectionScript),
    },
    {
      name: 'SIGTERM drains: the server lets a running export finish before it exits',
      run: () => checkSigtermDrains(serverScript),
    },
    {
      name: 'Drill: SIGKILL during a slow export loses the job (404 after restart)',
      run: () => checkKillLosesJob(serverScript),
      timeoutMs: 90_000,
    },
  ];
}

async function checkBackgroundExport(serverScript: string) {
  const server = await startLabServer(serverScript);
  try {
    const submitted = await submitBackgroundExport(server.url, [1, 2]);
    const seen: string[] = [submitted.body.status];
    const final = await waitFor(
      'the export to reach a terminal state',
      async () => {
        const { body } = await readJob(server.url, submitted.body.id);
        if (body.status && body.status !== seen.at(-1)) seen.push(body.status);
        return (body.status === 'succeeded' || body.status === 'failed') && body;
      },
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    const path = seen.join(' -> ');
    const observed = `${submitted.status} with status ${submitted.body.status}, Location ${submitted.location ? 'set' : 'missing'}; polled ${path}, result ${JSON.stringify(final.result)}`;
    // The 202 body says "queued": the response left before the export started.
    const ok =
      submitted.status === 202 &&
      submitted.location === `/exports/${submitted.body.id}` &&
      submitted.body.status === 'queued' &&
      isInOrder(seen, ['queued', 'running', 'succeeded']) &&
      final.status === 'succeeded' &&
      final.result?.rows === 2;
    return outcome(ok, observed);
  } finally {
    await server.process.kill();
  }
}

/** True when `seen` only holds states from `order`, in that order, without repeats. */
function isInOrder(seen: string[], order: string[]): boolean {
  const positions = seen.map((state) => order.indexOf(state));
  return positions.every((position, i) => position >= 0 && (i === 0 || position > positions[i - 1]!));
}

async function checkFailureObserved(createRegistry: NonNullable<CheckDeps['createRegistry']>) {
  const store = new JobStore();
  const logged: string[] = [];
  const registry = createRegistry(store, { log: (line) => logged.push(line) });
  const job = store.create([1, 2]);
  const taskOutcome = await registry.start(job.id, (signal) => runExportJob(store, job.id, failingExport(), signal));
  const after = store.require(job.id);
  const failures = registry.failures;
  const loggedWithId = logged.some((line) => line.includes(job.id) && line.includes(DRILL_ERROR_MESSAGE));
  const observed = `outcome ${taskOutcome}, job ${after.state} with error ${JSON.stringify(after.error)}, ${failures.length} failure(s) recorded, log line with job id: ${loggedWithId ? 'yes' : 'no'}, ${registry.size} remaining`;
  const ok =
    after.state === 'failed' &&
    after.error === DRILL_ERROR_MESSAGE &&
    failures.length === 1 &&
    failures[0]?.jobId === job.id &&
    loggedWithId &&
    registry.size === 0;
  return outcome(ok, observed);
}

async function checkSlowTaskCancelled(createRegistry: NonNullable<CheckDeps['createRegistry']>) {
  const store = new JobStore();
  const registry = createRegistry(store, { graceMs: TEST_GRACE_MS, log: () => {} });
  const job = store.create([1, 2]);
  let cleanupRan = false;
  const slowWork: ExportWork = async (productIds, signal) => {
    try {
      await delay(SLOW_TASK_MS, undefined, { signal });
      return { rows: productIds.length };
    } finally {
      cleanupRan = true;
    }
  };
  void registry.start(job.id, (signal) => runExportJob(store, job.id, slowWork, signal));
  const started = Date.now();
  const report = await registry.shutdown();
  const waitedMs = Date.now() - started;
  const state = store.require(job.id).state;
  const observed = `waited ${waitedMs} ms (grace ${TEST_GRACE_MS} ms), cancelled ${report.cancelled}, cleanup ran: ${cleanupRan ? 'yes' : 'no'}, job ${state}, remaining ${registry.size}`;
  const ok =
    waitedMs >= TEST_GRACE_MS - 20 && // it did wait for the grace period (timers never fire early by more than rounding)
    waitedMs < SLOW_TASK_MS / 2 && // and did not wait for the task itself
    report.cancelled === 1 &&
    report.remaining === 0 &&
    cleanupRan &&
    state === 'cancelled' &&
    registry.size === 0;
  return outcome(ok, observed);
}

async function checkQuickTaskFinishes(createRegistry: NonNullable<CheckDeps['createRegistry']>) {
  const store = new JobStore();
  const registry = createRegistry(store, { graceMs: QUICK_GRACE_MS, log: () => {} });
  const job = store.create([1, 2]);
  const quickWork: ExportWork = async (productIds, signal) => {
    await delay(QUICK_TASK_MS, undefined, { signal });
    return { rows: productIds.length };
  };
  void registry.start(job.id, (signal) => runExportJob(store, job.id, quickWork, signal));
  const started = Date.now();
  const report = await registry.shutdown();
  const waitedMs = Date.now() - started;
  const after = store.require(job.id);
  const observed = `shutdown returned after ${waitedMs} ms (grace ${QUICK_GRACE_MS} ms): finished in grace ${report.finishedInGrace}, cancelled ${report.cancelled}, job ${after.state} with ${JSON.stringify(after.result)}, remaining ${registry.size}`;
  const ok =
    report.finishedInGrace === 1 &&
    report.cancelled === 0 &&
    report.remaining === 0 &&
    after.state === 'succeeded' &&
    after.result?.rows === 2 &&
    waitedMs < QUICK_GRACE_MS && // it returned when the task finished, not at the end of the grace period
    registry.size === 0;
  return outcome(ok, observed);
}

async function checkUnobservedRejection(rejectionScript: string) {
  const plain = startTsProcess(rejectionScript, { args: ['plain'] });
  const managed = startTsProcess(rejectionScript, { args: ['registry'] });
  const [plainExit, managedExit] = await Promise.all([plain.exited, managed.exited]);
  const plainText = plain.output();
  const managedText = managed.output();
  const plainCrashed =
    plainExit.code === 1 && plainText.includes(`Error: ${DRILL_ERROR_MESSAGE}`) && !plainText.includes('still alive');
  const managedSurvived =
    managedExit.code === 0 && managedText.includes('job state failed, remaining 0') && managedText.includes('still alive');
  const observed = `plain: exit code ${plainExit.code}, printed the error: ${plainText.includes(DRILL_ERROR_MESSAGE) ? 'yes' : 'no'}; registry: exit code ${managedExit.code}, ${managedSurvived ? 'job failed, remaining 0, still alive' : `printed ${JSON.stringify(lastLines(managedText))}`}`;
  return outcome(plainCrashed && managedSurvived, observed);
}

function lastLines(text: string, count = 3): string {
  return text.trim().split('\n').slice(-count).join(' | ');
}

async function checkSigtermDrains(serverScript: string) {
  const server = await startLabServer(serverScript, { EXPORT_WORK_MS: '1000', SHUTDOWN_GRACE_MS: '10000' });
  try {
    const submitted = await submitBackgroundExport(server.url, [1, 2]);
    await waitFor('the export to be running', async () => (await readJob(server.url, submitted.body.id)).body.status === 'running');
    server.process.child.kill('SIGTERM');
    const exit = await server.process.exited;
    const summary = server.process.output().match(/shutdown: .*/)?.[0];
    if (!summary) return fail(`exit code ${exit.code}, signal ${exit.signal}; no shutdown summary printed`);
    const ok = exit.code === 0 && summary.includes('1 finished within grace') && summary.includes('0 remaining');
    return outcome(ok, `exit code ${exit.code}; ${summary}`);
  } finally {
    await server.process.kill();
  }
}

async function checkKillLosesJob(serverScript: string) {
  const result = await runKillDrill(serverScript);
  const observed = `job was ${result.statusBeforeKill}, server killed by ${result.killedBy}, GET old id after restart -> ${result.httpStatusAfterRestart}`;
  if (result.statusBeforeKill !== 'running') return fail(observed);
  return result.httpStatusAfterRestart === 404 ? pass(observed) : fail(observed);
}
