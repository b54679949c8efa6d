// Lesson 05's learning checks and fault drill. Every check starts a real pool of worker
// threads, runs real blocking reads (Atomics.wait slices) and reads what the threads
// wrote into shared memory. buildChecks(deps) lets the can-fail tests swap in broken parts.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { outcome, sleep, waitFor, type Check, type CheckOutcome } from '@tasks-lab/lab-kit';
import { DEFAULT_SLICE_MS, DEFAULT_SLICES, type ReadOutcome } from '../src/blocking-read.ts';
import { BlockingIoPool, PoolClosedError, PoolFullError, TaskCancelledError, type PoolOptions, type TaskHandle } from '../src/io-pool.ts';
import { exportAll } from '../src/batch-export.ts';
import { DEFAULT_WAIT_TIMEOUT_MS, readWithDeadline, waitWithTimeout } from '../src/waiting.ts';

export interface CheckDeps {
  /** Builds the pool under test; the can-fail tests pass broken pools. */
  createPool?: (options: PoolOptions) => BlockingIoPool;
  /** The caller's wait with a timeout under test. */
  waitWithTimeout?: typeof waitWithTimeout;
  /** The async stop path under test. */
  readWithDeadline?: typeof readWithDeadline;
  /** The long read: the course's 20 slices of 100 ms. */
  slices?: number;
  sliceMs?: number;
  /** How long a caller waits before giving up: the course's 0.2 s. */
  waitTimeoutMs?: number;
}

/** The lesson's pool limits, which the checks hold the pool to. */
const THREADS = 2;
const MAX_PENDING = 4;

interface Settings {
  createPool: (options: PoolOptions) => BlockingIoPool;
  waitWithTimeout: typeof waitWithTimeout;
  readWithDeadline: typeof readWithDeadline;
  slices: number;
  sliceMs: number;
  waitTimeoutMs: number;
}

/**
 * Runs `body` with a ready pool, then stops whatever is still running and closes the pool,
 * so a failing check does not leave threads behind.
 */
async function withPool(settings: Settings, body: (pool: BlockingIoPool, track: (t: TaskHandle) => TaskHandle) => Promise<CheckOutcome>, options: PoolOptions = {}): Promise<CheckOutcome> {
  const pool = settings.createPool({ threads: THREADS, maxPending: MAX_PENDING, ...options });
  const tasks: TaskHandle[] = [];
  try {
    await pool.ready();
    return await body(pool, (task) => (tasks.push(task), task));
  } finally {
    for (const task of tasks) task.requestStop();
    await pool.close();
  }
}

const settledState = (task: TaskHandle) =>
  task.result.then(
    (value) => ({ outcome: value as ReadOutcome, error: undefined }),
    (error: unknown) => ({ outcome: undefined, error }),
  );

export function buildChecks(deps: CheckDeps = {}): Check[] {
  const settings: Settings = {
    createPool: deps.createPool ?? ((options) => new BlockingIoPool(options)),
    waitWithTimeout: deps.waitWithTimeout ?? waitWithTimeout,
    readWithDeadline: deps.readWithDeadline ?? readWithDeadline,
    slices: deps.slices ?? DEFAULT_SLICES,
    sliceMs: deps.sliceMs ?? DEFAULT_SLICE_MS,
    waitTimeoutMs: deps.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS,
  };
  const long = { slices: settings.slices, sliceMs: settings.sliceMs };

  return [
    {
      name: 'a wait timeout does not stop the running read',
      run: () =>
        withPool(settings, async (pool, track) => {
          const started = Date.now();
          const task = track(pool.submit(1, long));
          const wait = await settings.waitWithTimeout(task, settings.waitTimeoutMs);
          const gaveUpAt = Date.now() - started;
          const slicesAtTimeout = task.slicesDone;
          const read = await task.result;
          const finishedAt = Date.now() - started;
          const job = pool.store.require(task.id);
          const ok =
            wait.kind === 'timed-out' &&
            !read.stopped &&
            read.slicesDone === settings.slices &&
            finishedAt > gaveUpAt &&
            job.state === 'succeeded';
          return outcome(
            ok,
            `wait ${wait.kind} at ${gaveUpAt} ms with ${slicesAtTimeout}/${settings.slices} slices done; ` +
              `the read went on and finished ${read.slicesDone}/${read.totalSlices} slices at ${finishedAt} ms; job ${job.state}`,
          );
        }),
    },
    {
      name: 'cancel() on a pending task succeeds and it never runs',
      run: () =>
        withPool(settings, async (pool, track) => {
          // One read per thread keeps every thread busy, so the next one has to wait in the queue.
          const busy = Array.from({ length: pool.threads }, (_, i) => track(pool.submit(i + 1, long)));
          const queued = track(pool.submit(99, long));
          const stateBefore = queued.state;
          const cancelled = queued.cancel();
          const stateAfter = queued.state;
          // Free the threads and give a wrongly queued task every chance to start.
          for (const task of busy) task.requestStop();
          await Promise.all(busy.map(settledState));
          await sleep(3 * settings.sliceMs);
          const { error } = await settledState(queued);
          const ranAnyway = pool.startedTaskIds.includes(queued.id) || queued.slicesDone > 0;
          const job = pool.store.require(queued.id);
          const ok =
            stateBefore === 'pending' &&
            cancelled &&
            stateAfter === 'cancelled' &&
            error instanceof TaskCancelledError &&
            !ranAnyway &&
            job.state === 'cancelled';
          return outcome(
            ok,
            `queued task was ${stateBefore}; cancel() returned ${cancelled}; state ${stateAfter}; ` +
              `result ${error instanceof TaskCancelledError ? 'rejected with TaskCancelledError' : 'did not reject as cancelled'}; ` +
              `a thread ${ranAnyway ? 'ran it anyway' : 'never started it'}; job ${job.state}`,
          );
        }),
    },
    {
      name: 'cancel() on a running task returns false and the read goes on',
      run: () =>
        withPool(settings, async (pool, track) => {
          const task = track(pool.submit(1, long));
          await waitFor('the read to finish its first slice', () => task.slicesDone >= 1);
          const cancelled = task.cancel();
          const stateAfter = task.state;
          const slicesAtCancel = task.slicesDone;
          await sleep(3 * settings.sliceMs);
          const slicesLater = task.slicesDone;
          task.requestStop();
          const { outcome: read } = await settledState(task);
          const ok = !cancelled && stateAfter === 'running' && slicesLater > slicesAtCancel && read !== undefined;
          return outcome(
            ok,
            `cancel() returned ${cancelled} at ${slicesAtCancel}/${settings.slices} slices; state ${stateAfter}; ` +
              `${slicesLater - slicesAtCancel} more slices ran after it; ` +
              `the read ${read ? `returned normally (stopped by the flag at ${read.slicesDone})` : 'did not return a result'}`,
          );
        }),
    },
    {
      name: 'a stop flag ends the running read at the next slice',
      run: () =>
        withPool(settings, async (pool, track) => {
          const task = track(pool.submit(1, long));
          await waitFor('the read to start', () => task.slicesDone >= 1);
          const wait = await settings.waitWithTimeout(task, settings.waitTimeoutMs);
          task.requestStop();
          // Read after setting the flag: from here the thread can finish at most the slice it is in.
          const slicesAtStop = task.slicesDone;
          const stoppedAt = Date.now();
          const { outcome: read } = await settledState(task);
          const tookMs = Date.now() - stoppedAt;
          const job = pool.store.require(task.id);
          const ok =
            wait.kind === 'timed-out' &&
            read !== undefined &&
            read.stopped &&
            read.slicesDone < settings.slices &&
            read.slicesDone <= slicesAtStop + 1 &&
            job.state === 'cancelled';
          return outcome(
            ok,
            `stop requested at ${slicesAtStop}/${settings.slices} slices; ` +
              (read
                ? `the read returned ${read.stopped ? 'stopped' : 'NOT stopped'} after ${read.slicesDone}/${read.totalSlices} slices, ${tookMs} ms later`
                : 'the read did not return') +
              `; job ${job.state}`,
          );
        }),
    },
    {
      name: 'at most 4 pending and 2 running, measured over time',
      run: () =>
        withPool(settings, async (pool, track) => {
          // Short reads, but long enough (200 ms) that a third thread would surely overlap the other two.
          const read = { slices: 4, sliceMs: 50 };
          // 1. Fill the pool without waiting: submit() must refuse once the queue is full.
          let accepted = 0;
          let refusal: unknown;
          while (accepted < 50) {
            try {
              track(pool.submit(accepted + 1, read));
              accepted += 1;
            } catch (err) {
              refusal = err;
              break;
            }
          }
          // 2. Export 12 products through the pool, sampling what it holds every 5 ms.
          let samples = 0;
          let maxPending = 0;
          let maxRunning = 0;
          const sampler = setInterval(() => {
            const now = pool.snapshot();
            samples += 1;
            maxPending = Math.max(maxPending, now.pending);
            maxRunning = Math.max(maxRunning, now.running);
          }, 5);
          let outcomes: ReadOutcome[];
          try {
            outcomes = await exportAll(pool, Array.from({ length: 12 }, (_, i) => 100 + i), read);
          } finally {
            clearInterval(sampler);
          }
          const inThreads = pool.readGauge().peakInRead;
          const complete = outcomes.filter((o) => !o.stopped && o.slicesDone === read.slices).length;
          const ok =
            accepted === THREADS + MAX_PENDING &&
            refusal instanceof PoolFullError &&
            maxPending <= MAX_PENDING &&
            pool.peakPending <= MAX_PENDING &&
            maxRunning <= THREADS &&
            inThreads <= THREADS &&
            complete === 12;
          return outcome(
            ok,
            `submit() took ${accepted} then ${refusal instanceof PoolFullError ? 'refused with PoolFullError' : `did not refuse`}; ` +
              `exporting 12: ${samples} samples saw at most ${maxPending} pending and ${maxRunning} running ` +
              `(pool peak pending ${pool.peakPending}); the threads counted at most ${inThreads} reads at once; ${complete}/12 complete`,
          );
        }),
    },
    {
      name: 'an AbortSignal from async code sets the same stop flag',
      run: () =>
        withPool(settings, async (pool) => {
          const started = Date.now();
          const result = await settings.readWithDeadline(pool, 1, { ...long, timeoutMs: settings.waitTimeoutMs });
          if (result.kind !== 'timed-out') {
            return outcome(false, `the caller got a full result after ${Date.now() - started} ms instead of timing out`);
          }
          const { outcome: read } = await settledState(result.task);
          const finishedAt = Date.now() - started;
          const job = pool.store.require(result.task.id);
          const ok = read !== undefined && read.stopped && read.slicesDone < settings.slices && job.state === 'cancelled';
          return outcome(
            ok,
            `the caller gave up at ${result.afterMs} ms; ` +
              (read
                ? `the thread returned ${read.stopped ? 'stopped' : 'NOT stopped'} after ${read.slicesDone}/${read.totalSlices} slices at ${finishedAt} ms`
                : 'the thread did not return') +
              `; job ${job.state}`,
          );
        }),
    },
    {
      name: 'fault drill: terminate() ends a thread mid-write, leaves the half-written file and counter, and the pool replaces the thread',
      run: async () => {
        const dir = mkdtempSync(join(tmpdir(), 'lab05-'));
        try {
          return await withPool(settings, async (pool, track) => {
            const threadsBefore = pool.snapshot().threadIds;
            const tempFile = join(dir, 'export-7.csv.tmp');
            const finalFile = join(dir, 'export-7.csv');
            const task = track(pool.submit(7, { ...long, tempFile, finalFile }));
            await waitFor('three slices written', () => task.slicesDone >= 3);
            const terminated = await pool.terminate(task);
            const { error } = await settledState(task);
            const counterAtKill = task.slicesDone;
            await sleep(3 * settings.sliceMs);
            const counterLater = task.slicesDone;
            const linesLeft = existsSync(tempFile) ? readFileSync(tempFile, 'utf8').split('\n').filter(Boolean).length : 0;
            const job = pool.store.require(task.id);
            // The replacement must be a new thread that really runs reads.
            await pool.ready();
            const after = pool.snapshot();
            const newThreads = after.threadIds.filter((id) => !threadsBefore.includes(id));
            const followUp = await settledState(track(pool.submit(8, { slices: 2, sliceMs: 10 })));
            const ok =
              terminated &&
              task.state === 'failed' &&
              error instanceof Error &&
              job.state === 'failed' &&
              linesLeft > 0 &&
              linesLeft < settings.slices &&
              counterAtKill > 0 &&
              counterLater === counterAtKill &&
              !existsSync(finalFile) &&
              after.liveThreads === THREADS &&
              newThreads.length === 1 &&
              followUp.outcome?.stopped === false;
            return outcome(
              ok,
              `terminate() ${terminated ? 'ended' : 'did not end'} the thread; task ${task.state}, job ${job.state}; ` +
                `temp file left with ${linesLeft}/${settings.slices} lines, final file ${existsSync(finalFile) ? 'exists' : 'absent'}; ` +
                `shared counter ${counterAtKill} then ${counterLater} (nothing rolled it back); ` +
                `${after.liveThreads}/${THREADS} threads alive, ${newThreads.length} new; ` +
                `next read ${followUp.outcome ? 'completed' : 'failed'}`,
            );
          });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    },
    {
      name: 'close() lets running reads finish, then every thread exits',
      run: async () => {
        const pool = settings.createPool({ threads: THREADS, maxPending: MAX_PENDING });
        await pool.ready();
        const read = { slices: 5, sliceMs: settings.sliceMs };
        const tasks = [pool.submit(1, read), pool.submit(2, read)];
        const started = Date.now();
        const exitCodes = await pool.close();
        const closedAfter = Date.now() - started;
        const outcomes = await Promise.all(tasks.map(settledState));
        const finished = outcomes.filter((o) => o.outcome && !o.outcome.stopped).length;
        let refusedAfterClose = false;
        try {
          pool.submit(3, read);
        } catch (err) {
          refusedAfterClose = err instanceof PoolClosedError;
        }
        const left = pool.snapshot().liveThreads;
        const ok = finished === 2 && exitCodes.length === THREADS && exitCodes.every((c) => c === 0) && left === 0 && refusedAfterClose;
        return outcome(
          ok,
          `close() returned after ${closedAfter} ms with ${finished}/2 reads finished; ` +
            `thread exit codes [${exitCodes.join(', ')}], ${left} threads alive; submit after close ${refusedAfterClose ? 'refused' : 'accepted'}`,
        );
      },
    },
  ];
}
