// The short export of this lesson, run in the API process after the response.
// The work itself is simulated (a timer stands in for reading two products); the
// state changes around it are real: queued -> running -> succeeded on lab 01's store
// (a MemoryJobStore, through the async JobStore interface).
import { setTimeout as delay } from 'node:timers/promises';
import type { ExportResult, JobStore } from '@tasks-lab/01-state-machine';
import { BACKGROUND_DEFAULTS } from './options.ts';

/** Produces the export for some products; it should stop early when `signal` aborts. */
export type ExportWork = (productIds: readonly number[], signal: AbortSignal) => Promise<ExportResult>;

/** Pretends to read the products for `workMs` (the course's 1000 ms), then reports one row per product. */
export function simulatedExport(options: { workMs?: number } = {}): ExportWork {
  const workMs = options.workMs ?? BACKGROUND_DEFAULTS.exportWorkMs;
  return async (productIds, signal) => {
    // The timer listens to the signal: an abort rejects it at once with an AbortError.
    await delay(workMs, undefined, { signal });
    return { rows: productIds.length };
  };
}

/**
 * Runs one export job: running, the work, then succeeded with its result.
 * It does not catch: a failure rejects, and whoever started the task (the
 * TaskRegistry) turns that rejection into a failed or cancelled job.
 */
export async function runExportJob(
  store: JobStore,
  jobId: string,
  work: ExportWork,
  signal: AbortSignal,
): Promise<ExportResult> {
  const job = await store.transition(jobId, 'running');
  // The race this closes: the store is async, so the task can be cancelled (shutdown
  // aborts it) while the write above is still in flight. Without this check the work
  // would start anyway, after its cancellation. With it, the task stops here and the
  // registry records the job as cancelled.
  signal.throwIfAborted();
  const result = await work(job.productIds, signal);
  // An abort that arrives once the work has finished is ignored on purpose: the result
  // is complete, and recording it beats throwing finished work away.
  await store.transition(jobId, 'succeeded', { result });
  return result;
}
