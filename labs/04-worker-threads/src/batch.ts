// The lesson's program, in the main thread: record the batch as a job, start the
// consumer threads, feed product ids through a bounded queue, and wait for every
// thread to exit before reading the shared counters.
//
// The queue is lesson 02's BoundedQueue and lives in the main thread only. Threads
// never touch it: a consumer sends 'ready', the main thread takes the next id out of
// the queue and posts it back. One thread owns the queue, so the queue needs no lock.
// The counters are the one thing every thread writes, so they live in shared memory
// behind a Mutex.
import type { Worker } from 'node:worker_threads';
import { BoundedQueue, JobStore, type ExportJob } from '@tasks-lab/03-background-tasks';
import { createCounterBuffer, readCounters } from './counters.ts';
import type { ConsumerSetup, FromConsumer, ToConsumer, WorkSpan } from './messages.ts';
import { THREADED_BATCH_DEFAULTS, productIds } from './options.ts';
import { feedQueue, type FeedQueue, type PutTiming } from './producer.ts';
import { startTsThread } from './ts-thread.ts';

export const CONSUMER_ENTRY = new URL('./consumer-thread.ts', import.meta.url);

export interface ThreadedBatchOptions {
  ids?: readonly number[];
  threads?: number;
  capacity?: number;
  workMs?: number;
  failingIds?: readonly number[];
  timeoutMs?: number;
  /** The main thread's job store; a new one when omitted. */
  store?: JobStore;
  /** The consumer thread's entry file; tests swap in deliberately broken consumers. */
  consumerEntry?: URL;
  /** The producer; the exercise swaps in its own. */
  feed?: FeedQueue;
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
  putTimings: PutTiming[];
  /** How long the threads took to boot and say their first 'ready' (ms after the batch started). */
  threadsOnlineMs: number;
  spans: WorkSpan[];
  elapsedMs: number;
}

export class ThreadedBatchTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the batch did not finish within ${timeoutMs} ms; its threads were terminated (did the producer close the queue?)`);
    this.name = 'ThreadedBatchTimeoutError';
  }
}

export async function runThreadedBatch(options: ThreadedBatchOptions = {}): Promise<ThreadedBatchReport> {
  const d = THREADED_BATCH_DEFAULTS;
  const ids = [...(options.ids ?? productIds(d.itemCount))];
  const capacity = options.capacity ?? d.capacity;
  const timeoutMs = options.timeoutMs ?? d.timeoutMs;
  const store = options.store ?? new JobStore();
  const started = performance.now();

  // The job record stays in the main thread. Threads get ids and shared counters, not the store.
  const job = store.create(ids);
  store.transition(job.id, 'running');

  const setup: ConsumerSetup = {
    counters: createCounterBuffer(),
    failingIds: [...(options.failingIds ?? d.failingIds)],
    workMs: options.workMs ?? d.workMs,
  };
  const queue = new BoundedQueue<number>(capacity);
  const report = { errors: [] as ItemError[], spans: [] as WorkSpan[], threadErrors: [] as string[], handedOut: 0 };

  const workers = Array.from({ length: options.threads ?? d.threads }, () =>
    startTsThread(options.consumerEntry ?? CONSUMER_ENTRY, { workerData: setup }),
  );
  const exits = workers.map(watchExit);
  // Threads take a while to boot. Hand out ids only once all are up, so they really share the work.
  let threadsOnlineMs = Number.NaN;
  const allOnline = Promise.all(workers.map(firstMessage)).then(() => {
    threadsOnlineMs = performance.now() - started;
  });
  for (const worker of workers) serve(worker, queue, allOnline, report);

  const feeding = (options.feed ?? feedQueue)(queue, ids);
  // Unlike a Python thread, a worker thread can be stopped from outside: a batch that
  // times out, or whose producer throws, terminates its threads instead of leaving them behind.
  const stopAll = async (error: string) => {
    await Promise.all(workers.map((worker) => worker.terminate()));
    store.transition(job.id, 'failed', { error });
  };
  let finished;
  try {
    finished = await withinTimeout(Promise.all([feeding, Promise.all(exits)]), timeoutMs);
  } catch (err) {
    await stopAll(err instanceof Error ? err.message : String(err));
    throw err;
  }
  if (!finished) {
    await stopAll(`timed out after ${timeoutMs} ms`);
    throw new ThreadedBatchTimeoutError(timeoutMs);
  }
  const [putTimings, threads] = finished;

  // Every writer has exited, so reading the counters needs no lock.
  const { done, failed } = readCounters(setup.counters);
  const finalJob = recordOutcome(store, job.id, ids.length, done, report.errors);
  return {
    job: finalJob,
    ids,
    done,
    failed,
    ...report,
    threads,
    threadsStillRunning: workers.filter((worker) => worker.threadId !== -1).length,
    capacity,
    peakQueueLength: queue.peakLength,
    putTimings,
    threadsOnlineMs,
    elapsedMs: performance.now() - started,
  };
}

/** Answers each 'ready' with the next id, or 'stop' once the queue is closed and empty. */
function serve(
  worker: Worker,
  queue: BoundedQueue<number>,
  allOnline: Promise<unknown>,
  report: { errors: ItemError[]; spans: WorkSpan[]; threadErrors: string[]; handedOut: number },
): void {
  const post = (message: ToConsumer) => worker.postMessage(message);
  worker.on('message', async (message: FromConsumer) => {
    if (message.type === 'failed') report.errors.push({ id: message.id, message: message.message });
    if (message.type === 'worked') report.spans.push(message.span);
    if (message.type !== 'ready') return;
    await allOnline;
    const id = await queue.get();
    if (id === undefined) return post({ type: 'stop' });
    report.handedOut += 1;
    post({ type: 'job', id });
  });
  worker.on('error', (err) => report.threadErrors.push(err.message));
}

function watchExit(worker: Worker): Promise<ThreadExit> {
  const threadId = worker.threadId; // becomes -1 once the thread is gone
  return new Promise((resolve) => worker.once('exit', (exitCode) => resolve({ threadId, exitCode })));
}

function firstMessage(worker: Worker): Promise<void> {
  return new Promise((resolve) => worker.once('message', () => resolve()));
}

/** Resolves with the value, or with undefined when `ms` passes first. */
async function withinTimeout<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** running -> succeeded when every id was done; running -> failed naming the ids that failed. */
function recordOutcome(store: JobStore, jobId: string, total: number, done: number, errors: ItemError[]): ExportJob {
  if (done === total) return store.transition(jobId, 'succeeded', { result: { rows: done } });
  const failedIds = errors.map((error) => error.id).join(', ') || 'none reported';
  return store.transition(jobId, 'failed', {
    error: `${total - done} of ${total} products not exported (failed ids: ${failedIds})`,
  });
}
