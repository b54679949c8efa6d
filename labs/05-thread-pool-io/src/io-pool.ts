// A small thread pool for blocking reads, built on worker_threads directly so every
// moving part is visible: a fixed number of threads, a bounded pending queue, and a
// handle per task that behaves like Python's Future (cancel() only works before the
// task starts). In production you would reach for piscina, which does the same with
// more care; here the point is to watch the mechanics.
//
// Each task is an export job in a SyncJobStore (see sync-job-store.ts for why this
// store is synchronous).
import type { Worker } from 'node:worker_threads';
import { CodedError } from '@tasks-lab/lab-kit';
// Lesson 04's helper: starts a worker thread on a .ts entry point (registers tsx inside it).
import { startTsThread } from '@tasks-lab/04-worker-threads';
import { createTaskCells, SLICES_DONE_CELL, STOP_CELL, type ReadOutcome, type ReadPlan } from './blocking-read.ts';
import { BLOCKING_READ_OPTIONS, IO_POOL_OPTIONS, type IoPoolSettings } from './options.ts';
import { createReadGauge, readGauge } from './read-gauge.ts';
import { SyncJobStore } from './sync-job-store.ts';
import type { FromWorker, ToWorker, WorkerSetup } from './worker-protocol.ts';

/** Like a Future's state. `done` covers a read that returned, stopped early or not. */
export type TaskState = 'pending' | 'running' | 'done' | 'cancelled' | 'failed';

export interface TaskHandle {
  /** The export job's id in the pool's store. */
  readonly id: string;
  readonly productId: number;
  readonly state: TaskState;
  /** Settles when the task ends: the read's outcome, or an error if it was cancelled or failed. */
  readonly result: Promise<ReadOutcome>;
  /** Slices finished so far, read live from the memory the thread writes. */
  readonly slicesDone: number;
  /** Cancels a pending task (true). A running or finished task cannot be cancelled (false). */
  cancel(): boolean;
  /** Sets the task's stop flag: a running read returns at its next slice; a pending one is cancelled. */
  requestStop(): void;
}

export interface SubmitOptions {
  slices?: number;
  sliceMs?: number;
  tempFile?: string;
  finalFile?: string;
  /** Aborting the signal requests a stop, the same path as requestStop(). */
  signal?: AbortSignal;
}

/** `threads` (2) and `maxPending` (4): see options.ts. */
export interface PoolOptions extends Partial<IoPoolSettings> {
  /** Where each task's export job lives. @defaultValue a new SyncJobStore */
  store?: SyncJobStore;
  /** The worker entry point; the lesson's tests pass a broken one. @defaultValue ./io-worker.ts */
  workerUrl?: URL;
}

export class TaskCancelledError extends CodedError {
  constructor(readonly taskId: string) {
    super('task-cancelled', `Task ${taskId} was cancelled before it started`);
  }
}

/** The read threw, or its thread ended (terminated, crashed) before the read returned. */
export class TaskFailedError extends CodedError {
  constructor(
    readonly taskId: string,
    reason: string,
  ) {
    super('task-failed', reason);
  }
}

export class PoolFullError extends CodedError {
  constructor(readonly maxPending: number) {
    super('pool-full', `The pool already has ${maxPending} pending tasks; submit again when one has started`);
  }
}

export class PoolClosedError extends CodedError {
  constructor() {
    super('pool-closed', 'The pool is closed and takes no more tasks');
  }
}

export interface PoolSnapshot {
  pending: number;
  running: number;
  /** Threads that are alive (a pool keeps this at its size). */
  liveThreads: number;
  /** Thread ids of the live threads. */
  threadIds: number[];
}

/** One task: its handle state, its shared cells and how to settle its result. */
class PoolTask implements TaskHandle {
  state: TaskState = 'pending';
  readonly result: Promise<ReadOutcome>;
  readonly cells = createTaskCells();
  resolve!: (outcome: ReadOutcome) => void;
  reject!: (error: Error) => void;

  constructor(
    readonly id: string,
    readonly plan: ReadPlan,
    private readonly pool: BlockingIoPool,
  ) {
    this.result = new Promise<ReadOutcome>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // A caller may never look at a cancelled task's result; that must not crash the process.
    this.result.catch(() => undefined);
  }

  get productId(): number {
    return this.plan.productId;
  }

  get slicesDone(): number {
    return Atomics.load(this.cells, SLICES_DONE_CELL);
  }

  cancel(): boolean {
    return this.pool.cancel(this);
  }

  requestStop(): void {
    Atomics.store(this.cells, STOP_CELL, 1);
    if (this.state === 'pending') this.cancel();
  }
}

export interface ThreadSlot {
  worker: Worker;
  /** Kept here because worker.threadId reads -1 once the thread has exited. */
  threadId: number;
  /** True once `worker` has exited, until the slot gets a fresh thread. */
  exited: boolean;
  /** Resolves when `worker` has loaded its code (its first message); rejects if it dies first. */
  ready: Promise<void>;
  isReady: boolean;
  markReady: () => void;
  markBroken: (error: Error) => void;
  /** The last uncaught error the thread reported, for the failure message. */
  lastError?: string;
  task?: PoolTask;
  /** Set when the pool itself ended this thread, so the exit is not a surprise. */
  ending?: 'terminated' | 'closed';
}

export class BlockingIoPool {
  readonly threads: number;
  readonly maxPending: number;
  readonly store: SyncJobStore;
  /** Ids of the tasks a thread actually started, in order: a cancelled task never appears. */
  readonly startedTaskIds: string[] = [];
  /** The most tasks the pool ever had pending / running at once (its own bookkeeping). */
  peakPending = 0;
  peakRunning = 0;

  readonly #workerUrl: URL;
  readonly #gauge = createReadGauge();
  readonly #slots: ThreadSlot[] = [];
  readonly #pending: PoolTask[] = [];
  readonly #tasks = new Map<string, PoolTask>();
  #roomWaiters: Array<() => void> = [];
  #closed = false;
  #closing: Promise<number[]> | undefined;

  constructor(options: PoolOptions = {}) {
    // Values set in code are checked like environment values: a pool of 0 threads is refused here.
    const settings = IO_POOL_OPTIONS.read({ env: {}, overrides: options });
    this.threads = settings.threads;
    this.maxPending = settings.maxPending;
    this.store = options.store ?? new SyncJobStore();
    this.#workerUrl = options.workerUrl ?? new URL('./io-worker.ts', import.meta.url);
    for (let i = 0; i < this.threads; i += 1) this.#slots.push(this.#startThread());
  }

  /** Queues one blocking read as a new export job. Throws PoolFullError instead of queueing without limit. */
  submit(productId: number, options: SubmitOptions = {}): TaskHandle {
    if (this.#closed) throw new PoolClosedError();
    if (this.#pending.length >= this.maxPending) throw new PoolFullError(this.maxPending);
    options.signal?.throwIfAborted();
    const plan = this.#planFor(productId, options); // refuses a bad plan before a job exists
    const job = this.store.create([productId]);
    const task = new PoolTask(job.id, plan, this);
    this.#tasks.set(task.id, task);
    this.#watchSignal(task, options.signal);
    this.#pending.push(task);
    this.peakPending = Math.max(this.peakPending, this.#pending.length);
    this.#dispatch();
    return task;
  }

  /** Resolves once submit() would accept a task: for callers that prefer waiting to PoolFullError. */
  waitForRoom(): Promise<void> {
    if (this.#pending.length < this.maxPending) return Promise.resolve();
    return new Promise((resolve) => this.#roomWaiters.push(resolve));
  }

  /** Python's Future.cancel(): only a task that has not started can be cancelled. */
  cancel(task: TaskHandle): boolean {
    const own = this.#own(task);
    if (own.state === 'cancelled') return true;
    if (own.state !== 'pending') return false;
    this.#pending.splice(this.#pending.indexOf(own), 1);
    own.state = 'cancelled';
    this.store.transition(own.id, 'cancelled');
    own.reject(new TaskCancelledError(own.id));
    this.#wakeRoomWaiters();
    return true;
  }

  /**
   * What Python cannot do: end the thread running `task` right now (worker.terminate()).
   * The task fails, the pool starts a fresh thread in its slot. Nothing the read already
   * did is undone. Resolves false when the task is not running.
   */
  async terminate(task: TaskHandle): Promise<boolean> {
    const slot = this.#slots.find((s) => s.task === this.#own(task));
    if (!slot) return false;
    await this.#terminateThread(slot);
    return true;
  }

  /**
   * Resolves when every thread has loaded its code. Starting a thread takes a few hundred
   * ms here (tsx compiles the worker); waiting first makes the timings that follow mean
   * "time spent reading", as with a Python pool whose threads already exist.
   */
  async ready(): Promise<void> {
    await Promise.all(this.#slots.map((slot) => slot.ready));
  }

  snapshot(): PoolSnapshot {
    return {
      pending: this.#pending.length,
      running: this.#slots.filter((s) => s.task).length,
      liveThreads: this.#slots.filter((s) => !s.exited).length,
      threadIds: this.#slots.filter((s) => !s.exited).map((s) => s.threadId),
    };
  }

  /** The threads' own count of reads in progress, and the most there ever were at once. */
  readGauge(): { inRead: number; peakInRead: number } {
    return readGauge(this.#gauge);
  }

  /**
   * Like leaving Python's `with ThreadPoolExecutor()`: no new tasks, pending and running
   * tasks finish (nothing is killed), then every thread exits. Resolves with the exit codes.
   */
  close(): Promise<number[]> {
    this.#closed = true;
    this.#closing ??= this.#closeWhenIdle();
    return this.#closing;
  }

  /**
   * Ends the pool now, without waiting: pending tasks are cancelled and every thread is
   * terminated, failing the reads it was running (nothing those reads did is undone).
   * For a caller that cannot wait for close(): a check past its time limit, a process
   * that must exit. Resolves with the exit codes of the threads it ended.
   */
  async destroy(): Promise<number[]> {
    this.#closed = true;
    for (const task of [...this.#pending]) this.cancel(task);
    const alive = this.#slots.filter((slot) => !slot.exited);
    return Promise.all(alive.map((slot) => this.#terminateThread(slot)));
  }

  async #closeWhenIdle(): Promise<number[]> {
    const unfinished = [...this.#tasks.values()].map((task) => task.result.catch(() => undefined));
    await Promise.all(unfinished);
    return Promise.all(this.#slots.filter((slot) => !slot.exited).map((slot) => this.#closeThread(slot)));
  }

  /** Puts a fresh thread into a slot whose thread exited. Protected so a test can break it. */
  protected replaceThread(slot: ThreadSlot): void {
    this.#attachThread(slot);
    this.#dispatch();
  }

  #startThread(): ThreadSlot {
    const slot = { exited: false } as ThreadSlot;
    this.#attachThread(slot);
    return slot;
  }

  #attachThread(slot: ThreadSlot): void {
    const setup: WorkerSetup = { gauge: this.#gauge.buffer as SharedArrayBuffer };
    const worker = startTsThread(this.#workerUrl, { workerData: setup });
    slot.worker = worker;
    slot.threadId = worker.threadId;
    slot.exited = false;
    slot.isReady = false;
    slot.lastError = undefined;
    slot.ready = new Promise((resolve, reject) => {
      slot.markReady = resolve;
      slot.markBroken = reject;
    });
    slot.ready.catch(() => undefined);
    slot.ending = undefined;
    worker.on('message', (message: FromWorker) => this.#onMessage(slot, message));
    // An uncaught error in the thread is followed by 'exit'; the exit handler deals with both.
    worker.on('error', (err) => (slot.lastError = err.message));
    worker.on('exit', (code) => this.#onExit(slot, worker, code));
  }

  #planFor(productId: number, options: SubmitOptions): ReadPlan {
    // The course's read unless told otherwise; a zero or negative length is refused here.
    const { slices, sliceMs } = BLOCKING_READ_OPTIONS.read({
      env: {},
      overrides: { slices: options.slices, sliceMs: options.sliceMs },
    });
    return { productId, slices, sliceMs, tempFile: options.tempFile, finalFile: options.finalFile };
  }

  #watchSignal(task: PoolTask, signal: AbortSignal | undefined): void {
    if (!signal) return;
    const onAbort = () => task.requestStop();
    signal.addEventListener('abort', onAbort, { once: true });
    const forget = () => signal.removeEventListener('abort', onAbort);
    task.result.then(forget, forget);
  }

  /** Hands pending tasks to idle threads, oldest first. */
  #dispatch(): void {
    for (const slot of this.#slots) {
      if (slot.task || slot.ending || slot.exited || this.#pending.length === 0) continue;
      const task = this.#pending.shift()!;
      slot.task = task;
      // Running from the moment a thread owns it: from here on cancel() answers false.
      task.state = 'running';
      this.store.transition(task.id, 'running');
      const message: ToWorker = {
        type: 'read',
        taskId: task.id,
        plan: task.plan,
        cells: task.cells.buffer as SharedArrayBuffer,
      };
      slot.worker.postMessage(message);
      this.peakRunning = Math.max(this.peakRunning, this.snapshot().running);
      this.#wakeRoomWaiters();
    }
  }

  #onMessage(slot: ThreadSlot, message: FromWorker): void {
    if (message.type === 'ready') {
      slot.isReady = true;
      slot.markReady();
      return;
    }
    const task = this.#tasks.get(message.taskId);
    if (!task) return;
    if (message.type === 'started') {
      this.startedTaskIds.push(task.id);
      return;
    }
    slot.task = undefined;
    if (message.type === 'finished') {
      this.#finish(task, message.outcome);
    } else {
      this.#fail(task, message.error);
    }
    this.#dispatch();
  }

  #finish(task: PoolTask, outcome: ReadOutcome): void {
    task.state = 'done';
    // The read returned either way; the export job only succeeded if it read everything.
    if (outcome.stopped) this.store.transition(task.id, 'cancelled');
    else this.store.transition(task.id, 'succeeded', { result: { rows: outcome.slicesDone } });
    this.#tasks.delete(task.id);
    task.resolve(outcome);
  }

  #fail(task: PoolTask, reason: string): void {
    task.state = 'failed';
    this.store.transition(task.id, 'failed', { error: reason });
    this.#tasks.delete(task.id);
    task.reject(new TaskFailedError(task.id, reason));
  }

  #onExit(slot: ThreadSlot, worker: Worker, code: number): void {
    if (slot.worker !== worker) return;
    slot.exited = true;
    if (slot.ending === 'closed') return;
    const task = slot.task;
    slot.task = undefined;
    const why = slot.ending === 'terminated' ? 'terminated by the pool' : `exited with code ${code}`;
    const detail = slot.lastError ? ` (${slot.lastError})` : '';
    if (task) this.#fail(task, `thread ${slot.threadId} ${why} during the read${detail}`);
    if (!slot.isReady) {
      // A thread that dies while loading would die again: report it instead of restarting forever.
      slot.markBroken(new Error(`thread ${slot.threadId} ${why} before it was ready${detail}`));
      return;
    }
    // A pool that is still open keeps its size: the slot gets a fresh thread.
    if (!this.#closed) this.replaceThread(slot);
  }

  /** worker.terminate(): the thread ends wherever it is; #onExit fails its task. */
  async #terminateThread(slot: ThreadSlot): Promise<number> {
    slot.ending = 'terminated';
    const worker = slot.worker;
    const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
    await worker.terminate();
    return exited;
  }

  async #closeThread(slot: ThreadSlot): Promise<number> {
    slot.ending = 'closed';
    const worker = slot.worker;
    const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
    worker.postMessage({ type: 'close' } satisfies ToWorker);
    return exited;
  }

  #wakeRoomWaiters(): void {
    while (this.#roomWaiters.length > 0 && this.#pending.length < this.maxPending) {
      this.#roomWaiters.shift()!();
    }
  }

  #own(task: TaskHandle): PoolTask {
    const own = task instanceof PoolTask ? task : undefined;
    if (!own) throw new Error(`Task ${task.id} does not belong to this pool`);
    return own;
  }
}
