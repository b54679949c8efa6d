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
  /** The products the client asked for, each once, in the order first asked for. */
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

/**
 * The states from which a job may move to `to`, read off ALLOWED_TRANSITIONS. A store
 * that checks and writes in one step (lesson 11's `UPDATE ... WHERE state IN (...)`)
 * builds its guard from this, so the rule lives in one table and is never restated.
 */
export function statesThatMayMoveTo(to: JobState): JobState[] {
  return JOB_STATES.filter((from) => canTransition(from, to));
}

/**
 * Each product id once, in the order first seen: [2, 1, 2] -> [2, 1]. Exporting a product
 * twice helps nobody, and the 1-100 limit of an export counts the ids left after this step.
 */
export function distinctProductIds(productIds: readonly number[]): number[] {
  return [...new Set(productIds)];
}

/**
 * The state store contract every lab builds on. Asynchronous, because from lesson 11
 * on the record lives in MySQL; lesson 01's in-memory store keeps the same shape so the
 * same contract suite (test/store-contract.ts) grades both.
 */
export interface JobStore {
  /**
   * A new job, queued, with each product id once, in first-seen order (distinctProductIds).
   * De-duplicating is the store's job as well as the schema's: a caller that never passes
   * through HTTP (a worker, a script) gets the same rule.
   */
  create(productIds: readonly number[]): Promise<ExportJob>;
  /** The job, or undefined when there is none with this id. */
  get(id: string): Promise<ExportJob | undefined>;
  /** Like get, but a missing job is a JobNotFoundError (404) naming the id. */
  require(id: string): Promise<ExportJob>;
  /**
   * Moves a job to `to` if ALLOWED_TRANSITIONS allows it from its current state, in one
   * step: an illegal move throws InvalidTransitionError (409) and changes nothing.
   */
  transition(id: string, to: JobState, patch?: TransitionPatch): Promise<ExportJob>;
  /** How many jobs there are, in total or in one state. */
  count(state?: JobState): Promise<number>;
}

/**
 * In-memory jobs, one process only: a restart loses them all (the fault drill shows it).
 * Returned records are copies: callers cannot change the store by accident.
 */
export class MemoryJobStore implements JobStore {
  readonly #jobs = new Map<string, ExportJob>();
  readonly #now: () => Date;

  constructor(options: { now?: () => Date } = {}) {
    this.#now = options.now ?? (() => new Date());
  }

  async create(productIds: readonly number[]): Promise<ExportJob> {
    const at = this.#now().toISOString();
    const job: ExportJob = {
      id: randomUUID(),
      state: 'queued',
      productIds: distinctProductIds(productIds),
      result: null,
      error: null,
      createdAt: at,
      updatedAt: at,
    };
    this.#jobs.set(job.id, job);
    return structuredClone(job);
  }

  async get(id: string): Promise<ExportJob | undefined> {
    const job = this.#jobs.get(id);
    return job && structuredClone(job);
  }

  async require(id: string): Promise<ExportJob> {
    const job = await this.get(id);
    if (!job) throw new JobNotFoundError(id);
    return job;
  }

  /**
   * Checks, then writes, with no await in between: in one process nothing can run
   * between the two, so the check still holds when the write happens.
   */
  async transition(id: string, to: JobState, patch: TransitionPatch = {}): Promise<ExportJob> {
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

  async count(state?: JobState): Promise<number> {
    if (state === undefined) return this.#jobs.size;
    let n = 0;
    for (const job of this.#jobs.values()) if (job.state === state) n += 1;
    return n;
  }

  /** Every job, oldest first (a copy). */
  async list(): Promise<ExportJob[]> {
    return [...this.#jobs.values()].map((job) => structuredClone(job));
  }
}
