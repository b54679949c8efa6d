// The export job around the pool: the job record of lesson 01 says what happened.
// queued -> running -> succeeded (with the row count) or failed (with the error).
// A failed batch never writes a result, so nobody can mistake half an export for a whole one.
import { exportRowsFor, type ExportRow } from './scoring.ts';
import type { ScoreBatchOptions, ScoreBatchOutcome, ProcessPool } from './process-pool.ts';
import type { JobStore } from './store.ts';

export interface ScoringExportRun extends ScoreBatchOptions {
  store: JobStore;
  pool: ProcessPool;
  jobId: string;
  /** The rows to score. @defaultValue a row per product id of the job */
  rows?: readonly ExportRow[];
}

export async function runScoringExport(run: ScoringExportRun): Promise<ScoreBatchOutcome> {
  const { store, pool, jobId } = run;
  const job = store.transition(jobId, 'running');
  const rows = run.rows ?? exportRowsFor(job.productIds);
  let outcome: ScoreBatchOutcome;
  try {
    outcome = await pool.scoreBatch(rows, { rounds: run.rounds, onProgress: run.onProgress });
  } catch (err) {
    store.transition(jobId, 'failed', { error: err instanceof Error ? err.message : String(err) });
    throw err;
  }
  store.transition(jobId, 'succeeded', { result: { rows: outcome.scores.length } });
  return outcome;
}
