// The course's step 5: one evidence record per row of the failure matrix, filled with what was
// OBSERVED while the row ran, never with what was expected to happen.
//
//   observed_states   the job's row (status, attempts, lease token), sampled every ~50 ms by a
//                     plain read on the row's own database, kept only when it CHANGED, at ms
//                     since the row started. A step that comes and goes between two samples is
//                     not seen: the record says what was seen, at the resolution it was seen.
//   deliveries        the worker deliveries the row saw (BullMQ job id = outbox event id, and
//                     whether the claim won and the finish published), separate from
//   sends             the publisher's sends (the outbox's send_attempts): a send is not a
//                     delivery (BullMQ absorbs a resend whose job id it still keeps).
//   injected          what the row did on purpose, and when (a fault point, a kill, an action).
//   recovery_seconds  from the row's named starting instant (the broker back, the kill, ...) to
//                     the first sample of the end state; null when the row has no recovery.
//   result            set from the row's pure judge; 'not_run' only with a reason, and never
//                     'pass' without running.
//
// The record is JSON (snake_case, as the course's verification-record.json); `details` holds
// the row's own facts, which its judge reads.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { sleep } from '@tasks-lab/lab-kit';

export type RowKind = 'fault-point' | 'action' | 'regression';
export type RowResult = 'pass' | 'fail' | 'not_run';

/** One sampled change of the job's row. */
export interface ObservedState {
  at_ms: number;
  /** The row's status, or 'absent' while no committed row has this id. */
  status: string;
  attempts: number;
  lease_token: string | null;
}

/** One delivery of a wake-up that a worker of the row reported. */
export interface DeliverySeen {
  at_ms: number;
  /** The BullMQ job id, which is the outbox event id. */
  message_id: string;
  claimed: boolean;
  published: boolean;
  lease_token: string | null;
  /** Which worker: "worker (in-process)", "worker process 4242". */
  by?: string;
  /** The delivery threw (before or after its claim). */
  error?: string;
  /** What else the worker said of it ("chunks 1/4, stopped lost-lease-or-cancelled"). */
  note?: string;
}

export interface InjectedStep {
  at_ms: number;
  what: string;
}

/** The course's verification record, for one row of the matrix. */
export interface EvidenceRecord<D = Record<string, unknown>> {
  case: string;
  title: string;
  /** The course's row (its fault), in English. */
  course_row: string;
  kind: RowKind;
  /** How the fault was made: "LAB_FAULTS=after-send:throw:once", "action: finish with the old token". */
  fault: string;
  job_id: string | null;
  started_at: string;
  finished_at: string;
  observed_states: ObservedState[];
  deliveries: DeliverySeen[];
  /** Sends of the job's events (the outbox's send_attempts, summed); null when nothing was published. */
  sends: number | null;
  /** Deliveries of a message id already delivered once; null when no worker ran. */
  duplicate_deliveries: number | null;
  injected: InjectedStep[];
  recovery_seconds: number | null;
  /** What recovery_seconds measures ("kill -> succeeded"), or why there is none. */
  recovery_measure: string;
  /** The two instants recovery_seconds is measured between, in at_ms; null when it is. */
  recovery_window: { from_ms: number; to_ms: number } | null;
  /** The row's recovery budget (src/matrix/budget.ts) and how it adds up; null for a row without a recovery. */
  recovery_budget_seconds: number | null;
  recovery_budget: string | null;
  artifact_sha256: string | null;
  expected: string;
  observed: string;
  result: RowResult;
  reason?: string;
  /** The row's own facts (counts, answers, verdicts): what its judge reads. */
  details: D;
}

/** The sampler's interval: short enough to see a claim, long enough not to load the database. */
export const SAMPLE_EVERY_MS = 50;

/**
 * The job's row as the sampler reads it: a plain read (no lock, READ COMMITTED: only committed
 * states). Rows returned: 0 or 1. Parameters: [jobId].
 */
export const READ_JOB_STATE = `
  SELECT status, attempts, lease_token
  FROM export_jobs
  WHERE id = ?`;

const sameState = (a: ObservedState | undefined, b: Omit<ObservedState, 'at_ms'>) =>
  a !== undefined && a.status === b.status && a.attempts === b.attempts && a.lease_token === b.lease_token;

/**
 * What one row of the matrix records while it runs: the clock every at_ms is measured on,
 * the sampled states, the deliveries and the injected steps.
 */
export class RowRecorder {
  readonly startedAt: number;
  readonly states: ObservedState[] = [];
  readonly deliveries: DeliverySeen[] = [];
  readonly injected: InjectedStep[] = [];
  #sampler: { stop(): Promise<void> } | undefined;

  constructor(now: number = Date.now()) {
    this.startedAt = now;
  }

  /** ms since the row started. */
  at(time: number = Date.now()): number {
    return Math.max(0, time - this.startedAt);
  }

  /** Records a deliberate step (a fault, a kill, an action) now; returns its at_ms. */
  inject(what: string, time: number = Date.now()): number {
    const at = this.at(time);
    this.injected.push({ at_ms: at, what });
    return at;
  }

  delivered(delivery: Omit<DeliverySeen, 'at_ms'>, time: number = Date.now()): void {
    this.deliveries.push({ at_ms: this.at(time), ...delivery });
  }

  /** The first sampled state matching `test`, at or after `fromMs`. */
  firstState(test: (state: ObservedState) => boolean, fromMs = 0): ObservedState | undefined {
    return this.states.find((state) => state.at_ms >= fromMs && test(state));
  }

  latest(): ObservedState | undefined {
    return this.states.at(-1);
  }

  /** Starts sampling the job's row (one sampler per row: a second call replaces the first). */
  async watch(pool: Pool, jobId: string, intervalMs: number = SAMPLE_EVERY_MS): Promise<void> {
    await this.#sampler?.stop();
    this.#sampler = startSampler(pool, jobId, this, intervalMs);
  }

  /** Takes one last sample and stops; idempotent. */
  async stopWatching(): Promise<void> {
    await this.#sampler?.stop();
    this.#sampler = undefined;
  }

  /** Adds a sample if it differs from the last one. */
  sample(state: Omit<ObservedState, 'at_ms'>, time: number = Date.now()): void {
    if (!sameState(this.latest(), state)) this.states.push({ at_ms: this.at(time), ...state });
  }
}

/** Reads the job's row once: its state, or 'absent'. */
export async function readJobState(pool: Pool, jobId: string): Promise<Omit<ObservedState, 'at_ms'>> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_JOB_STATE, [jobId]);
  const row = rows[0];
  if (!row) return { status: 'absent', attempts: 0, lease_token: null };
  return {
    status: String(row.status),
    attempts: Number(row.attempts),
    lease_token: row.lease_token === null ? null : String(row.lease_token),
  };
}

/**
 * The sampling loop. A read that fails (the pool is closing at the end of the row) ends the
 * loop quietly: the samples taken so far are the record.
 */
function startSampler(pool: Pool, jobId: string, recorder: RowRecorder, intervalMs: number): { stop(): Promise<void> } {
  let stopping = false;
  const once = async () => recorder.sample(await readJobState(pool, jobId));
  const loop = (async () => {
    while (!stopping) {
      try {
        await once();
      } catch {
        return;
      }
      await sleep(intervalMs);
    }
  })();
  let stopped: Promise<void> | undefined;
  return {
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        await loop;
        await once().catch(() => {});
      })()),
  };
}

/** The sha256 (hex) of a file's bytes, or null when it cannot be read. */
export async function sha256OfFile(path: string): Promise<string | null> {
  try {
    return createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  } catch {
    return null;
  }
}

/** Seconds between two at_ms values, two decimals; null when either is missing. */
export function secondsBetween(fromMs: number | undefined, toMs: number | undefined): number | null {
  if (fromMs === undefined || toMs === undefined || toMs < fromMs) return null;
  return Math.round((toMs - fromMs) / 10) / 100;
}

/** Deliveries whose message id had already been delivered once in this row. */
export function countDuplicateDeliveries(deliveries: readonly DeliverySeen[]): number {
  const seen = new Set<string>();
  let duplicates = 0;
  for (const delivery of deliveries) {
    if (seen.has(delivery.message_id)) duplicates += 1;
    seen.add(delivery.message_id);
  }
  return duplicates;
}

/** The first 8 characters of an id, for tables and timelines ("none" for null). */
export const shortId = (id: string | null | undefined): string => (id ? id.slice(0, 8) : 'none');
