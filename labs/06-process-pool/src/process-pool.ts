// A pool of worker processes for CPU-bound scoring: Node's counterpart of Python's
// ProcessPoolExecutor. Create it once (at start-up), reuse it for every batch, close
// it at shutdown. Each worker is a separate Node process started with fork(), so a
// long CPU loop there never blocks the parent's event loop.
//
// The rules this pool keeps:
// - Rows are copied to the workers as messages. With the default "advanced"
//   serialization (structured clone) a value that cannot be copied, such as a
//   function, fails the batch before anything is sent.
// - A batch is all or nothing: if a worker process dies while a batch is unfinished,
//   the batch fails with WorkerProcessLostError and none of its scores are returned.
// - A dead worker is replaced with a fresh process, so the next batch can run. (Python
//   marks the whole pool broken instead; see the lesson doc for why we differ.)
// - What a worker writes to stderr is kept, not printed: its last line goes into the
//   error that reports the worker's end, so the reason arrives with the failure, once.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { serialize } from 'node:v8';
import { CodedError, errorMessage, FAULTS_ENV, idempotent } from '@tasks-lab/lab-kit';
import { PROCESS_POOL_OPTIONS } from './options.ts';
import type { EchoRequest, FromScoringWorker, ScoreRequest, ToScoringWorker } from './pool-messages.ts';
import { DEFAULT_ROUNDS, DEFAULT_SCORER_URL, type ExportRow, type RowScore } from './scoring.ts';

/** Each worker runs this file in a fresh Node process, with tsx loaded to read TypeScript. */
const WORKER_ENTRY = fileURLToPath(new URL('./scoring-worker.ts', import.meta.url));
const TSX_LOADER = import.meta.resolve('tsx');
/** The course's values (src/options.ts): a pool built without options gets these. */
const COURSE = PROCESS_POOL_OPTIONS.defaults();
/** How much of a worker's stderr the pool keeps (the end of it) for the error that reports its end. */
const KEPT_STDERR_CHARS = 4_000;

export interface ProcessPoolOptions {
  /** How many worker processes. @defaultValue 2 (the course's max_workers, POOL_SIZE) */
  size?: number;
  /** The module the workers import scoreExportRow from. @defaultValue src/scoring.ts */
  scorerUrl?: string;
  /**
   * How messages are copied. "advanced" is structured clone and throws on functions;
   * "json" (Node's default for fork) silently drops them. @defaultValue 'advanced'
   */
  serialization?: 'advanced' | 'json';
  /** A worker that has not said "ready" by then fails start(). @defaultValue 20000 (WORKER_START_TIMEOUT_MS) */
  startTimeoutMs?: number;
  /** At close, SIGTERM, then SIGKILL for a worker still running after this. @defaultValue 5000 (WORKER_STOP_GRACE_MS) */
  stopGraceMs?: number;
  /**
   * LAB_FAULTS for the first worker process start() launches, and for no other: a
   * drill's way to make exactly one worker fail at a named point (see
   * WORKER_FAULT_POINTS). Replacements always start clean, as a restarted process would.
   */
  firstWorkerFaults?: string;
}

export interface ScoreBatchOptions {
  /** @defaultValue DEFAULT_ROUNDS (2000) */
  rounds?: number;
  /** Called after each row is scored, with how many of the batch are done. */
  onProgress?: (done: number, total: number) => void;
}

export interface ScoreBatchOutcome {
  /** One score per row, in the order of the rows given. */
  scores: RowScore[];
  /** The worker processes that scored at least one row of this batch. */
  workerPids: number[];
}

export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export function describeWorkerExit({ code, signal }: WorkerExit): string {
  return signal ?? `code ${code}`;
}

/** ": <the last line the worker wrote to stderr>", or nothing when it wrote nothing. */
function lastWords(stderr: string): string {
  const last = stderr.trim().split('\n').at(-1)?.trim();
  return last ? `: ${last}` : '';
}

/** A worker process ended while a batch was unfinished: the whole batch is lost. */
export class WorkerProcessLostError extends CodedError {
  constructor(
    readonly pid: number,
    readonly exit: WorkerExit,
    stderr = '',
  ) {
    super('worker-lost', `worker process ${pid} exited (${describeWorkerExit(exit)}) during batch${lastWords(stderr)}`);
  }
}

/** A row that cannot be copied to another process (a function, a symbol...). */
export class NotSendableError extends CodedError {
  constructor(index: number, cause: unknown) {
    super('not-sendable', `row ${index} cannot be sent to a worker process: ${errorMessage(cause)}`, { cause });
  }
}

/** A worker process could not start: it exited before it was ready, or took too long. */
export class WorkerStartError extends CodedError {
  constructor(message: string) {
    super('worker-start-failed', message);
  }
}

/** The scorer threw on a row inside a worker process; the batch fails with it. */
export class RowFailedError extends CodedError {
  constructor(index: number, pid: number, reason: string) {
    super('row-failed', `row ${index} failed in worker process ${pid}: ${reason}`);
  }
}

export class ProcessPoolClosedError extends CodedError {
  constructor() {
    super('pool-closed', 'the process pool is closed');
  }
}

/** A replacement worker died before it was ready: it would die again, so the pool stops. */
export class ProcessPoolBrokenError extends CodedError {
  constructor(pid: number, exit: WorkerExit, stderr = '') {
    super(
      'pool-broken',
      `the process pool is broken: worker process ${pid} exited (${describeWorkerExit(exit)}) while starting${lastWords(stderr)}`,
    );
  }
}

/** A batch in flight. Exported so a subclass (or a test) can see what a batch holds. */
export interface PendingScoreBatch {
  /** Replies so far, by row index; holes for rows not done yet. */
  readonly results: unknown[];
  readonly total: number;
  readonly workerPids: Set<number>;
  /** True once resolved or rejected; a batch settles once only. */
  readonly settled: boolean;
  resolve(results: unknown[]): void;
  reject(error: Error): void;
}

interface BatchState extends PendingScoreBatch {
  settled: boolean;
  done: number;
  onProgress?: (done: number, total: number) => void;
}

interface Task {
  batch: BatchState;
  index: number;
  message: ToScoringWorker;
}

interface WorkerSlot {
  child: ChildProcess;
  pid: number;
  isReady: boolean;
  /** Settles when the worker says "ready"; rejects if it exits first. */
  ready: Promise<void>;
  task?: Task;
  /** The end of what the worker wrote to stderr (see workerStderr()). */
  stderr: string;
}

/** A message before the pool numbers it. */
type Outgoing = Omit<ScoreRequest, 'taskId'> | Omit<EchoRequest, 'taskId'>;

export class ProcessPool {
  readonly size: number;
  readonly scorerUrl: string;
  readonly serialization: 'advanced' | 'json';
  readonly startTimeoutMs: number;
  readonly stopGraceMs: number;
  readonly firstWorkerFaults: string;
  /** Milliseconds from the first fork() until every worker said "ready" (set by start()). */
  startupMs = 0;

  #slots: WorkerSlot[] = [];
  #queue: Task[] = [];
  #batches = new Set<BatchState>();
  #nextTaskId = 1;
  #closed = false;
  /** Set when a replacement worker could not start: every later batch fails with it. */
  #broken: Error | undefined;

  constructor(options: ProcessPoolOptions = {}) {
    this.size = options.size ?? COURSE.poolSize;
    this.scorerUrl = options.scorerUrl ?? DEFAULT_SCORER_URL;
    this.serialization = options.serialization ?? 'advanced';
    this.startTimeoutMs = options.startTimeoutMs ?? COURSE.workerStartTimeoutMs;
    this.stopGraceMs = options.stopGraceMs ?? COURSE.workerStopGraceMs;
    this.firstWorkerFaults = options.firstWorkerFaults ?? '';
  }

  /** Starts every worker and waits until all are ready. Call once, before the first batch. */
  async start(): Promise<this> {
    const started = performance.now();
    for (let i = 0; i < this.size; i += 1) this.#slots.push(this.#spawnWorker(i === 0 ? this.firstWorkerFaults : ''));
    try {
      await this.#withTimeout(this.whenReady(), `${this.size} worker processes to start`);
    } catch (err) {
      await this.close();
      throw err;
    }
    this.startupMs = Math.round(performance.now() - started);
    return this;
  }

  /** The pids of the current worker processes. */
  pids(): number[] {
    return this.#slots.map((slot) => slot.pid);
  }

  /** Resolves when every current worker (including a replacement) is ready for work. */
  async whenReady(): Promise<void> {
    await Promise.all(this.#slots.map((slot) => slot.ready));
  }

  /** Scores every row in the worker processes. Resolves with all scores in row order, or rejects. */
  async scoreBatch(rows: readonly ExportRow[], options: ScoreBatchOptions = {}): Promise<ScoreBatchOutcome> {
    const rounds = options.rounds ?? DEFAULT_ROUNDS;
    const messages = rows.map((row): Outgoing => ({ kind: 'score', row, rounds }));
    const { results, workerPids } = await this.#runBatch(messages, options.onProgress);
    return { scores: results as RowScore[], workerPids };
  }

  /** Sends `payload` to a worker and returns what the worker received (and its keys). */
  async echo(payload: unknown): Promise<{ payload: unknown; keys: string[] }> {
    const { results } = await this.#runBatch([{ kind: 'echo', payload }]);
    return results[0] as { payload: unknown; keys: string[] };
  }

  /**
   * Stops every worker (SIGTERM, then SIGKILL after the grace). Unfinished batches fail
   * with ProcessPoolClosedError. Idempotent: a second call waits for the first.
   */
  readonly close = idempotent(async () => {
    this.#closed = true;
    for (const batch of [...this.#batches]) batch.reject(new ProcessPoolClosedError());
    await Promise.all(this.#slots.map((slot) => stopProcess(slot.child, this.stopGraceMs)));
    this.#slots = [];
  });

  /**
   * What happens to a batch that cannot complete: a worker was lost, or a row failed or
   * could not be sent. All or nothing: reject, and keep the scores that did arrive to
   * ourselves. A partial export that looks complete is worse than a failed one that can
   * be run again. (The can-fail test overrides this to prove the drill notices.)
   */
  protected abandonBatch(batch: PendingScoreBatch, error: Error): void {
    batch.reject(error);
  }

  /**
   * A ready worker was lost: start a fresh one in its place, so the next batch has a
   * whole pool again. It starts without faults, whatever the lost one had. (The
   * can-fail test overrides this to prove the recovery check notices a pool that shrinks.)
   */
  protected replaceLostWorker(): void {
    this.#slots.push(this.#spawnWorker(''));
  }

  /**
   * Where a worker's stderr goes. 'pipe': the pool keeps it and reports it with the
   * worker's end, so an expected failure (a missing module, a refused fault rule) does
   * not also print over the parent's output. (A test overrides this with 'inherit', the
   * old way, to show the difference.)
   */
  protected workerStderr(): 'pipe' | 'inherit' {
    return 'pipe';
  }

  async #runBatch(
    messages: Outgoing[],
    onProgress?: BatchState['onProgress'],
  ): Promise<{ results: unknown[]; workerPids: number[] }> {
    if (this.#closed) throw new ProcessPoolClosedError();
    if (this.#broken) throw this.#broken;
    // Check every message up front: sends happen one row at a time as workers free up,
    // so without this a bad row 7 would be found only after rows 0-6 had run.
    if (this.serialization === 'advanced')
      for (const [index, message] of messages.entries()) assertSendable(message, index);
    if (messages.length === 0) return { results: [], workerPids: [] };

    const { batch, outcome } = this.#newBatch(messages.length, onProgress);
    messages.forEach((message, index) => {
      this.#queue.push({ batch, index, message: { ...message, taskId: this.#nextTaskId++ } as ToScoringWorker });
    });
    this.#dispatch();
    const results = await outcome;
    return { results, workerPids: [...batch.workerPids] };
  }

  #newBatch(total: number, onProgress?: BatchState['onProgress']): { batch: BatchState; outcome: Promise<unknown[]> } {
    const batches = this.#batches;
    let resolveWith: (results: unknown[]) => void = () => {};
    let rejectWith: (error: Error) => void = () => {};
    const outcome = new Promise<unknown[]>((resolve, reject) => {
      resolveWith = resolve;
      rejectWith = reject;
    });
    // Settling twice is a no-op: the first outcome of a batch is its only outcome.
    const batch: BatchState = {
      results: new Array<unknown>(total),
      total,
      done: 0,
      workerPids: new Set<number>(),
      settled: false,
      onProgress,
      resolve(results) {
        if (batch.settled) return;
        batch.settled = true;
        batches.delete(batch);
        resolveWith(results);
      },
      reject(error) {
        if (batch.settled) return;
        batch.settled = true;
        batches.delete(batch);
        rejectWith(error);
      },
    };
    batches.add(batch);
    return { batch, outcome };
  }

  /** Hands queued tasks to idle, ready workers: one task per worker at a time. */
  #dispatch(): void {
    for (const slot of this.#slots) {
      while (slot.isReady && !slot.task) {
        const task = this.#takeTask();
        if (!task) return;
        slot.task = task;
        try {
          slot.child.send(task.message);
        } catch (err) {
          // Only reachable with "json" serialization (a BigInt, say); "advanced" was checked up front.
          slot.task = undefined;
          this.abandonBatch(task.batch, new NotSendableError(task.index, err));
        }
      }
    }
  }

  /** The next task whose batch is still open; tasks of failed batches are dropped here. */
  #takeTask(): Task | undefined {
    let task = this.#queue.shift();
    while (task && task.batch.settled) task = this.#queue.shift();
    return task;
  }

  /** `faults` is the worker's LAB_FAULTS; set even when empty, so a worker never inherits the parent's. */
  #spawnWorker(faults: string): WorkerSlot {
    const child = fork(WORKER_ENTRY, [this.scorerUrl], {
      execArgv: ['--import', TSX_LOADER],
      env: { ...process.env, [FAULTS_ENV]: faults },
      serialization: this.serialization,
      stdio: ['ignore', 'inherit', this.workerStderr(), 'ipc'],
    });
    let markReady = () => {};
    let failStart: (error: Error) => void = () => {};
    const slot: WorkerSlot = {
      child,
      pid: child.pid ?? -1,
      isReady: false,
      ready: new Promise<void>((resolve, reject) => {
        markReady = resolve;
        failStart = reject;
      }),
      stderr: '',
    };
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      slot.stderr = (slot.stderr + chunk).slice(-KEPT_STDERR_CHARS);
    });
    slot.ready.catch(() => {}); // the failure is reported by start() or the batch, not as an unhandled rejection
    child.on('message', (message: FromScoringWorker) => {
      if (message.kind === 'ready') {
        slot.isReady = true;
        markReady();
        this.#dispatch();
      } else {
        this.#onReply(slot, message);
      }
    });
    let gone = false;
    const onGone = (exit: WorkerExit) => {
      if (gone) return;
      gone = true;
      failStart(
        new WorkerStartError(
          `worker process ${slot.pid} exited (${describeWorkerExit(exit)}) before it was ready${lastWords(slot.stderr)}`,
        ),
      );
      this.#onWorkerExit(slot, exit);
    };
    // 'close', not 'exit': it comes once the worker's stderr has been read to the end.
    child.once('close', (code, signal) => onGone({ code, signal }));
    // A send to a dying worker also lands here, and its 'exit' follows; only a spawn that
    // failed outright (no pid) never exits, so treat that one as gone now.
    child.on('error', () => {
      if (child.pid === undefined) onGone({ code: null, signal: null });
    });
    return slot;
  }

  #onReply(slot: WorkerSlot, message: Exclude<FromScoringWorker, { kind: 'ready' }>): void {
    const task = slot.task;
    slot.task = undefined;
    if (task && task.message.taskId === message.taskId && !task.batch.settled) {
      const batch = task.batch;
      if (message.kind === 'failed') {
        this.abandonBatch(batch, new RowFailedError(task.index, slot.pid, message.message));
      } else {
        batch.results[task.index] =
          message.kind === 'scored' ? message.result : { payload: message.payload, keys: message.keys };
        batch.workerPids.add(slot.pid);
        batch.done += 1;
        batch.onProgress?.(batch.done, batch.total);
        if (batch.done === batch.total) batch.resolve(batch.results);
      }
    }
    // A late reply for a batch that already failed is dropped: that batch reported nothing.
    this.#dispatch();
  }

  #onWorkerExit(slot: WorkerSlot, exit: WorkerExit): void {
    if (this.#closed) return;
    this.#slots = this.#slots.filter((other) => other !== slot);
    const lost = new WorkerProcessLostError(slot.pid, exit, slot.stderr);
    if (slot.isReady) {
      // Replace first, so by the time a caller sees the failure the pool is already recovering.
      this.replaceLostWorker();
    } else {
      // A worker that dies before it is ready would die again: stop instead of looping.
      this.#broken = new ProcessPoolBrokenError(slot.pid, exit, slot.stderr);
    }
    for (const batch of [...this.#batches]) this.abandonBatch(batch, this.#broken ?? lost);
  }

  async #withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new WorkerStartError(`timed out after ${this.startTimeoutMs} ms waiting for ${what}`)),
        this.startTimeoutMs,
      );
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Structured clone is what "advanced" IPC uses; v8.serialize throws exactly when send() would. */
export function assertSendable(message: unknown, index: number): void {
  try {
    serialize(message);
  } catch (err) {
    throw new NotSendableError(index, err);
  }
}

/** SIGTERM (the worker finishes its row and exits), then SIGKILL if it is still there after the grace. */
function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const late = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(late);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
