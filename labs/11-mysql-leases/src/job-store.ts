// Lesson 01's JobStore contract on MySQL: the same record, the same state machine, but
// durable and shared by every process. Lesson 01 checked then wrote with nothing in
// between because it lived in one process; here many processes write the same row, so
// the check and the write are ONE statement:
//   UPDATE export_jobs SET status = ? ... WHERE id = ? AND status IN (<statesThatMayMoveTo(to)>)
// Either the row was in an allowed state and moved, or nothing changed; a second writer
// racing the first finds the new status and is refused.
//
// The store is the generic record. Workers do not call transition(): they claim and
// finish with a lease token (leases.ts), which this contract knows nothing about.
import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import {
  InvalidTransitionError,
  JobNotFoundError,
  statesThatMayMoveTo,
  type ExportJob,
  type JobState,
  type JobStore,
  type TransitionPatch,
} from '@tasks-lab/01-state-machine';
import { COUNT_JOBS, COUNT_JOBS_IN_STATE, TRANSITION } from './job-queries.ts';
import { readJob, submitSnapshot, type JobRow } from './leases.ts';

export interface MySqlJobStoreOptions {
  /** The deadline of jobs created through the store. @defaultValue the course's 10 minutes */
  deadlineMs?: number;
  /** The guard's list of states a job may move from; only tests pass a broken one. @defaultValue statesThatMayMoveTo */
  mayMoveFrom?: (to: JobState) => readonly JobState[];
}

export class MySqlJobStore implements JobStore {
  readonly #pool: Pool;
  readonly #options: MySqlJobStoreOptions;

  constructor(pool: Pool, options: MySqlJobStoreOptions = {}) {
    this.#pool = pool;
    this.#options = options;
  }

  /** A new queued job with a frozen snapshot of the products (they must exist: MissingProductsError otherwise). */
  async create(productIds: readonly number[]): Promise<ExportJob> {
    const { jobId } = await submitSnapshot(this.#pool, productIds, { deadlineMs: this.#options.deadlineMs });
    return this.require(jobId);
  }

  async get(id: string): Promise<ExportJob | undefined> {
    const row = await readJob(this.#pool, id);
    return row && toExportJob(row);
  }

  async require(id: string): Promise<ExportJob> {
    const job = await this.get(id);
    if (!job) throw new JobNotFoundError(id);
    return job;
  }

  async transition(id: string, to: JobState, patch: TransitionPatch = {}): Promise<ExportJob> {
    const from = (this.#options.mayMoveFrom ?? statesThatMayMoveTo)(to);
    if (from.length > 0) {
      const [moved] = await this.#pool.query<ResultSetHeader>(TRANSITION, [
        to,
        patch.result?.rows ?? null,
        patch.error ?? null,
        id,
        from,
      ]);
      if (moved.affectedRows === 1) return this.require(id);
    }
    // Nothing moved: say why, from the row as it is now.
    const current = await readJob(this.#pool, id);
    if (!current) throw new JobNotFoundError(id);
    throw new InvalidTransitionError(id, current.status, to);
  }

  async count(state?: JobState): Promise<number> {
    const [rows] =
      state === undefined
        ? await this.#pool.query<RowDataPacket[]>(COUNT_JOBS)
        : await this.#pool.query<RowDataPacket[]>(COUNT_JOBS_IN_STATE, [state]);
    return Number(rows[0]?.n ?? 0);
  }
}

/** Lesson 01's record, read off the row: the product ids are the snapshot's, in the order asked for. */
export function toExportJob(row: JobRow): ExportJob {
  return {
    id: row.id,
    state: row.status,
    productIds: row.snapshot.map((product) => product.id),
    result: row.resultRows === null ? null : { rows: row.resultRows },
    error: row.errorMessage,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
