// A registry of the background tasks this process started itself.
//
// Starting a promise is easy; owning it is not. Once an async function is called
// without `await`, nobody is responsible for it: if it rejects, Node (20+) treats the
// rejection as unhandled and crashes the process; if the process stops, nobody knows
// the work was still running. The registry takes that responsibility:
//   - it keeps a reference to every started task, so shutdown can find them;
//   - it observes every outcome and logs it with the job id, so a failure becomes a
//     failed job and a log line, never an unhandled rejection;
//   - on shutdown it waits a bounded time, then asks the rest to stop (AbortSignal)
//     and waits, again bounded, for their cleanup.
import { errorMessage } from '@tasks-lab/lab-kit';
import { InvalidTransitionError, JobNotFoundError, type JobState, type JobStore } from '@tasks-lab/01-state-machine';
import { BACKGROUND_DEFAULTS } from './options.ts';

/** The work a task runs. It should stop early when `signal` aborts (cancelling is a request). */
export type TaskWork = (signal: AbortSignal) => Promise<unknown>;

export type TaskOutcome = 'completed' | 'failed' | 'cancelled';

export interface TaskFailure {
  jobId: string;
  message: string;
  error: unknown;
}

export interface ShutdownReport {
  /** Tasks that settled on their own within the grace period. */
  finishedInGrace: number;
  /** Tasks that were asked to stop after the grace period and did stop. */
  cancelled: number;
  /** Tasks still running when shutdown gave up: their work is lost with the process. */
  remaining: number;
}

export interface TaskRegistryOptions {
  /** Where outcomes are written down (completed, failed, cancelled); the job id is always in the line. */
  log?: (line: string) => void;
  /** How long shutdown lets running tasks finish on their own. @defaultValue 3000 (the course's grace) */
  graceMs?: number;
  /** After asking tasks to stop, how long shutdown waits for their `finally` blocks. @defaultValue 1000 */
  cleanupMs?: number;
}

interface RunningTask {
  jobId: string;
  controller: AbortController;
  /** The task's promise with its outcome observed and recorded on the job: it never rejects. */
  settled: Promise<TaskOutcome>;
}

export class TaskRegistry {
  readonly #store: JobStore;
  readonly #log: (line: string) => void;
  readonly #graceMs: number;
  readonly #cleanupMs: number;
  /** Strong references to every task that has not settled yet. */
  readonly #running = new Set<RunningTask>();
  readonly #failures: TaskFailure[] = [];
  #shuttingDown = false;

  constructor(store: JobStore, options: TaskRegistryOptions = {}) {
    this.#store = store;
    this.#log = options.log ?? ((line) => console.error(line));
    this.#graceMs = options.graceMs ?? BACKGROUND_DEFAULTS.shutdownGraceMs;
    this.#cleanupMs = options.cleanupMs ?? BACKGROUND_DEFAULTS.cancelCleanupMs;
  }

  /** How many started tasks have not settled yet. */
  get size(): number {
    return this.#running.size;
  }

  /** Every failure observed so far (copies). */
  get failures(): TaskFailure[] {
    return [...this.#failures];
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * Starts `work` for the job now and keeps track of it. The returned promise never
   * rejects: it resolves with the outcome once the task has settled and been observed.
   */
  start(jobId: string, work: TaskWork): Promise<TaskOutcome> {
    if (this.#shuttingDown) return this.#refuse(jobId);
    const controller = new AbortController();
    // Promise.resolve().then(...) also turns a synchronous throw inside `work` into a rejection.
    // `settled` includes recording the outcome on the job (an awaited store write): shutdown
    // waits for `settled`, so it never reports a task as cancelled, and the process never
    // exits, while the job's `cancelled` write is still in flight.
    const settled = Promise.resolve()
      .then(() => work(controller.signal))
      .then(
        (): TaskOutcome => {
          // One line per outcome, the good one too: the export runs after the 202, so this line
          // is the only sign in the server's terminal that it did.
          this.#log(`[registry] job ${jobId} completed`);
          return 'completed';
        },
        (error: unknown) => this.#observeRejection(jobId, controller.signal, error),
      )
      // Runs after every outcome, so a settled task never stays referenced.
      .finally(() => this.#running.delete(task));
    const task: RunningTask = { jobId, controller, settled };
    this.#running.add(task);
    return settled;
  }

  /**
   * Waits up to `graceMs` for running tasks to finish, then aborts the rest and waits
   * up to `cleanupMs` for them to stop. New tasks are refused from the first moment.
   */
  async shutdown(options: { graceMs?: number; cleanupMs?: number } = {}): Promise<ShutdownReport> {
    this.#shuttingDown = true;
    const atStart = this.size;
    await this.#waitForRunning(options.graceMs ?? this.#graceMs);
    const late = [...this.#running];
    for (const task of late) {
      task.controller.abort(new Error('shutdown: the grace period ended'));
    }
    await this.#waitForRunning(options.cleanupMs ?? this.#cleanupMs);
    return { finishedInGrace: atStart - late.length, cancelled: late.length - this.size, remaining: this.size };
  }

  /** Resolves when every running task has settled, or after `ms`, whichever comes first. */
  async #waitForRunning(ms: number): Promise<void> {
    if (this.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    const allSettled = Promise.all([...this.#running].map((task) => task.settled)).then(() => undefined);
    await Promise.race([allSettled, timeUp]);
    // Without this the timer would keep the process alive after every task finished.
    clearTimeout(timer);
  }

  /** The one place a task's rejection lands: it becomes a job state and a log line. */
  async #observeRejection(jobId: string, signal: AbortSignal, error: unknown): Promise<TaskOutcome> {
    // After an abort, a rejection is the task stopping as asked, not a failure.
    if (signal.aborted) {
      this.#log(`[registry] job ${jobId} cancelled: ${errorMessage(signal.reason)}`);
      await this.#moveJob(jobId, 'cancelled');
      return 'cancelled';
    }
    const message = errorMessage(error);
    this.#failures.push({ jobId, message, error });
    this.#log(`[registry] job ${jobId} failed: ${message}`);
    await this.#moveJob(jobId, 'failed', message);
    return 'failed';
  }

  async #refuse(jobId: string): Promise<TaskOutcome> {
    this.#log(`[registry] job ${jobId} not started: the process is shutting down`);
    await this.#moveJob(jobId, 'cancelled');
    return 'cancelled';
  }

  /**
   * Records the outcome on the job when the state machine allows it; never throws.
   * It asks the store to move the job and lets the store refuse, rather than reading the
   * state first and deciding: with an async store a state read before an await can be
   * stale after it. The store's transition checks and writes in one step.
   */
  async #moveJob(jobId: string, to: JobState, error?: string): Promise<void> {
    try {
      await this.#store.transition(jobId, to, error === undefined ? {} : { error });
    } catch (err) {
      // Throwing here would turn an observed failure back into an unhandled one.
      if (err instanceof InvalidTransitionError) {
        this.#log(`[registry] job ${jobId} stays ${err.from}: ${err.from} -> ${to} is not allowed`);
      } else if (err instanceof JobNotFoundError) {
        this.#log(`[registry] job ${jobId} is not in the store; nothing to mark ${to}`);
      } else {
        this.#log(`[registry] job ${jobId}: could not record ${to}: ${errorMessage(err)}`);
      }
    }
  }
}
