// The pool's job store: lesson 01's records and state machine, kept in memory, with
// synchronous methods. Why not lesson 01's MemoryJobStore (async, like the MySQL store
// of lesson 11)? The pool's task handle behaves like Python's Future: submit() returns
// a handle whose id is the job id, cancel() answers true or false on the spot, and a
// thread taking a task moves its job to running in the same step. Each of those writes
// the job record together with the pool's own bookkeeping, with nothing in between;
// an await there would let a cancel() slip between "a thread took the task" and "the
// job says running". The rules are not restated here: every transition asks lesson
// 01's canTransition (the ALLOWED_TRANSITIONS table) and refuses the same way.
import { randomUUID } from 'node:crypto';
import {
  canTransition,
  InvalidTransitionError,
  JobNotFoundError,
  type ExportJob,
  type JobState,
  type TransitionPatch,
} from '@tasks-lab/01-state-machine';

/** One process's jobs, synchronous. Returned records are copies: callers cannot change the store by accident. */
export class SyncJobStore {
  readonly #jobs = new Map<string, ExportJob>();

  /** A new job, queued, with the product ids exactly as given. */
  create(productIds: readonly number[]): ExportJob {
    const at = new Date().toISOString();
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

  /** Like get, but a missing job is a JobNotFoundError naming the id. */
  require(id: string): ExportJob {
    const job = this.get(id);
    if (!job) throw new JobNotFoundError(id);
    return job;
  }

  /** Moves a job to `to` if lesson 01's table allows it; an illegal move throws and changes nothing. */
  transition(id: string, to: JobState, patch: TransitionPatch = {}): ExportJob {
    const current = this.#jobs.get(id);
    if (!current) throw new JobNotFoundError(id);
    if (!canTransition(current.state, to)) throw new InvalidTransitionError(id, current.state, to);
    const next: ExportJob = {
      ...current,
      state: to,
      result: patch.result ?? current.result,
      error: patch.error ?? current.error,
      updatedAt: new Date().toISOString(),
    };
    this.#jobs.set(id, next);
    return structuredClone(next);
  }

  /** How many jobs there are, in total or in one state. */
  count(state?: JobState): number {
    if (state === undefined) return this.#jobs.size;
    return [...this.#jobs.values()].filter((job) => job.state === state).length;
  }
}
