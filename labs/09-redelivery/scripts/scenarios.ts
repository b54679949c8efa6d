// The lesson's experiments as functions: each starts real worker processes on a queue
// of its own, does one thing to them, and returns what it saw (typed evidence). The
// checks judge the evidence; the drill scripts print it. Everything an experiment
// starts belongs to a resource scope tied to `signal`: when a check runs out of time,
// its workers are killed and its queue removed at once.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JobState } from 'bullmq';
import { Redis } from 'ioredis';
import { redisOptions } from '@tasks-lab/infra';
import {
  FAULTS_ENV,
  faultRule,
  launchProcess,
  onShutdown,
  sleep,
  waitFor,
  withResources,
  type LabProcess,
  type Resources,
} from '@tasks-lab/lab-kit';
import { sampleMessage, type ExportMessage } from '@tasks-lab/07-choosing-executors';
import {
  EXPORT_JOB_NAME,
  enqueue,
  openQueue,
  sha256,
  startWorker,
  waitForFinalState,
  type ExportJobName,
  type QueueAddress,
  type WorkerSettings,
} from '@tasks-lab/08-broker-worker';
import {
  existingDigest,
  finalArtifactPath,
  isTempArtifact,
  renderArtifactBytes,
  writeArtifactAtomically,
  type ArtifactWriter,
} from '../src/artifact.ts';
import { BUSY_JOB_NAME, type BusyJobData, type BusyJobResult } from '../src/busy-work.ts';
import { clearExecutions, readExecutions, type ExecutionEntry } from '../src/execution-log.ts';
import type { DeliveryResult } from '../src/export-worker.ts';
import { readLedger, type LedgerEntry } from '../src/ledger.ts';
import { CPU_WORKER_OPTIONS, WORKER_OPTIONS } from '../src/options.ts';
import { exportsAddress, type ExportJob, type ExportsQueue } from '../src/queue.ts';
import { submitExport, type SubmitExportOptions } from '../src/submit.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
export const EXPORT_WORKER_SCRIPT = here('../src/worker.ts');
export const CPU_WORKER_SCRIPT = here('../src/cpu-worker.ts');

/** Short lock and stall check so a drill ends in seconds; BullMQ's defaults are 30000 and 30000. */
export const DRILL_TIMINGS = { lockDurationMs: 2000, stalledIntervalMs: 1000 } as const;

/** The lock and stall-check timings of an experiment's workers. @defaultValue DRILL_TIMINGS */
export type DrillTimings = Partial<Pick<WorkerSettings, 'lockDurationMs' | 'stalledIntervalMs'>>;

/**
 * How long a dead worker's job may take to come back: its lock must run out, then a stalled
 * check must run (up to one interval later), plus room for process starts on a busy machine.
 */
function recoveryBoundMs(timings: DrillTimings = {}, floorMs = 45_000): number {
  const { lockDurationMs, stalledIntervalMs } = { ...DRILL_TIMINGS, ...timings };
  return Math.max(floorMs, 2 * (lockDurationMs + stalledIntervalMs) + 15_000);
}

/** The fault the drills switch on: SIGKILL right after the rename, before the job completes. */
const CRASH_ONCE = faultRule('after-rename', 'crash', 'once');
const CRASH_ALWAYS = faultRule('after-rename', 'crash', 'always');

export type Submit = (queue: ExportsQueue, message: ExportMessage, options: SubmitExportOptions) => Promise<ExportJob>;
type Log = (line: string) => void;
const quiet: Log = () => {};

/** A queue, an artifact folder and an execution log that exist for one experiment only. */
export interface Sandbox {
  address: QueueAddress;
  queue: ExportsQueue;
  artifactDir: string;
  /** The experiment's scope: what is added here closes when it ends or times out. */
  res: Resources;
  executions(businessJobId: string): Promise<ExecutionEntry[]>;
  /** An export worker process (src/worker.ts unless `script`), owned by the scope. */
  startWorker(options?: WorkerProcessOptions): Promise<LabProcess>;
}

export interface WorkerProcessOptions {
  script?: string;
  /** LAB_FAULTS for this process only (built with faultRule). @defaultValue none */
  faults?: string;
  /** @defaultValue DRILL_TIMINGS, concurrency 1 and maxStalledCount 1 */
  settings?: Partial<WorkerSettings>;
  /** EXPORT_LEDGER=on: one ledger line per delivery, the late-ack drill's non-idempotent side effect. */
  ledger?: boolean;
}

export async function withSandbox<T>(
  label: string,
  signal: AbortSignal | undefined,
  work: (sandbox: Sandbox) => Promise<T>,
): Promise<T> {
  return withResources(signal, async (res) => {
    const address = exportsAddress(`${label}-${randomUUID()}`);
    const artifactDir = await mkdtemp(join(tmpdir(), 'tasks-lab09-'));
    res.defer(() => rm(artifactDir, { recursive: true, force: true }));
    const redis = res.add(new Redis(redisOptions()), (r) => r.disconnect());
    res.defer(() => clearExecutions(redis, address.queueName));
    const queue = res.add(await openQueue<ExportMessage, DeliveryResult, ExportJobName>(address), (q) => q.close());
    res.defer(() => queue.obliterate({ force: true }));
    return work({
      address,
      queue,
      artifactDir,
      res,
      executions: (businessJobId) => readExecutions(redis, address.queueName, businessJobId),
      startWorker: (options = {}) =>
        launchProcess(options.script ?? EXPORT_WORKER_SCRIPT, {
          ready: /^worker \d+ ready/m,
          readyTimeoutMs: 45_000,
          resources: res,
          env: {
            ...WORKER_OPTIONS.toEnv({
              queueName: address.queueName,
              artifactDir,
              concurrency: 1,
              maxStalledCount: 1,
              ...DRILL_TIMINGS,
              ...options.settings,
              ledger: options.ledger ? 'on' : 'off',
            }),
            // Set even when empty: a replacement worker must not inherit a fault from this shell.
            [FAULTS_ENV]: options.faults ?? '',
          },
        }),
    });
  });
}

/** BullMQ always sets the id of an added job; the type says it may be missing. */
function idOf(job: { id?: string }): string {
  if (job.id === undefined) throw new Error('BullMQ returned a job without an id');
  return job.id;
}

/**
 * For the scripts a student runs by hand: Ctrl-C aborts the experiment, which kills its
 * workers and removes its queue before the process exits.
 */
export function runByHand<T>(experiment: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const running = experiment(stop.signal);
  onShutdown(async () => {
    stop.abort(new Error('interrupted'));
    await running.catch(() => {});
  });
  return running;
}

// ---- 1. two deliveries of one business job --------------------------------------

export interface DuplicateDeliveryEvidence {
  bullJobIds: string[];
  results: DeliveryResult[];
  fileDigest?: string;
  artifactFiles: string[];
}

export async function duplicateDelivery(
  signal?: AbortSignal,
  options: { workerScript?: string } = {},
): Promise<DuplicateDeliveryEvidence> {
  return withSandbox('duplicate', signal, async (sandbox) => {
    await sandbox.startWorker({ script: options.workerScript });
    const message = sampleMessage(3);
    // Two deliveries of one export: the same message under two fresh BullMQ ids.
    const bullJobIds = [
      idOf(await submitExport(sandbox.queue, message)),
      idOf(await submitExport(sandbox.queue, message)),
    ];
    const results: DeliveryResult[] = [];
    for (const id of bullJobIds) {
      const { job } = await waitForFinalState(sandbox.queue, id, {
        states: ['completed'],
        timeoutMs: 30_000,
        signal: sandbox.res.signal,
      });
      results.push(job.returnvalue);
    }
    const [first] = results;
    if (!first) throw new Error('no delivery result came back');
    return {
      bullJobIds,
      results,
      fileDigest: await existingDigest(first.path),
      artifactFiles: await readdir(sandbox.artifactDir),
    };
  });
}

// ---- 2. the same custom jobId added twice -------------------------------------------

export interface RepeatedJobIdEvidence {
  bullJobId: string;
  secondAddReturned: string;
  jobsInQueue: number;
  executionsAfterTwoAdds: number;
  executionsAfterRemoveAndReAdd: number;
}

export async function repeatedJobId(
  signal?: AbortSignal,
  options: { submit?: Submit } = {},
): Promise<RepeatedJobIdEvidence> {
  const submit = options.submit ?? submitExport;
  return withSandbox('same-jobid', signal, async (sandbox) => {
    await sandbox.startWorker();
    const message = sampleMessage(2);
    const bullJobId = `export-${message.job_id}`;
    const untilCompleted = (job: ExportJob) =>
      waitForFinalState(sandbox.queue, idOf(job), {
        states: ['completed'],
        timeoutMs: 30_000,
        signal: sandbox.res.signal,
      });
    await untilCompleted(await submit(sandbox.queue, message, { jobId: bullJobId }));
    // The job exists (completed jobs are kept by default), so this add is silently ignored.
    const second = await submit(sandbox.queue, message, { jobId: bullJobId });
    await untilCompleted(second);
    await sleep(1500, sandbox.res.signal); // room for a second execution to show up if there is one
    const counts = await sandbox.queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed');
    const jobsInQueue = Object.values(counts).reduce((a, b) => a + b, 0);
    const executionsAfterTwoAdds = (await sandbox.executions(message.job_id)).length;
    // Once the job is gone, the same id is free again: the next add runs the work again.
    await sandbox.queue.remove(bullJobId);
    await untilCompleted(await submit(sandbox.queue, message, { jobId: bullJobId }));
    return {
      bullJobId,
      secondAddReturned: idOf(second),
      jobsInQueue,
      executionsAfterTwoAdds,
      executionsAfterRemoveAndReAdd: (await sandbox.executions(message.job_id)).length,
    };
  });
}

// ---- 3. the drill: SIGKILL after the rename, before the job completes ------------------

export interface CrashAfterRenameEvidence {
  firstWorkerPid: number;
  firstWorkerExit: string;
  stateAfterCrash: string;
  digestAfterCrash?: string;
  secondWorkerPid: number;
  finalState: string;
  result?: DeliveryResult;
  finalDigest?: string;
  executions: ExecutionEntry[];
  attemptsMade: number;
  attemptsStarted: number;
  recoveryMs: number;
}

export async function crashAfterRename(
  signal?: AbortSignal,
  options: { workerScript?: string; timings?: DrillTimings; log?: Log } = {},
): Promise<CrashAfterRenameEvidence> {
  const log = options.log ?? quiet;
  return withSandbox('crash-after-rename', signal, async (sandbox) => {
    const message = sampleMessage(3);
    const first = await sandbox.startWorker({
      script: options.workerScript,
      faults: CRASH_ONCE,
      settings: options.timings,
    });
    log(`worker A (pid ${first.pid}) started with ${FAULTS_ENV}=${CRASH_ONCE}`);
    const jobId = idOf(await submitExport(sandbox.queue, message));
    const exit = await first.exited;
    const crashedAt = Date.now();
    const stateAfterCrash = await sandbox.queue.getJobState(jobId);
    const digestAfterCrash = await existingDigest(finalArtifactPath(sandbox.artifactDir, message.job_id));
    log(
      `worker A exited (${exit.signal ?? exit.code}); the file exists, the job is still "${stateAfterCrash}" in Redis`,
    );
    // The replacement runs clean: no LAB_FAULTS.
    const second = await sandbox.startWorker({ script: options.workerScript, settings: options.timings });
    log(`worker B (pid ${second.pid}) started without faults; waiting for the stalled check to hand the job back`);
    const { state, job } = await waitForFinalState(sandbox.queue, jobId, {
      timeoutMs: recoveryBoundMs(options.timings),
      signal: sandbox.res.signal,
    });
    const result = state === 'completed' ? job.returnvalue : undefined;
    return {
      firstWorkerPid: first.pid,
      firstWorkerExit: exit.signal ?? `code ${exit.code}`,
      stateAfterCrash,
      digestAfterCrash,
      secondWorkerPid: second.pid,
      finalState: state,
      result,
      finalDigest: result ? await existingDigest(result.path) : undefined,
      executions: await sandbox.executions(message.job_id),
      attemptsMade: job.attemptsMade,
      attemptsStarted: job.attemptsStarted,
      recoveryMs: Date.now() - crashedAt,
    };
  });
}

// ---- 3b. the late-ack window: a crash between the side effects and the completion ------

export interface LateAckWindowEvidence {
  maxStalledCount: number;
  firstWorkerPid: number;
  firstWorkerExit: string;
  stateAfterCrash: string;
  /** What the killed worker left behind: its ledger lines and the artifact's digest. */
  ledgerAfterCrash: LedgerEntry[];
  digestAfterCrash?: string;
  secondWorkerPid: number;
  finalState: string;
  failedReason?: string;
  executions: ExecutionEntry[];
  /** The non-idempotent side effect: one line per delivery that got that far. */
  ledger: LedgerEntry[];
  /** The idempotent one: `<job_id>.json` files in the folder at the end. */
  artifactFiles: string[];
  finalDigest?: string;
  /** In the run that completed: from its side effects (its ledger line) to BullMQ's finishedOn. */
  windowMs?: number;
  attemptsStarted: number;
}

/**
 * Worker A, with the ledger on, writes the artifact and its ledger line and is killed at
 * `after-rename`, inside the late-ack window; worker B, started without faults, gets the
 * job back from the stalled check (if maxStalledCount allows) and does it all again.
 */
export async function lateAckWindow(
  signal?: AbortSignal,
  options: { workerScript?: string; maxStalledCount?: number; timings?: DrillTimings; log?: Log } = {},
): Promise<LateAckWindowEvidence> {
  const log = options.log ?? quiet;
  const maxStalledCount = options.maxStalledCount ?? 1;
  return withSandbox('late-ack', signal, async (sandbox) => {
    const message = sampleMessage(3);
    const worker = (faults?: string) =>
      sandbox.startWorker({
        script: options.workerScript,
        faults,
        ledger: true,
        settings: { ...options.timings, maxStalledCount },
      });
    const first = await worker(CRASH_ONCE);
    log(
      `worker A (pid ${first.pid}) started with EXPORT_LEDGER=on, ${FAULTS_ENV}=${CRASH_ONCE}, maxStalledCount ${maxStalledCount}`,
    );
    const jobId = idOf(await submitExport(sandbox.queue, message));
    const exit = await first.exited;
    const stateAfterCrash = await sandbox.queue.getJobState(jobId);
    const ledgerAfterCrash = await readLedger(sandbox.artifactDir, message.job_id);
    const digestAfterCrash = await existingDigest(finalArtifactPath(sandbox.artifactDir, message.job_id));
    log(
      `worker A exited (${exit.signal ?? exit.code}) with ${ledgerAfterCrash.length} ledger line(s) and ${digestAfterCrash ? 'the artifact' : 'no artifact'} written; the job is "${stateAfterCrash}"`,
    );
    const second = await worker();
    log(`worker B (pid ${second.pid}) started without faults`);
    const { state, job } = await waitForFinalState(sandbox.queue, jobId, {
      timeoutMs: recoveryBoundMs(options.timings),
      signal: sandbox.res.signal,
    });
    const ledger = await readLedger(sandbox.artifactDir, message.job_id);
    const lastLine = ledger.at(-1);
    return {
      maxStalledCount,
      firstWorkerPid: first.pid,
      firstWorkerExit: exit.signal ?? `code ${exit.code}`,
      stateAfterCrash,
      ledgerAfterCrash,
      digestAfterCrash,
      secondWorkerPid: second.pid,
      finalState: state,
      failedReason: job.failedReason,
      executions: await sandbox.executions(message.job_id),
      ledger,
      artifactFiles: (await readdir(sandbox.artifactDir)).filter((name) => name.endsWith('.json')),
      finalDigest: await existingDigest(finalArtifactPath(sandbox.artifactDir, message.job_id)),
      windowMs:
        state === 'completed' && job.finishedOn !== undefined && lastLine ? job.finishedOn - lastLine.at : undefined,
      attemptsStarted: job.attemptsStarted,
    };
  });
}

// ---- 4. a poison job that kills every worker ------------------------------------------

export interface PoisonEvidence {
  maxStalledCount: number;
  workersStarted: number;
  workersKilled: number;
  finalState: string;
  failedReason?: string;
  executions: number;
  attemptsStarted?: number;
}

/**
 * Keeps one worker running (a supervisor restarting it after each death), up to
 * `maxWorkers` starts, until the job reaches a final state. Every worker it starts has
 * the crash switched on for every delivery.
 */
export async function poisonJob(
  signal?: AbortSignal,
  options: { maxStalledCount?: number; maxWorkers?: number; timings?: DrillTimings; log?: Log } = {},
): Promise<PoisonEvidence> {
  const maxStalledCount = options.maxStalledCount ?? 1;
  const maxWorkers = options.maxWorkers ?? maxStalledCount + 3;
  const log = options.log ?? quiet;
  return withSandbox('poison', signal, async (sandbox) => {
    const message = sampleMessage(1);
    const jobId = idOf(await submitExport(sandbox.queue, message));
    let workersStarted = 0;
    let workersKilled = 0;
    let state = await sandbox.queue.getJobState(jobId);
    while (workersStarted < maxWorkers && !isFinal(state)) {
      const worker = await sandbox.startWorker({
        faults: CRASH_ALWAYS,
        settings: { ...options.timings, maxStalledCount },
      });
      workersStarted += 1;
      log(`worker ${workersStarted} (pid ${worker.pid}) started`);
      state = await untilDeadOrFinal(sandbox, worker, jobId, recoveryBoundMs(options.timings, 30_000));
      if (worker.child.signalCode === 'SIGKILL') {
        workersKilled += 1;
        log(`worker ${workersStarted} was killed by the job (state now "${state}")`);
      }
    }
    const final = await sandbox.queue.getJob(jobId);
    return {
      maxStalledCount,
      workersStarted,
      workersKilled,
      finalState: await sandbox.queue.getJobState(jobId),
      failedReason: final?.failedReason,
      executions: (await sandbox.executions(message.job_id)).length,
      attemptsStarted: final?.attemptsStarted,
    };
  });
}

const isFinal = (state: string) => state === 'failed' || state === 'completed';

/**
 * Either the worker dies on the job, or its stall check fails the job for good. Polls
 * the job's state; the sleep between polls ends at once when the scope aborts.
 */
async function untilDeadOrFinal(
  sandbox: Sandbox,
  worker: LabProcess,
  jobId: string,
  timeoutMs: number,
): Promise<JobState | 'unknown'> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await sandbox.queue.getJobState(jobId);
    if (isFinal(state) || worker.child.exitCode !== null || worker.child.signalCode !== null) return state;
    if (Date.now() > deadline)
      throw new Error(
        `worker ${worker.pid} neither died nor ended job ${jobId} within ${timeoutMs} ms (it is ${state})`,
      );
    await sleep(100, sandbox.res.signal);
  }
}

// ---- 5. deep dive: does a BullMQ worker prefetch? ---------------------------------------

export interface PrefetchEvidence {
  firstWorkerConcurrency: number;
  firstJobOfA: { startedAt: number; endedAt?: number };
  firstJobOfB?: { startedAt: number };
  waitingWhenBStarted: number;
  /** undefined: B started nothing within the window. */
  bStartedAfterMs?: number;
}

/**
 * Worker A (concurrency 1) starts on 4 slow export jobs; worker B joins 300 ms later.
 * Both are in this process but on their own connections: their handler only sleeps,
 * so neither blocks the other.
 */
export async function prefetchExperiment(
  signal?: AbortSignal,
  options: { firstWorkerConcurrency?: number; jobMs?: number } = {},
): Promise<PrefetchEvidence> {
  const jobMs = options.jobMs ?? 2500;
  const firstWorkerConcurrency = options.firstWorkerConcurrency ?? 1;
  return withSandbox('prefetch', signal, async (sandbox) => {
    type Start = { startedAt: number; endedAt?: number };
    const starts: Record<'A' | 'B', Start[]> = { A: [], B: [] };
    const slowExport = (name: 'A' | 'B') => async (): Promise<void> => {
      const entry: Start = { startedAt: Date.now() };
      starts[name].push(entry);
      await sleep(jobMs);
      entry.endedAt = Date.now();
    };
    const settings = { lockDurationMs: 30_000, stalledIntervalMs: 30_000, maxStalledCount: 1 };
    const startNamed = (name: 'A' | 'B', concurrency: number) =>
      sandbox.res.add(
        startWorker<ExportMessage, void, ExportJobName>(
          sandbox.address,
          { [EXPORT_JOB_NAME]: slowExport(name) },
          { ...settings, concurrency },
        ),
        (w) => w.close(true),
      );
    for (let i = 0; i < 4; i += 1) await submitExport(sandbox.queue, sampleMessage(1));
    startNamed('A', firstWorkerConcurrency);
    await waitFor('worker A to start a job', () => starts.A.length > 0, { timeoutMs: 15_000 });
    await sleep(300, sandbox.res.signal);
    const bCreatedAt = Date.now();
    startNamed('B', 1);
    // Give B until A's first job has ended and a bit more; a B with nothing to do is evidence too.
    const gotOne = await waitFor('worker B to start a job', () => starts.B.length > 0, {
      timeoutMs: jobMs + 3000,
    }).catch(() => false);
    const waitingWhenBStarted = await sandbox.queue.getWaitingCount();
    const [firstOfA] = starts.A;
    if (!firstOfA) throw new Error('worker A has no first job');
    const firstOfB = gotOne ? starts.B[0] : undefined;
    return {
      firstWorkerConcurrency,
      firstJobOfA: { ...firstOfA },
      firstJobOfB: firstOfB ? { ...firstOfB } : undefined,
      waitingWhenBStarted,
      bStartedAfterMs: firstOfB ? firstOfB.startedAt - bCreatedAt : undefined,
    };
  });
}

// ---- 6. deep dive: a lock shorter than a blocked event loop -------------------------------

export interface BlockedLoopEvidence {
  processor: 'inline' | 'sandboxed';
  /** The two worker processes; a sandboxed run's execution pid is a child of one of them. */
  workerPids: number[];
  executions: ExecutionEntry[];
  distinctPids: number;
  finalState: string;
  failedReason?: string;
  lockErrors: number;
}

export interface BlockedLoopOptions {
  processor: 'inline' | 'sandboxed';
  busyMs?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /**
   * Stop watching as soon as the job has run this many times, without waiting for it to
   * end. For a caller that only asks "did it run more than once?": the count of runs only
   * grows, so once it is reached the rest of the run cannot change the answer.
   * @defaultValue undefined (wait for the job to end)
   */
  stopAtExecutions?: number;
}

/** Two CPU worker processes, one job that busy-loops `busyMs` with a lock of `lockDurationMs`. */
export async function blockedLoopExperiment(
  signal: AbortSignal | undefined,
  options: BlockedLoopOptions,
): Promise<BlockedLoopEvidence> {
  const busyMs = options.busyMs ?? 4000;
  return withSandbox(`busy-${options.processor}`, signal, async (sandbox) => {
    // The busy jobs get a queue of their own type on the sandbox's address.
    const busyQueue = sandbox.res.add(
      await openQueue<BusyJobData, BusyJobResult, typeof BUSY_JOB_NAME>(sandbox.address),
      (q) => q.close(),
    );
    const env = CPU_WORKER_OPTIONS.toEnv({
      queueName: sandbox.address.queueName,
      processor: options.processor,
      lockDurationMs: options.lockDurationMs ?? 1000,
      stalledIntervalMs: options.stalledIntervalMs ?? 500,
      maxStalledCount: 1,
    });
    const startCpuWorker = () =>
      launchProcess(CPU_WORKER_SCRIPT, {
        ready: /cpu worker \d+ ready/,
        readyTimeoutMs: 45_000,
        resources: sandbox.res,
        env,
      });
    const workers = await Promise.all([startCpuWorker(), startCpuWorker()]);
    const businessJobId = randomUUID();
    const jobId = idOf(
      await enqueue(busyQueue, BUSY_JOB_NAME, { job_id: businessJobId, busyMs }, { jobId: randomUUID() }),
    );
    const { stopAtExecutions } = options;
    // Until the job ends (completed, or failed by the stall limit), or has run `stopAtExecutions` times.
    const { state, stoppedEarly } = await waitFor(
      `busy job ${jobId} to end`,
      async () => {
        const state = await busyQueue.getJobState(jobId);
        if (state === 'completed' || state === 'failed') return { state, stoppedEarly: false };
        if (stopAtExecutions !== undefined && (await sandbox.executions(businessJobId)).length >= stopAtExecutions)
          return { state, stoppedEarly: true };
        return undefined;
      },
      { timeoutMs: busyMs * 4 + 20_000, intervalMs: 100, signal: sandbox.res.signal },
    );
    const done = await busyQueue.getJob(jobId);
    // Let a still-blocked first run finish and report its lost lock (a run we stopped watching early may go on: it is killed with its worker).
    if (!stoppedEarly) await sleep(busyMs + 1000, sandbox.res.signal);
    const executions = await sandbox.executions(businessJobId);
    const output = workers.map((w) => w.output()).join('\n');
    return {
      processor: options.processor,
      workerPids: workers.map((w) => w.pid),
      executions,
      distinctPids: new Set(executions.map((e) => e.pid)).size,
      finalState: state,
      failedReason: done?.failedReason,
      lockErrors: (output.match(/Missing lock|Lock mismatch/g) ?? []).length,
    };
  });
}

// ---- 7. readers during rewrites: atomic rename or not ----------------------------------------

export interface TornReadEvidence {
  rewrites: number;
  reads: number;
  tornReads: number;
  missingReads: number;
  leftoverTempFiles: string[];
  finalDigestMatches: boolean;
}

/**
 * Rewrites one job's artifact `rewrites` times (the same message each time: a redelivery
 * storm) while two readers read it in a loop. A torn read is a read whose bytes are not
 * the complete artifact.
 */
export async function readersDuringRewrites(
  signal?: AbortSignal,
  options: { write?: ArtifactWriter; rewrites?: number; products?: number } = {},
): Promise<TornReadEvidence> {
  const write = options.write ?? writeArtifactAtomically;
  const rewrites = options.rewrites ?? 30;
  return withResources(signal, async (res) => {
    const dir = await mkdtemp(join(tmpdir(), 'tasks-lab09-torn-'));
    res.defer(() => rm(dir, { recursive: true, force: true }));
    const message = sampleMessage(options.products ?? 1500, 40);
    const expected = sha256(renderArtifactBytes(message));
    const target = finalArtifactPath(dir, message.job_id);
    let writing = true;
    let reads = 0;
    let tornReads = 0;
    let missingReads = 0;
    const reader = async () => {
      while (writing) {
        try {
          const bytes = await readFile(target);
          reads += 1;
          if (sha256(bytes) !== expected) tornReads += 1;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
          missingReads += 1;
          await sleep(1);
        }
      }
    };
    const readers = [reader(), reader()];
    try {
      for (let i = 0; i < rewrites; i += 1) {
        res.throwIfAborted();
        await write(dir, message, { chunkBytes: 8 * 1024 });
      }
    } finally {
      writing = false;
      await Promise.all(readers);
    }
    return {
      rewrites,
      reads,
      tornReads,
      missingReads,
      leftoverTempFiles: (await readdir(dir)).filter(isTempArtifact),
      finalDigestMatches: (await existingDigest(target)) === expected,
    };
  });
}
