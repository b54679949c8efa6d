// The lesson's experiments as functions: each starts real worker processes on a queue
// of its own, does one thing to them, and returns what it saw. The checks judge the
// evidence; the drill scripts print it.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type Job, type Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { labPrefix, redisOptions } from '@tasks-lab/infra';
import { sampleMessage, type ExportMessage } from '@tasks-lab/08-broker-worker';
import { sleep, startTsProcess, waitFor, type LabProcess } from '@tasks-lab/lab-kit';
import { readExecutions, type ExecutionEntry } from '../src/execution-log.ts';
import { bullConnection, openExportQueue, waitForJobState } from '../src/queue.ts';
import { submitExport } from '../src/submit.ts';
import { finalArtifactPath, isTempArtifact, renderArtifactBytes, sha256Hex, writeArtifactAtomically, type ArtifactWriter } from '../src/artifact.ts';
import type { CrashPoint, DeliveryResult } from '../src/export-worker.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
export const EXPORT_WORKER_SCRIPT = here('../src/worker.ts');
export const CPU_WORKER_SCRIPT = here('../src/cpu-worker.ts');

/** Short lock and stall check so a drill ends in seconds; BullMQ's defaults are 30000 and 30000. */
export const DRILL_TIMINGS = { lockDurationMs: 2000, stalledIntervalMs: 1000 } as const;

export type Submit = (queue: Queue, message: ExportMessage, options: { bullJobId?: string }) => Promise<Job<ExportMessage>>;

/** A queue, an artifact folder and a Redis client that exist for one experiment only. */
export interface Sandbox {
  queueName: string;
  queue: Queue;
  artifactDir: string;
  redis: Redis;
  workers: LabProcess[];
  executions(businessJobId: string): Promise<ExecutionEntry[]>;
  startWorker(options?: WorkerProcessOptions): Promise<LabProcess>;
}

export interface WorkerProcessOptions {
  script?: string;
  crashAfterRename?: CrashPoint;
  maxStalledCount?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  env?: NodeJS.ProcessEnv;
}

export async function withSandbox<T>(label: string, work: (sandbox: Sandbox) => Promise<T>): Promise<T> {
  const queueName = `${label}-${randomUUID()}`;
  const queue = openExportQueue(queueName);
  const redis = new Redis(redisOptions());
  const artifactDir = await mkdtemp(join(tmpdir(), 'tasks-lab09-'));
  const workers: LabProcess[] = [];
  const sandbox: Sandbox = {
    queueName,
    queue,
    artifactDir,
    redis,
    workers,
    executions: (businessJobId) => readExecutions(redis, queueName, businessJobId),
    async startWorker(options = {}) {
      const worker = startTsProcess(options.script ?? EXPORT_WORKER_SCRIPT, {
        env: {
          QUEUE_NAME: queueName,
          ARTIFACT_DIR: artifactDir,
          CRASH_AFTER_RENAME: options.crashAfterRename ?? 'never',
          MAX_STALLED_COUNT: String(options.maxStalledCount ?? 1),
          LOCK_DURATION_MS: String(options.lockDurationMs ?? DRILL_TIMINGS.lockDurationMs),
          STALLED_INTERVAL_MS: String(options.stalledIntervalMs ?? DRILL_TIMINGS.stalledIntervalMs),
          ...options.env,
        },
      });
      workers.push(worker);
      await worker.waitForOutput(/ready/, 45_000);
      return worker;
    },
  };
  try {
    return await work(sandbox);
  } finally {
    await Promise.all(workers.map((w) => w.kill('SIGKILL')));
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
    const keys = await redis.keys(`${labPrefix('09')}:executions:${queueName}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await rm(artifactDir, { recursive: true, force: true });
  }
}

const defaultSubmit: Submit = (queue, message, options) => submitExport(queue, message, options);

async function digestOf(path: string): Promise<string | undefined> {
  try {
    return sha256Hex(await readFile(path));
  } catch {
    return undefined;
  }
}

// ---- 1. two deliveries of one business job --------------------------------------

export interface DuplicateDeliveryEvidence {
  bullJobIds: string[];
  results: DeliveryResult[];
  fileDigest?: string;
  artifactFiles: string[];
}

export async function duplicateDelivery(options: { workerScript?: string } = {}): Promise<DuplicateDeliveryEvidence> {
  return withSandbox('duplicate', async (sandbox) => {
    await sandbox.startWorker({ script: options.workerScript });
    const message = sampleMessage(3);
    const jobs = [
      await submitExport(sandbox.queue, message, { bullJobId: randomUUID() }),
      await submitExport(sandbox.queue, message, { bullJobId: randomUUID() }),
    ];
    const results: DeliveryResult[] = [];
    for (const job of jobs) {
      const { job: done } = await waitForJobState(sandbox.queue, job.id!, ['completed'], 30_000);
      results.push(done.returnvalue as DeliveryResult);
    }
    return {
      bullJobIds: jobs.map((j) => j.id!),
      results,
      fileDigest: await digestOf(results[0].path),
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

export async function repeatedJobId(options: { submit?: Submit } = {}): Promise<RepeatedJobIdEvidence> {
  const submit = options.submit ?? defaultSubmit;
  return withSandbox('same-jobid', async (sandbox) => {
    await sandbox.startWorker();
    const message = sampleMessage(2);
    const bullJobId = `export-${message.job_id}`;
    const first = await submit(sandbox.queue, message, { bullJobId });
    await waitForJobState(sandbox.queue, first.id!, ['completed'], 30_000);
    // The job exists (completed jobs are kept by default), so this add is silently ignored.
    const second = await submit(sandbox.queue, message, { bullJobId });
    await waitForJobState(sandbox.queue, second.id!, ['completed'], 30_000);
    await sleep(1500); // room for a second execution to show up if there is one
    const counts = await sandbox.queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed');
    const jobsInQueue = Object.values(counts).reduce((a, b) => a + b, 0);
    const executionsAfterTwoAdds = (await sandbox.executions(message.job_id)).length;
    // Once the job is gone, the same id is free again: the next add runs the work again.
    await sandbox.queue.remove(bullJobId);
    const third = await submit(sandbox.queue, message, { bullJobId });
    await waitForJobState(sandbox.queue, third.id!, ['completed'], 30_000);
    return {
      bullJobId,
      secondAddReturned: second.id!,
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

export async function crashAfterRename(options: { workerScript?: string; log?: (line: string) => void } = {}): Promise<CrashAfterRenameEvidence> {
  const log = options.log ?? (() => {});
  return withSandbox('crash-after-rename', async (sandbox) => {
    const message = sampleMessage(3);
    const first = await sandbox.startWorker({ script: options.workerScript, crashAfterRename: 'once' });
    log(`worker A (pid ${first.pid}) started with CRASH_AFTER_RENAME=once`);
    const job = await submitExport(sandbox.queue, message);
    const exit = await first.exited;
    const crashedAt = Date.now();
    const stateAfterCrash = await sandbox.queue.getJobState(job.id!);
    const digestAfterCrash = await digestOf(join(sandbox.artifactDir, `${message.job_id}.json`));
    log(`worker A exited (${exit.signal ?? exit.code}); the file exists, the job is still "${stateAfterCrash}" in Redis`);
    const second = await sandbox.startWorker({ script: options.workerScript, crashAfterRename: 'once' });
    log(`worker B (pid ${second.pid}) started; waiting for the stalled check to hand the job back`);
    const { state, job: done } = await waitForJobState(sandbox.queue, job.id!, ['completed', 'failed'], 45_000);
    const result = done.returnvalue as DeliveryResult | undefined;
    return {
      firstWorkerPid: first.pid,
      firstWorkerExit: exit.signal ?? `code ${exit.code}`,
      stateAfterCrash,
      digestAfterCrash,
      secondWorkerPid: second.pid,
      finalState: state,
      result,
      finalDigest: result ? await digestOf(result.path) : undefined,
      executions: await sandbox.executions(message.job_id),
      attemptsMade: done.attemptsMade,
      attemptsStarted: done.attemptsStarted,
      recoveryMs: Date.now() - crashedAt,
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
 * `maxWorkers` starts, until the job reaches a final state.
 */
export async function poisonJob(options: { maxStalledCount?: number; maxWorkers?: number; log?: (line: string) => void } = {}): Promise<PoisonEvidence> {
  const maxStalledCount = options.maxStalledCount ?? 1;
  const maxWorkers = options.maxWorkers ?? maxStalledCount + 3;
  const log = options.log ?? (() => {});
  return withSandbox('poison', async (sandbox) => {
    const message = sampleMessage(1);
    const job = await submitExport(sandbox.queue, message);
    let workersStarted = 0;
    let workersKilled = 0;
    let state = await sandbox.queue.getJobState(job.id!);
    while (workersStarted < maxWorkers && state !== 'failed' && state !== 'completed') {
      const worker = await sandbox.startWorker({ crashAfterRename: 'always', maxStalledCount });
      workersStarted += 1;
      log(`worker ${workersStarted} (pid ${worker.pid}) started`);
      // Either this worker dies on the job, or its stall check fails the job for good.
      state = await waitFor(
        'the worker to die or the job to finish',
        async () => {
          const current = await sandbox.queue.getJobState(job.id!);
          if (current === 'failed' || current === 'completed') return current;
          return worker.child.exitCode !== null || worker.child.signalCode !== null ? current : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      if (worker.child.signalCode === 'SIGKILL') {
        workersKilled += 1;
        log(`worker ${workersStarted} was killed by the job (state now "${state}")`);
      }
    }
    const final = await sandbox.queue.getJob(job.id!);
    return {
      maxStalledCount,
      workersStarted,
      workersKilled,
      finalState: await sandbox.queue.getJobState(job.id!),
      failedReason: final?.failedReason,
      executions: (await sandbox.executions(message.job_id)).length,
      attemptsStarted: final?.attemptsStarted,
    };
  });
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
 * Worker A (concurrency 1) starts on 4 slow jobs; worker B joins 300 ms later. Both are
 * in this process but on their own connections: the jobs only sleep, so they never block.
 */
export async function prefetchExperiment(options: { firstWorkerConcurrency?: number; jobMs?: number } = {}): Promise<PrefetchEvidence> {
  const jobMs = options.jobMs ?? 2500;
  const firstWorkerConcurrency = options.firstWorkerConcurrency ?? 1;
  return withSandbox('prefetch', async (sandbox) => {
    const starts: Record<'A' | 'B', Array<{ startedAt: number; endedAt?: number }>> = { A: [], B: [] };
    const processorFor = (name: 'A' | 'B') => async () => {
      const entry: { startedAt: number; endedAt?: number } = { startedAt: Date.now() };
      starts[name].push(entry);
      await sleep(jobMs);
      entry.endedAt = Date.now();
    };
    const workerOptions = { connection: bullConnection(), prefix: labPrefix('09'), lockDuration: 30_000 };
    for (let i = 0; i < 4; i += 1) await sandbox.queue.add('slow', { n: i });
    const a = new Worker(sandbox.queueName, processorFor('A'), { ...workerOptions, concurrency: firstWorkerConcurrency });
    let b: Worker | undefined;
    try {
      await waitFor('worker A to start a job', () => starts.A.length > 0, { timeoutMs: 15_000 });
      await sleep(300);
      const bCreatedAt = Date.now();
      b = new Worker(sandbox.queueName, processorFor('B'), { ...workerOptions, concurrency: 1 });
      // Give B until A's first job has ended and a bit more; a B with nothing to do is evidence too.
      const gotOne = await waitFor('worker B to start a job', () => starts.B.length > 0, { timeoutMs: jobMs + 3000 }).catch(() => false);
      const waitingWhenBStarted = await sandbox.queue.getWaitingCount();
      return {
        firstWorkerConcurrency,
        firstJobOfA: { ...starts.A[0] },
        firstJobOfB: gotOne ? { ...starts.B[0] } : undefined,
        waitingWhenBStarted,
        bStartedAfterMs: gotOne ? starts.B[0].startedAt - bCreatedAt : undefined,
      };
    } finally {
      await Promise.all([a.close(true), b?.close(true)]);
    }
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

/** Two worker processes, one job that busy-loops `busyMs` with a lock of `lockDurationMs`. */
export async function blockedLoopExperiment(options: {
  processor: 'inline' | 'sandboxed';
  busyMs?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
}): Promise<BlockedLoopEvidence> {
  const busyMs = options.busyMs ?? 4000;
  const lockDurationMs = options.lockDurationMs ?? 1000;
  const stalledIntervalMs = options.stalledIntervalMs ?? 500;
  return withSandbox(`busy-${options.processor}`, async (sandbox) => {
    const env = { PROCESSOR: options.processor };
    const timing = { lockDurationMs, stalledIntervalMs, env };
    const workers = await Promise.all([
      sandbox.startWorker({ script: CPU_WORKER_SCRIPT, ...timing }),
      sandbox.startWorker({ script: CPU_WORKER_SCRIPT, ...timing }),
    ]);
    const jobId = randomUUID();
    const job = await sandbox.queue.add('busy', { job_id: jobId, busyMs });
    const { state, job: done } = await waitForJobState(sandbox.queue, job.id!, ['completed', 'failed'], busyMs * 4 + 20_000);
    await sleep(busyMs + 1000); // let a still-blocked first run finish and report its lost lock
    const executions = await sandbox.executions(jobId);
    const output = workers.map((w) => w.output()).join('\n');
    return {
      processor: options.processor,
      workerPids: workers.map((w) => w.pid),
      executions,
      distinctPids: new Set(executions.map((e) => e.pid)).size,
      finalState: state,
      failedReason: done.failedReason,
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
export async function readersDuringRewrites(options: { write?: ArtifactWriter; rewrites?: number; products?: number } = {}): Promise<TornReadEvidence> {
  const write = options.write ?? writeArtifactAtomically;
  const rewrites = options.rewrites ?? 30;
  const dir = await mkdtemp(join(tmpdir(), 'tasks-lab09-torn-'));
  try {
    const message = sampleMessage(options.products ?? 1500, 40);
    const expected = sha256Hex(renderArtifactBytes(message));
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
          if (sha256Hex(bytes) !== expected) tornReads += 1;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
          missingReads += 1;
          await sleep(1);
        }
      }
    };
    const readers = [reader(), reader()];
    try {
      for (let i = 0; i < rewrites; i += 1) await write(dir, message, { chunkBytes: 8 * 1024 });
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
      finalDigestMatches: (await digestOf(target)) === expected,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
