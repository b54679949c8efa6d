// The batch belongs to an export job from lesson 01's store (its MemoryJobStore, in
// memory, behind the async JobStore interface). The job moves queued -> running ->
// succeeded with {rows}, or -> failed with the error message: a timed-out or failed
// batch never leaves a result on the job.
import { errorMessage } from '@tasks-lab/lab-kit';
import type { JobStore } from '@tasks-lab/01-state-machine';
import { collectProducts, type CollectOptions } from './batch.ts';
import { withDeadline } from './deadline.ts';
import { BATCH_DEFAULTS } from './options.ts';
import type { Product } from './read-product.ts';

export interface ExportBatchOptions extends Omit<CollectOptions, 'signal'> {
  /** The deadline for the whole batch. */
  budgetMs?: number;
}

/** Runs the job's product batch under its deadline and records the outcome on the job. */
export async function runExportBatch(
  store: JobStore,
  jobId: string,
  options: ExportBatchOptions = {},
): Promise<Product[]> {
  const { budgetMs = BATCH_DEFAULTS.budgetMs, ...collectOptions } = options;
  // No `store.require` first: with an async store, a record read before an await may be
  // stale after it, so nothing is decided from a read. The transition checks and moves in
  // one step: of two callers racing for the same queued job, exactly one moves it to
  // running and runs the batch; the other gets InvalidTransitionError (409) and runs nothing.
  const job = await store.transition(jobId, 'running');
  let products: Product[];
  try {
    products = await withDeadline(budgetMs, (signal) => collectProducts(job.productIds, { ...collectOptions, signal }));
  } catch (err) {
    await store.transition(jobId, 'failed', { error: errorMessage(err) });
    throw err;
  }
  await store.transition(jobId, 'succeeded', { result: { rows: products.length } });
  return products;
}

export type RunExportBatch = typeof runExportBatch;
