// Lesson 05's experiments. Each one starts a real pool of worker threads, runs real
// blocking reads (Atomics.wait slices) and returns what it saw as typed evidence; the
// checks (checks.ts) judge it. Every pool belongs to the scenario's resource scope: when
// the scenario ends, or its check runs out of time, the pool is destroyed and whatever
// still runs in its threads is terminated.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobState } from '@tasks-lab/01-state-machine';
import { sleep, waitFor, withResources, type Resources } from '@tasks-lab/lab-kit';
import type { ReadOutcome } from '../src/blocking-read.ts';
import { exportAll } from '../src/batch-export.ts';
import {
  type BlockingIoPool,
  PoolClosedError,
  PoolFullError,
  TaskCancelledError,
  type PoolOptions,
  type TaskHandle,
  type TaskState,
} from '../src/io-pool.ts';
import { IO_POOL_OPTIONS } from '../src/options.ts';
import type { readWithDeadline, waitWithTimeout } from '../src/waiting.ts';

/** The lesson's pool: 2 threads, at most 4 pending. The checks hold every pool to these. */
export const LESSON_POOL = IO_POOL_OPTIONS.defaults();

/** What the experiments run with; the can-fail tests swap the first three for broken variants. */
export interface ScenarioParts {
  createPool: (options: PoolOptions) => BlockingIoPool;
  waitWithTimeout: typeof waitWithTimeout;
  readWithDeadline: typeof readWithDeadline;
  /** The long read (the course's: 20 slices of 100 ms) and how long a caller waits for it (0.2 s). */
  slices: number;
  sliceMs: number;
  waitTimeoutMs: number;
}

/** Opens the lesson's pool inside `res` and waits until its threads have loaded their code. */
async function openPool(res: Resources, parts: ScenarioParts, options: PoolOptions = {}): Promise<BlockingIoPool> {
  const pool = res.add(parts.createPool({ ...LESSON_POOL, ...options }), (p) => p.destroy());
  await pool.ready();
  return pool;
}

interface Settled {
  outcome?: ReadOutcome;
  error?: unknown;
}

const settle = (task: TaskHandle): Promise<Settled> =>
  task.result.then(
    (outcome) => ({ outcome }),
    (error: unknown) => ({ error }),
  );

const longRead = (parts: ScenarioParts) => ({ slices: parts.slices, sliceMs: parts.sliceMs });

export interface WaitTimeoutEvidence {
  slices: number;
  waitKind: 'finished' | 'timed-out';
  gaveUpAtMs: number;
  slicesAtTimeout: number;
  read?: ReadOutcome;
  finishedAtMs: number;
  jobState: JobState;
}

/** A caller waits 0.2 s for a 2 s read, then we watch what the read does. */
export function waitTimeout(parts: ScenarioParts, signal: AbortSignal): Promise<WaitTimeoutEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openPool(res, parts);
    const started = Date.now();
    const task = pool.submit(1, longRead(parts));
    const wait = await parts.waitWithTimeout(task, parts.waitTimeoutMs);
    const gaveUpAtMs = Date.now() - started;
    const slicesAtTimeout = task.slicesDone;
    const { outcome: read } = await settle(task);
    return {
      slices: parts.slices,
      waitKind: wait.kind,
      gaveUpAtMs,
      slicesAtTimeout,
      read,
      finishedAtMs: Date.now() - started,
      jobState: pool.store.require(task.id).state,
    };
  });
}

export interface CancelPendingEvidence {
  stateBefore: TaskState;
  cancelled: boolean;
  stateAfter: TaskState;
  rejectedAsCancelled: boolean;
  /** A thread reported starting it, or its progress counter moved. */
  ranAnyway: boolean;
  jobState: JobState;
}

/** Both threads busy, a third task waits; cancel it, then free the threads and see whether it runs. */
export function cancelPending(parts: ScenarioParts, signal: AbortSignal): Promise<CancelPendingEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openPool(res, parts);
    const busy = Array.from({ length: pool.threads }, (_, i) => pool.submit(i + 1, longRead(parts)));
    const queued = pool.submit(99, longRead(parts));
    const stateBefore = queued.state;
    const cancelled = queued.cancel();
    const stateAfter = queued.state;
    // Free the threads and give a wrongly queued task every chance to start.
    for (const task of busy) task.requestStop();
    await Promise.all(busy.map(settle));
    await sleep(3 * parts.sliceMs, res.signal);
    const { error } = await settle(queued);
    return {
      stateBefore,
      cancelled,
      stateAfter,
      rejectedAsCancelled: error instanceof TaskCancelledError,
      ranAnyway: pool.startedTaskIds.includes(queued.id) || queued.slicesDone > 0,
      jobState: pool.store.require(queued.id).state,
    };
  });
}

export interface CancelRunningEvidence {
  slices: number;
  cancelled: boolean;
  stateAfter: TaskState;
  slicesAtCancel: number;
  slicesLater: number;
  read?: ReadOutcome;
}

/** cancel() on a read a thread is running, then watch its progress counter. */
export function cancelRunning(parts: ScenarioParts, signal: AbortSignal): Promise<CancelRunningEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openPool(res, parts);
    const task = pool.submit(1, longRead(parts));
    await waitFor('the read to finish its first slice', () => task.slicesDone >= 1);
    const cancelled = task.cancel();
    const stateAfter = task.state;
    const slicesAtCancel = task.slicesDone;
    await sleep(3 * parts.sliceMs, res.signal);
    const slicesLater = task.slicesDone;
    task.requestStop();
    const { outcome: read } = await settle(task);
    return { slices: parts.slices, cancelled, stateAfter, slicesAtCancel, slicesLater, read };
  });
}

export interface StopFlagEvidence {
  slices: number;
  waitKind: 'finished' | 'timed-out';
  slicesAtStop: number;
  read?: ReadOutcome;
  /** From setting the flag to the read's return. */
  tookMs: number;
  jobState: JobState;
}

/** A timed-out wait, then requestStop(): when does the read return? */
export function stopFlag(parts: ScenarioParts, signal: AbortSignal): Promise<StopFlagEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openPool(res, parts);
    const task = pool.submit(1, longRead(parts));
    await waitFor('the read to start', () => task.slicesDone >= 1);
    const wait = await parts.waitWithTimeout(task, parts.waitTimeoutMs);
    task.requestStop();
    // Read after setting the flag: from here the thread can finish at most the slice it is in.
    const slicesAtStop = task.slicesDone;
    const stoppedAt = Date.now();
    const { outcome: read } = await settle(task);
    return {
      slices: parts.slices,
      waitKind: wait.kind,
      slicesAtStop,
      read,
      tookMs: Date.now() - stoppedAt,
      jobState: pool.store.require(task.id).state,
    };
  });
}

export interface LimitsEvidence {
  /** How many submit() calls the pool took before it refused. */
  accepted: number;
  /** What the pool held when it refused: tasks a thread owns, and tasks still waiting. */
  runningAtRefusal: number;
  pendingAtRefusal: number;
  refusedWithPoolFull: boolean;
  exported: number;
  complete: number;
  samples: number;
  maxPendingSeen: number;
  maxRunningSeen: number;
  poolPeakPending: number;
  /**
   * The most reads the threads themselves counted at once (the shared gauge): the proof
   * that reads really overlapped, which the pool's bookkeeping alone cannot give.
   */
  peakInRead: number;
}

/**
 * Fill the pool until submit() refuses, then export 12 products through it, sampling every
 * 5 ms. The reads are long enough (200 ms) that both threads surely read at the same time,
 * and that a third thread, if the pool had one, would overlap the other two.
 */
export function limits(parts: ScenarioParts, signal: AbortSignal): Promise<LimitsEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openPool(res, parts);
    const read = { slices: 4, sliceMs: 50 };
    let accepted = 0;
    let refusal: unknown;
    while (accepted < 50 && refusal === undefined) {
      try {
        pool.submit(accepted + 1, read);
        accepted += 1;
      } catch (err) {
        refusal = err;
      }
    }
    const atRefusal = pool.snapshot();
    const seen = { samples: 0, pending: 0, running: 0 };
    const sampler = setInterval(() => {
      const now = pool.snapshot();
      seen.samples += 1;
      seen.pending = Math.max(seen.pending, now.pending);
      seen.running = Math.max(seen.running, now.running);
    }, 5);
    res.defer(() => clearInterval(sampler));
    const productIds = Array.from({ length: 12 }, (_, i) => 100 + i);
    const outcomes = await exportAll(pool, productIds, read);
    clearInterval(sampler);
    return {
      accepted,
      runningAtRefusal: atRefusal.running,
      pendingAtRefusal: atRefusal.pending,
      refusedWithPoolFull: refusal instanceof PoolFullError,
      exported: productIds.length,
      complete: outcomes.filter((o) => !o.stopped && o.slicesDone === read.slices).length,
      samples: seen.samples,
      maxPendingSeen: seen.pending,
      maxRunningSeen: seen.running,
      poolPeakPending: pool.peakPending,
      peakInRead: pool.readGauge().peakInRead,
    };
  });
}

export interface AbortSignalEvidence {
  slices: number;
  callerGot: 'finished' | 'timed-out';
  gaveUpAtMs: number;
  read?: ReadOutcome;
  finishedAtMs: number;
  jobState?: JobState;
}

/** readWithDeadline with a 0.2 s deadline on a 2 s read: does the thread hear about it? */
export function abortSignal(parts: ScenarioParts, signal: AbortSignal): Promise<AbortSignalEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openPool(res, parts);
    const started = Date.now();
    const result = await parts.readWithDeadline(pool, 1, { ...longRead(parts), timeoutMs: parts.waitTimeoutMs });
    const gaveUpAtMs = Date.now() - started;
    if (result.kind === 'finished') {
      return {
        slices: parts.slices,
        callerGot: 'finished',
        gaveUpAtMs,
        read: result.outcome,
        finishedAtMs: gaveUpAtMs,
      };
    }
    const { outcome: read } = await settle(result.task);
    return {
      slices: parts.slices,
      callerGot: 'timed-out',
      gaveUpAtMs: result.afterMs,
      read,
      finishedAtMs: Date.now() - started,
      jobState: pool.store.require(result.task.id).state,
    };
  });
}

export interface TerminateEvidence {
  slices: number;
  terminated: boolean;
  taskState: TaskState;
  resultRejected: boolean;
  jobState: JobState;
  /** Lines in the temp file the killed read was writing. */
  linesLeft: number;
  finalFileExists: boolean;
  counterAtKill: number;
  counterLater: number;
  liveThreadsAfter: number;
  newThreads: number;
  followUpCompleted: boolean;
}

/** The fault drill: terminate() a thread three slices into an export that writes a temp file. */
export function terminateMidWrite(parts: ScenarioParts, signal: AbortSignal): Promise<TerminateEvidence> {
  return withResources(signal, async (res) => {
    const dir = mkdtempSync(join(tmpdir(), 'lab05-'));
    res.defer(() => rmSync(dir, { recursive: true, force: true }));
    const pool = await openPool(res, parts);
    const threadsBefore = pool.snapshot().threadIds;
    const tempFile = join(dir, 'export-7.csv.tmp');
    const finalFile = join(dir, 'export-7.csv');
    const task = pool.submit(7, { ...longRead(parts), tempFile, finalFile });
    await waitFor('three slices written', () => task.slicesDone >= 3);
    const terminated = await pool.terminate(task);
    const { error } = await settle(task);
    const counterAtKill = task.slicesDone;
    await sleep(3 * parts.sliceMs, res.signal);
    const counterLater = task.slicesDone;
    const linesLeft = existsSync(tempFile) ? readFileSync(tempFile, 'utf8').split('\n').filter(Boolean).length : 0;
    // The replacement must be a new thread that really runs reads.
    await pool.ready();
    const after = pool.snapshot();
    const followUp = await settle(pool.submit(8, { slices: 2, sliceMs: 10 }));
    return {
      slices: parts.slices,
      terminated,
      taskState: task.state,
      resultRejected: error !== undefined,
      jobState: pool.store.require(task.id).state,
      linesLeft,
      finalFileExists: existsSync(finalFile),
      counterAtKill,
      counterLater,
      liveThreadsAfter: after.liveThreads,
      newThreads: after.threadIds.filter((id) => !threadsBefore.includes(id)).length,
      followUpCompleted: followUp.outcome?.stopped === false,
    };
  });
}

export interface CloseEvidence {
  submitted: number;
  finished: number;
  closedAfterMs: number;
  exitCodes: number[];
  liveThreadsAfter: number;
  refusedAfterClose: boolean;
}

/** Two short reads running, then close(): do they finish, and do the threads exit normally? */
export function closeWhileReading(parts: ScenarioParts, signal: AbortSignal): Promise<CloseEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openPool(res, parts);
    const read = { slices: 5, sliceMs: parts.sliceMs };
    const tasks = [pool.submit(1, read), pool.submit(2, read)];
    const started = Date.now();
    const exitCodes = await pool.close();
    const closedAfterMs = Date.now() - started;
    const settled = await Promise.all(tasks.map(settle));
    let refusedAfterClose = false;
    try {
      pool.submit(3, read);
    } catch (err) {
      refusedAfterClose = err instanceof PoolClosedError;
    }
    return {
      submitted: tasks.length,
      finished: settled.filter((s) => s.outcome && !s.outcome.stopped).length,
      closedAfterMs,
      exitCodes,
      liveThreadsAfter: pool.snapshot().liveThreads,
      refusedAfterClose,
    };
  });
}
