// The job record and its state machine: the state store every later lab builds on.
// Lesson 01 keeps jobs in a Map inside one process, so a restart loses them all
// (the fault drill shows it); lesson 11 moves the same record into MySQL.
import { randomUUID } from 'node:crypto';
import { AppError } from './app-error.ts';

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** The state machine: for each state, the states a job may move to next. */
export const ALLOWED_TRANSITIONS: Readonly<Record<JobState, readonly JobState[]>> = {
  queued: ['running', 'cancelled'],
  running: ['succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
};

export function canTransition(from: JobState, to: JobState): boolean {
  return ALLOWED_TRANSITIONS[from].includes(to);
}

/** A state with no way out. Derived from the table, never stored beside it. */
export function isTerminal(state: JobState): boolean {
  return ALLOWED_TRANSITIONS[state].length === 0;
}

export interface ExportResult {
  rows: number;
}

export interface ExportJob {
  id: string;
  state: JobState;
  /** The products the client asked for, kept exactly as submitted. */
  productIds: number[];
  result: ExportResult | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What the API answers: the record plus fields derived from it. */
export interface ExportJobView extends ExportJob {
  terminal: boolean;
}

export function toView(job: ExportJob): ExportJobView {
  return { ...job, terminal: isTerminal(job.state) };
}

/** What a transition may write besides the state. */
export interface TransitionPatch {
  result?: ExportResult;
  error?: string;
}

export class InvalidTransitionError extends AppError {
  constructor(
    readonly jobId: string,
    readonly from: JobState,
    readonly to: JobState,
  ) {
    super('invalid-transition', `Job ${jobId}: ${from} -> ${to} is not allowed`, 409);
  }
}

export class JobNotFoundError extends AppError {
  constructor(readonly jobId: string) {
    super('job-not-found', `Job ${jobId} does not exist`, 404);
  }
}

/** In-memory jobs, one process only. Returned records are copies: callers cannot change the store by accident. */
export class JobStore {
  readonly #jobs = new Map<string, ExportJob>();
  readonly #now: () => Date;

  constructor(options: { now?: () => Date } = {}) {
    this.#now = options.now ?? (() => new Date());
  }

  create(productIds: readonly number[]): ExportJob {
    const at = this.#now().toISOString();
    const job: ExportJob = {
      id: randomUUID(),
      state: 'queued',
      productIds: [...productIds],
      result: null,
      error: null,
      createdAt: at,
      updatedAt: at,
    };
    this.#jobs.set(job.id, job);
    return structuredClone(job);
  }

  get(id: string): ExportJob | undefined {
    const job = this.#jobs.get(id);
    return job && structuredClone(job);
  }

  /** Like get, but a missing job is an error naming the id. */
  require(id: string): ExportJob {
    const job = this.get(id);
    if (!job) throw new JobNotFoundError(id);
    return job;
  }

  /**
   * Moves a job to `to`. Checks first, then writes: an illegal transition throws
   * InvalidTransitionError and leaves the record exactly as it was.
   */
  transition(id: string, to: JobState, patch: TransitionPatch = {}): ExportJob {
    const current = this.#jobs.get(id);
    if (!current) throw new JobNotFoundError(id);
    if (!canTransition(current.state, to)) throw new InvalidTransitionError(id, current.state, to);
    const next: ExportJob = {
      ...current,
      state: to,
      result: patch.result ?? current.result,
      error: patch.error ?? current.error,
      updatedAt: this.#now().toISOString(),
    };
    this.#jobs.set(id, next);
    return structuredClone(next);
  }

  list(): ExportJob[] {
    return [...this.#jobs.values()].map((job) => structuredClone(job));
  }

  get size(): number {
    return this.#jobs.size;
  }
}
