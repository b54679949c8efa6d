// The export job around the pool: lesson 01's job record says what happened.
// queued -> running -> succeeded (with the row count) or failed (with the error).
// A failed batch never writes a result, so nobody can mistake half an export for a whole one.
// The store is lesson 01's asynchronous JobStore contract; this lab passes a
// MemoryJobStore (jobs in this process), lesson 11 a MySQL one, and this code stays the same.
import { errorMessage } from '@tasks-lab/lab-kit';
import type { JobStore } from '@tasks-lab/01-state-machine';
import { exportRowsFor, type ExportRow } from './scoring.ts';
import type { ScoreBatchOptions, ScoreBatchOutcome, ProcessPool } from './process-pool.ts';

export interface ScoringExportRun extends ScoreBatchOptions {
  store: JobStore;
  pool: ProcessPool;
  jobId: string;
  /** The rows to score. @defaultValue a row per product id of the job */
  rows?: readonly ExportRow[];
}

export async function runScoringExport(run: ScoringExportRun): Promise<ScoreBatchOutcome> {
  const { store, pool, jobId } = run;
  const job = await store.transition(jobId, 'running');
  const rows = run.rows ?? exportRowsFor(job.productIds);
  let outcome: ScoreBatchOutcome;
  try {
    outcome = await pool.scoreBatch(rows, { rounds: run.rounds, onProgress: run.onProgress });
  } catch (err) {
    await store.transition(jobId, 'failed', { error: errorMessage(err) });
    throw err;
  }
  await store.transition(jobId, 'succeeded', { result: { rows: outcome.scores.length } });
  return outcome;
}
