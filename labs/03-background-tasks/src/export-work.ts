// The short export of this lesson, run in the API process after the response.
// The work itself is simulated (a timer stands in for reading two products); the
// state changes around it are real: queued -> running -> succeeded on the lab 01 store.
import { setTimeout as delay } from 'node:timers/promises';
import type { ExportResult, JobStore } from './store.ts';

/** The course's short export takes about one second. */
export const DEFAULT_EXPORT_WORK_MS = 1000;

/** Produces the export for some products; it should stop early when `signal` aborts. */
export type ExportWork = (productIds: readonly number[], signal: AbortSignal) => Promise<ExportResult>;

/** Pretends to read the products for `workMs`, then reports one row per product. */
export function simulatedExport(options: { workMs?: number } = {}): ExportWork {
  const workMs = options.workMs ?? DEFAULT_EXPORT_WORK_MS;
  return async (productIds, signal) => {
    // The timer listens to the signal: an abort rejects it at once with an AbortError.
    await delay(workMs, undefined, { signal });
    return { rows: productIds.length };
  };
}

/**
 * Runs one export job: running, the work, then succeeded with its result.
 * It does not catch: a failure rejects, and whoever started the task (the
 * TaskRegistry) turns that rejection into a failed job.
 */
export async function runExportJob(
  store: JobStore,
  jobId: string,
  work: ExportWork,
  signal: AbortSignal,
): Promise<ExportResult> {
  const job = store.transition(jobId, 'running');
  const result = await work(job.productIds, signal);
  store.transition(jobId, 'succeeded', { result });
  return result;
}
