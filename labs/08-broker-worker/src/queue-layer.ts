// The BullMQ layer every lab from 08 on builds on. BullMQ's Queue, Worker and
// QueueEvents must agree on three things or they silently talk past each other: the
// Redis connection, the key prefix and the queue name. This file is the one place
// that constructs them, typed end to end (a bare `Queue` is `Queue<any>` in BullMQ 6).
//
//   address        where a family of jobs lives: { prefix, queueName }
//   openQueue      the producer side (fails fast when Redis is down)
//   openQueueEvents the completion stream, subscribed before anything is added
//   enqueue        add one job; the BullMQ job id is the caller's choice (see below)
//   startWorker    one processor that dispatches on the job name; unknown names are refused
//   waitForFinalState  poll a job until it is completed or failed (events are lost when a worker is SIGKILLed)
//   waitForResult  wait for one job's outcome through QueueEvents, bounded (at most MAX_TIMER_MS)
import {
  Queue,
  QueueEvents,
  UnrecoverableError,
  Worker,
  type ConnectionOptions,
  type Job,
  type JobsOptions,
  type JobState,
  type WorkerOptions,
} from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { errorMessage, sleep } from '@tasks-lab/lab-kit';
import { brokerConnection } from './broker.ts';

/** Where a family of jobs lives. Queue, Worker and QueueEvents must use the same one. */
export interface QueueAddress {
  /** The Redis key prefix, one per lab (`tasks-lab08`), so parallel labs never share keys. */
  prefix: string;
  /** No ':' in it: BullMQ uses ':' to build its keys. */
  queueName: string;
}

/**
 * The lab's connection options (from @tasks-lab/infra, password included: never print
 * them), typed for BullMQ. BullMQ declares its own copy of ioredis's option type, and the
 * two disagree only on `retryStrategy`'s null return, so this one cast is safe.
 */
export function queueConnection(options: RedisOptions = brokerConnection()): ConnectionOptions {
  return options as ConnectionOptions;
}

export interface OpenQueueOptions {
  /** @defaultValue brokerConnection() */
  connection?: RedisOptions;
  /**
   * Producers fail fast: with Redis down, `add` rejects at once instead of queueing the
   * command in memory for ever (ioredis's offline queue). @defaultValue true
   */
  failFast?: boolean;
}

/** The producer's queue, connected (waits until Redis answered, so fail-fast adds work at once). */
export async function openQueue<Data, Result, Name extends string = string>(
  address: QueueAddress,
  options: OpenQueueOptions = {},
): Promise<Queue<Data, Result, Name>> {
  const connection = { ...(options.connection ?? brokerConnection()) };
  if (options.failFast ?? true) connection.enableOfflineQueue = false;
  const queue = new Queue<Data, Result, Name>(address.queueName, {
    connection: queueConnection(connection),
    prefix: address.prefix,
  });
  // An error event with no listener would crash the process; the failed call reports it anyway.
  queue.on('error', () => {});
  try {
    await queue.waitUntilReady();
    return queue;
  } catch (err) {
    await queue.close().catch(() => {});
    throw err;
  }
}

/**
 * The queue's event stream, subscribed and ready. Open it BEFORE adding the job you
 * want to hear about: a fast worker can finish a job before a late subscriber listens.
 */
export async function openQueueEvents<Result>(
  address: QueueAddress,
  options: { connection?: RedisOptions } = {},
): Promise<QueueEvents<Result>> {
  const events = new QueueEvents<Result>(address.queueName, {
    connection: queueConnection(options.connection ?? brokerConnection()),
    prefix: address.prefix,
  });
  events.on('error', () => {});
  try {
    await events.waitUntilReady();
    return events;
  } catch (err) {
    await events.close().catch(() => {});
    throw err;
  }
}

export interface EnqueueOptions<Data> {
  /**
   * The BullMQ job id. BullMQ silently IGNORES an add whose id already exists, in any
   * state, completed jobs included (until they are removed), and returns the existing
   * job. Lab 08 uses the business job id (so a repeated submit is absorbed); from lab 12
   * on one business job is woken by several outbox events, so the id is the event's.
   * Must not contain ':' and must not be a plain integer.
   */
  jobId: string;
  /** Checks the data before it reaches Redis (the message contract); throws to refuse it. */
  validate?: (data: unknown) => Data;
  /** attempts, backoff, removeOnComplete, ... */
  jobOptions?: Omit<JobsOptions, 'jobId'>;
}

export async function enqueue<Data, Result, Name extends string>(
  queue: Queue<Data, Result, Name>,
  name: Name,
  data: Data,
  options: EnqueueOptions<Data>,
): Promise<Job<Data, Result, Name>> {
  if (options.jobId.includes(':') || /^\d+$/.test(options.jobId)) {
    throw new TypeError(
      `BullMQ job id ${JSON.stringify(options.jobId.slice(0, 80))} must not contain ':' or be a plain integer`,
    );
  }
  const checked = options.validate ? options.validate(data) : data;
  return (await queue.add(name as Parameters<typeof queue.add>[0], checked as Parameters<typeof queue.add>[1], {
    ...options.jobOptions,
    jobId: options.jobId,
  })) as Job<Data, Result, Name>;
}

/**
 * One job name's handler. It gets the AbortSignal BullMQ passes (cancelJob / cancelAllJobs),
 * and the worker's lock token for this job: a handler that puts its job back for later
 * (`job.moveToDelayed(timestamp, token)`, then BullMQ's DelayedError) needs it (lesson 15).
 */
export type JobHandler<Data, Result, Name extends string = string> = (
  job: Job<Data, Result, Name>,
  signal?: AbortSignal,
  token?: string,
) => Promise<Result>;

/** Job name -> handler: the worker's "registered tasks" (BullMQ has no @app.task registry). */
export type JobHandlers<Data, Result, Name extends string> = Record<Name, JobHandler<Data, Result, Name>>;

/**
 * A job name this worker does not handle. Unrecoverable: running it again on the same
 * code would fail the same way, so BullMQ must not retry it.
 */
export class UnknownJobNameError extends UnrecoverableError {
  readonly code = 'unknown-job-name';
  constructor(
    readonly jobName: string,
    readonly registered: readonly string[],
  ) {
    super(`no processor registered for job name "${jobName}"; this worker handles: ${registered.join(', ')}`);
    this.name = 'UnknownJobNameError';
  }
}

/** The single processor BullMQ calls for every job: look the name up, or refuse it. */
export function createProcessor<Data, Result, Name extends string>(
  handlers: JobHandlers<Data, Result, Name>,
): (job: Job<Data, Result, Name>, token?: string, signal?: AbortSignal) => Promise<Result> {
  return async (job, token, signal) => {
    const handler = Object.hasOwn(handlers, job.name) ? handlers[job.name] : undefined;
    if (!handler) throw new UnknownJobNameError(job.name, Object.keys(handlers));
    return handler(job, signal, token);
  };
}

export interface WorkerSettings {
  /** How many jobs this process runs at once. */
  concurrency: number;
  /** How long a running job's lock lasts before it must be renewed (BullMQ: 30000). */
  lockDurationMs: number;
  /** How often this worker looks for jobs whose lock lapsed (BullMQ: 30000). */
  stalledIntervalMs: number;
  /** Stall re-runs allowed before the job fails (BullMQ: 1). */
  maxStalledCount: number;
}

export interface StartWorkerOptions extends WorkerSettings {
  /** @defaultValue brokerConnection() */
  connection?: RedisOptions;
  /** BullMQ's `settings` (a custom backoffStrategy, lesson 10). */
  settings?: WorkerOptions['settings'];
  /** Where connection trouble is reported (BullMQ keeps reconnecting; it never throws it). @defaultValue console.error */
  onError?: (err: Error) => void;
}

/** A worker on `address` running `handlers`, with every timing spelled out by the caller. */
export function startWorker<Data, Result, Name extends string>(
  address: QueueAddress,
  handlers: JobHandlers<Data, Result, Name>,
  options: StartWorkerOptions,
): Worker<Data, Result, Name> {
  const worker = new Worker<Data, Result, Name>(address.queueName, createProcessor(handlers), {
    connection: queueConnection(options.connection ?? brokerConnection()),
    prefix: address.prefix,
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs,
    stalledInterval: options.stalledIntervalMs,
    maxStalledCount: options.maxStalledCount,
    ...(options.settings ? { settings: options.settings } : {}),
  });
  const onError = options.onError ?? ((err: Error) => console.error(`worker ${process.pid} error: ${err.message}`));
  worker.on('error', onError);
  return worker;
}

export type FinalState = 'completed' | 'failed';

/**
 * Polls a job until it is in one of `states` (completed or failed by default) and
 * returns the state and the job read AFTER it. Polling, not events: a SIGKILLed worker
 * sends no events. State first, then the job: read the other way round, a job that
 * completes between the two reads comes back "completed" with the earlier read's
 * (empty) return value. An aborted `signal` ends the wait at once (a check's time
 * limit); a Redis error is retried until `timeoutMs`, then reported.
 */
export async function waitForFinalState<Data, Result, Name extends string>(
  queue: Queue<Data, Result, Name>,
  jobId: string,
  options: { states?: readonly JobState[]; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<{ state: JobState; job: Job<Data, Result, Name> }> {
  const states: readonly string[] = options.states ?? ['completed', 'failed'];
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let last = 'not read yet';
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const state = await queue.getJobState(jobId);
      last = `it is ${state}`;
      if (states.includes(state)) {
        const job = (await queue.getJob(jobId)) as Job<Data, Result, Name> | undefined;
        if (job) return { state: state as JobState, job };
      }
    } catch (err) {
      options.signal?.throwIfAborted();
      last = `last error: ${errorMessage(err)}`;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for job ${jobId} to reach ${states.join(' or ')} (${last})`,
      );
    await sleep(100, options.signal);
  }
}

/** The wait ran out; the job itself is untouched and may still finish later. */
export class ResultTimeoutError extends Error {
  readonly code = 'result-timeout';
  constructor(
    readonly jobId: string,
    readonly waitedMs: number,
    readonly state: string,
  ) {
    super(`no result within ${Math.round(waitedMs / 100) / 10} s; the job is still ${state} (id ${jobId})`);
    this.name = 'ResultTimeoutError';
  }
}

/** The longest delay a Node timer keeps (2^31-1 ms, about 24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits for the job's final outcome through QueueEvents, for at most `ttlMs`: its
 * return value, or the job's error. A timeout is not a failure of the job: it
 * reports the job's current state instead. For command-line scripts and checks only;
 * an HTTP handler answers 202 and never blocks on a worker.
 *
 * BullMQ's waitUntilFinished first asks Redis whether the job already finished, then
 * listens for its completed/failed event; `ttlMs` goes to a plain setTimeout, so a
 * value past MAX_TIMER_MS would end the wait at once and claim it waited. It is
 * refused instead (RangeError), as is a zero, negative or fractional wait.
 */
export async function waitForResult<Data, Result, Name extends string>(
  job: Job<Data, Result, Name>,
  events: QueueEvents<Result>,
  ttlMs: number,
): Promise<Result> {
  if (!Number.isInteger(ttlMs) || ttlMs < 1 || ttlMs > MAX_TIMER_MS) {
    throw new RangeError(`the wait must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${ttlMs}`);
  }
  try {
    return await job.waitUntilFinished(events, ttlMs);
  } catch (err) {
    if (!/timed out before finishing/.test(errorMessage(err))) throw err;
    throw new ResultTimeoutError(job.id ?? '?', ttlMs, await job.getState());
  }
}
