// Lesson 03's experiments. Each runs the real thing and returns what it saw; the
// checks in scripts/checks.ts judge that evidence. Everything an experiment starts
// (server processes, child processes, slow tasks) belongs to a resource scope tied to
// the check's signal, so a check that times out leaves nothing running.
//   server-side   src/server.ts (or a broken fixture) as a real process, over HTTP
//   in-process    a TaskRegistry on a MemoryJobStore, with real timers and short grace periods
//   crash         child processes whose unobserved rejection crashes them (or not)
import { setTimeout as delay } from 'node:timers/promises';
import { launchProcess, waitFor, withResources, type Exit, type Resources } from '@tasks-lab/lab-kit';
import { MemoryJobStore, type ExportResult, type JobState, type JobStore } from '@tasks-lab/01-state-machine';
import {
  runExportJob,
  type TaskRegistry,
  type ExportWork,
  type ShutdownReport,
  type TaskOutcome,
  type TaskRegistryOptions,
} from '../src/index.ts';
import { launchLabServer, readJob, submitBackgroundExport, type ServerProcess } from './lab-server.ts';
import { DRILL_ERROR_MESSAGE, failingExport } from './unobserved-rejection.ts';

export type CreateRegistry = (store: JobStore, options: TaskRegistryOptions) => TaskRegistry;

/** Short timings so verify stays quick; the lesson's defaults are a 3 s grace and a 30 s slow task. */
export const TEST_GRACE_MS = 400;
export const SLOW_TASK_MS = 30_000;
export const QUICK_TASK_MS = 100;
export const QUICK_GRACE_MS = 3000;

// ---------------------------------------------------------------- server-side

export interface BackgroundExportEvidence {
  submitStatus: number;
  location: string | null;
  jobId: string;
  /** The status in the 202 body: "queued" when the answer left before the work began. */
  statusIn202: string;
  /** Every status seen while polling, without repeats, starting with the 202's. */
  seen: string[];
  final: { status?: string; result?: ExportResult | null };
}

export function backgroundExport(server: ServerProcess, signal: AbortSignal): Promise<BackgroundExportEvidence> {
  return withResources(signal, async (res) => {
    const { url } = await launchLabServer(res, server);
    const submitted = await submitBackgroundExport(url, [1, 2], res.signal);
    const seen: string[] = [submitted.body.status];
    const final = await waitFor(
      'the export to reach a terminal state',
      async () => {
        const { body } = await readJob(url, submitted.body.id, res.signal);
        if (body.status && body.status !== seen.at(-1)) seen.push(body.status);
        return (body.status === 'succeeded' || body.status === 'failed') && body;
      },
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    return {
      submitStatus: submitted.status,
      location: submitted.location,
      jobId: submitted.body.id,
      statusIn202: submitted.body.status,
      seen,
      final: { status: final.status, result: final.result },
    };
  });
}

export interface SigtermEvidence {
  /** The job's status when SIGTERM was sent. */
  statusAtSignal?: string;
  exit: Exit;
  /** The server's "shutdown: ..." line, if it printed one. */
  summary?: string;
}

/** A 1 s export is running when SIGTERM arrives; the grace (10 s) is long enough for it. */
export function sigtermDuringExport(server: ServerProcess, signal: AbortSignal): Promise<SigtermEvidence> {
  return withResources(signal, async (res) => {
    const env = { EXPORT_WORK_MS: '1000', SHUTDOWN_GRACE_MS: '10000' };
    const { url, process: proc } = await launchLabServer(res, server, env);
    const submitted = await submitBackgroundExport(url, [1, 2], res.signal);
    const statusAtSignal = await waitFor('the export to be running', async () => {
      const { body } = await readJob(url, submitted.body.id, res.signal);
      return body.status === 'running' && body.status;
    });
    // SIGTERM, then at most 15 s (above the server's own bound) before SIGKILL.
    const exit = await proc.stop(15_000);
    return { statusAtSignal, exit, summary: proc.output().match(/shutdown: .*/)?.[0] };
  });
}

// ---------------------------------------------------------------- in-process

/**
 * A registry on a fresh MemoryJobStore, with one queued job. Work started through
 * `listen` also stops when the scope closes: whatever a broken registry leaves
 * running is stopped there, after the evidence is in.
 */
async function registryBench(res: Resources, createRegistry: CreateRegistry, options: TaskRegistryOptions) {
  const store = new MemoryJobStore();
  const registry = createRegistry(store, options);
  const job = await store.create([1, 2]);
  const leftovers = new AbortController();
  res.defer(() => leftovers.abort(new Error('the check is over')));
  const listen = (signal: AbortSignal) => AbortSignal.any([signal, leftovers.signal]);
  const start = (work: ExportWork) =>
    registry.start(job.id, (signal) => runExportJob(store, job.id, work, listen(signal)));
  return { store, registry, job, start };
}

export interface FailureEvidence {
  outcome: TaskOutcome;
  jobId: string;
  jobState: JobState;
  jobError: string | null;
  failureJobIds: string[];
  loggedWithId: boolean;
  remaining: number;
}

export function failingTask(createRegistry: CreateRegistry, signal: AbortSignal): Promise<FailureEvidence> {
  return withResources(signal, async (res) => {
    const logged: string[] = [];
    const { store, registry, job, start } = await registryBench(res, createRegistry, {
      log: (line) => logged.push(line),
    });
    const outcome = await start(failingExport());
    const after = await store.require(job.id);
    return {
      outcome,
      jobId: job.id,
      jobState: after.state,
      jobError: after.error,
      failureJobIds: registry.failures.map((failure) => failure.jobId),
      loggedWithId: logged.some((line) => line.includes(job.id) && line.includes(DRILL_ERROR_MESSAGE)),
      remaining: registry.size,
    };
  });
}

export interface ShutdownEvidence {
  graceMs: number;
  /** How long registry.shutdown() took. */
  waitedMs: number;
  report: ShutdownReport;
  /** The task's `finally` ran (slow task only). */
  cleanupRan: boolean;
  jobState: JobState;
  jobResult: ExportResult | null;
  remaining: number;
}

async function shutdownWith(
  createRegistry: CreateRegistry,
  signal: AbortSignal,
  graceMs: number,
  taskMs: number,
): Promise<ShutdownEvidence> {
  return withResources(signal, async (res) => {
    const { store, registry, job, start } = await registryBench(res, createRegistry, { graceMs, log: () => {} });
    let cleanupRan = false;
    void start(async (productIds, taskSignal) => {
      try {
        await delay(taskMs, undefined, { signal: taskSignal });
        return { rows: productIds.length };
      } finally {
        cleanupRan = true;
      }
    });
    const started = Date.now();
    const report = await registry.shutdown();
    const waitedMs = Date.now() - started;
    const after = await store.require(job.id);
    return {
      graceMs,
      waitedMs,
      report,
      cleanupRan,
      jobState: after.state,
      jobResult: after.result,
      remaining: registry.size,
    };
  });
}

/** A 30 s task and a 400 ms grace: shutdown must wait the grace, then cancel. */
export const shutdownWithSlowTask = (createRegistry: CreateRegistry, signal: AbortSignal) =>
  shutdownWith(createRegistry, signal, TEST_GRACE_MS, SLOW_TASK_MS);

/** A 100 ms task and a 3 s grace: shutdown must let it finish, and not wait out the grace. */
export const shutdownWithQuickTask = (createRegistry: CreateRegistry, signal: AbortSignal) =>
  shutdownWith(createRegistry, signal, QUICK_GRACE_MS, QUICK_TASK_MS);

// ---------------------------------------------------------------- crash

export interface ProcessRun {
  exit: Exit;
  output: string;
}

export interface RejectionEvidence {
  plain: ProcessRun;
  registry: ProcessRun;
}

/** Both modes of the rejection script, as two real processes: a crash is only visible from outside. */
export function unobservedRejection(script: string, signal: AbortSignal): Promise<RejectionEvidence> {
  return withResources(signal, async (res) => {
    const run = async (mode: string): Promise<ProcessRun> => {
      const proc = await launchProcess(script, { args: [mode], ready: /started job/, resources: res });
      return { exit: await proc.exited, output: proc.output() };
    };
    const [plain, registry] = await Promise.all([run('plain'), run('registry')]);
    return { plain, registry };
  });
}
