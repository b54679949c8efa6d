// The lesson's program, in the main thread: record the batch as a job, start the
// consumer threads, feed product ids through a bounded queue, and wait for every
// thread to exit before reading the shared counters.
//
// The queue is lesson 02's BoundedQueue and lives in the main thread only. Threads
// never touch it: a consumer sends 'ready', the main thread takes the next id out of
// the queue and posts it back. One thread owns the queue, so the queue needs no lock.
// The counters are the one thing every thread writes, so they live in shared memory
// behind a Mutex.
//
// The job record lives in lesson 01's MemoryJobStore, behind the async JobStore
// contract. Only the main thread touches it, once before the threads start and once
// after they have all exited, so no two writes to it can ever interleave.
import type { Worker } from 'node:worker_threads';
import { MemoryJobStore, type ExportJob, type JobStore } from '@tasks-lab/01-state-machine';
import { BoundedQueue } from '@tasks-lab/02-bounded-async';
import { CodedError, errorMessage, withResources } from '@tasks-lab/lab-kit';
import { createCounterBuffer, readCounters } from './counters.ts';
import type { ConsumerSetup, FromConsumer, ToConsumer, WorkSpan } from './messages.ts';
import { COURSE_FAILING_IDS, THREADED_BATCH_OPTIONS, productIds, type ThreadedBatchSettings } from './options.ts';
import { feedQueue, type FeedQueue, type PutTiming } from './producer.ts';
import { startTsThread } from './ts-thread.ts';

export const CONSUMER_ENTRY = new URL('./consumer-thread.ts', import.meta.url);

/** The lesson's numbers (see options.ts) plus the parts a test or the exercise may swap. */
export interface ThreadedBatchOptions extends Partial<ThreadedBatchSettings> {
  /** @defaultValue 1..itemCount */
  ids?: readonly number[];
  /** @defaultValue [7] */
  failingIds?: readonly number[];
  /** The main thread's job store. @defaultValue a new MemoryJobStore */
  store?: JobStore;
  /** The consumer thread's entry file; tests swap in deliberately broken consumers. */
  consumerEntry?: URL;
  /** The producer; the exercise swaps in its own. */
  feed?: FeedQueue;
  /** Aborting it stops the batch the way its timeout does: threads terminated, job failed. */
  signal?: AbortSignal;
}

export interface ThreadExit {
  threadId: number;
  exitCode: number;
}

export interface ItemError {
  id: number;
  message: string;
}

export interface ThreadedBatchReport {
  job: ExportJob;
  ids: number[];
  done: number;
  failed: number;
  /** Failures the consumers reported by message, in arrival order. */
  errors: ItemError[];
  /** How many ids the main thread posted to consumers. */
  handedOut: number;
  threads: ThreadExit[];
  /** Worker objects whose thread is still alive after the batch (should be 0). */
  threadsStillRunning: number;
  /** Errors thrown inside a thread (a bug, not a failed product). */
  threadErrors: string[];
  capacity: number;
  /** The most ids the queue held at one moment. */
  peakQueueLength: number;
  /** Puts that found the queue full and waited for room, counted by the queue itself: the backpressure. */
  blockedPuts: number;
  /** What the producer measured around each put: empty for the lesson's producer, which times nothing. */
  putTimings: PutTiming[];
  /** How long the threads took to boot and say their first 'ready' (ms after the batch started). */
  threadsOnlineMs: number;
  spans: WorkSpan[];
  elapsedMs: number;
}

export class ThreadedBatchTimeoutError extends CodedError {
  constructor(readonly timeoutMs: number) {
    super(
      'batch-timed-out',
      `the batch did not finish within ${timeoutMs} ms; its threads were terminated (did the producer close the queue?)`,
    );
  }
}

/** What the threads report while they work (filled in by `serve`). */
interface Reported {
  errors: ItemError[];
  spans: WorkSpan[];
  threadErrors: string[];
  handedOut: number;
}

export async function runThreadedBatch(options: ThreadedBatchOptions = {}): Promise<ThreadedBatchReport> {
  // Values set in code are checked like environment values (the entry point reads the environment).
  const settings = THREADED_BATCH_OPTIONS.read({ env: {}, overrides: options });
  const ids = [...(options.ids ?? productIds(settings.itemCount))];
  const store = options.store ?? new MemoryJobStore();
  const started = performance.now();

  // The job record stays in the main thread. Threads get ids and shared counters, not the store.
  const job = await store.create(ids);
  await store.transition(job.id, 'running');

  const setup: ConsumerSetup = {
    counters: createCounterBuffer(),
    failingIds: [...(options.failingIds ?? COURSE_FAILING_IDS)],
    workMs: settings.workMs,
  };
  const queue = new BoundedQueue<number>(settings.capacity);
  const reported: Reported = { errors: [], spans: [], threadErrors: [], handedOut: 0 };

  // Every thread belongs to this scope: it is terminated when the batch ends, and at once
  // if `signal` aborts. Unlike a Python thread, a worker thread can be stopped from outside.
  return withResources(options.signal, async (res) => {
    const workers = Array.from({ length: settings.threads }, () =>
      res.add(startTsThread(options.consumerEntry ?? CONSUMER_ENTRY, { workerData: setup }), (w) => w.terminate()),
    );
    const exits = workers.map(watchExit);
    // Threads take a while to boot. Hand out ids only once all are up, so they really share the work.
    let threadsOnlineMs = Number.NaN;
    const allOnline = Promise.all(workers.map(firstMessage)).then(() => {
      threadsOnlineMs = performance.now() - started;
    });
    for (const worker of workers) serve(worker, queue, allOnline, reported);

    const feeding = (options.feed ?? feedQueue)(queue, ids);
    const deadline = AbortSignal.timeout(settings.timeoutMs);
    let putTimings: PutTiming[] | void;
    let threads: ThreadExit[];
    try {
      [putTimings, threads] = await untilAborted(
        Promise.all([feeding, Promise.all(exits)]),
        AbortSignal.any([deadline, res.signal]),
      );
    } catch (err) {
      // A timeout, an abort, or a producer that threw: stop everything and say so in the job.
      queue.close();
      feeding.catch(() => undefined); // its put may now fail with QueueClosedError; nobody waits for it
      await Promise.all(workers.map((worker) => worker.terminate()));
      const timedOut = deadline.aborted && !res.signal.aborted;
      await store.transition(job.id, 'failed', {
        error: timedOut ? `timed out after ${settings.timeoutMs} ms` : errorMessage(err),
      });
      throw timedOut ? new ThreadedBatchTimeoutError(settings.timeoutMs) : err;
    }

    // Every writer has exited, so reading the counters needs no lock.
    const { done, failed } = readCounters(setup.counters);
    const finalJob = await recordOutcome(store, job.id, ids.length, done, reported.errors);
    return {
      job: finalJob,
      ids,
      done,
      failed,
      ...reported,
      threads,
      threadsStillRunning: workers.filter((worker) => worker.threadId !== -1).length,
      capacity: settings.capacity,
      peakQueueLength: queue.peakLength,
      blockedPuts: queue.blockedPuts,
      putTimings: putTimings ?? [],
      threadsOnlineMs,
      elapsedMs: performance.now() - started,
    };
  });
}

/** Answers each 'ready' with the next id, or 'stop' once the queue is closed and empty. */
function serve(worker: Worker, queue: BoundedQueue<number>, allOnline: Promise<unknown>, reported: Reported): void {
  const post = (message: ToConsumer) => worker.postMessage(message);
  worker.on('message', async (message: FromConsumer) => {
    if (message.type === 'failed') reported.errors.push({ id: message.id, message: message.message });
    if (message.type === 'worked') reported.spans.push(message.span);
    if (message.type !== 'ready') return;
    await allOnline;
    const id = await queue.get();
    if (id === undefined) return post({ type: 'stop' });
    reported.handedOut += 1;
    post({ type: 'job', id });
  });
  worker.on('error', (err) => reported.threadErrors.push(err.message));
}

function watchExit(worker: Worker): Promise<ThreadExit> {
  const threadId = worker.threadId; // becomes -1 once the thread is gone
  return new Promise((resolve) => worker.once('exit', (exitCode) => resolve({ threadId, exitCode })));
}

function firstMessage(worker: Worker): Promise<void> {
  return new Promise((resolve) => worker.once('message', () => resolve()));
}

/** Settles like `work`, or rejects with the signal's reason as soon as the signal aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** running -> succeeded when every id was done; running -> failed naming the ids that failed. */
function recordOutcome(
  store: JobStore,
  jobId: string,
  total: number,
  done: number,
  errors: ItemError[],
): Promise<ExportJob> {
  if (done === total) return store.transition(jobId, 'succeeded', { result: { rows: done } });
  const failedIds = errors.map((error) => error.id).join(', ') || 'none reported';
  return store.transition(jobId, 'failed', {
    error: `${total - done} of ${total} products not exported (failed ids: ${failedIds})`,
  });
}
