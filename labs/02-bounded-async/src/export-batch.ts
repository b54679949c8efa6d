// The batch belongs to an export job from lesson 01's store. The job moves
// queued -> running -> succeeded with {rows}, or -> failed with the error message:
// a timed-out or failed batch never leaves a result on the job.
import { type JobStore } from './store.ts';
import { BATCH_DEFAULTS, collectProducts, type CollectOptions } from './batch.ts';
import { withDeadline } from './deadline.ts';
import { type Product } from './read-product.ts';

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
  const job = store.require(jobId);
  store.transition(jobId, 'running');
  try {
    const products = await withDeadline(budgetMs, (signal) =>
      collectProducts(job.productIds, { ...collectOptions, signal }),
    );
    store.transition(jobId, 'succeeded', { result: { rows: products.length } });
    return products;
  } catch (err) {
    store.transition(jobId, 'failed', { error: err instanceof Error ? err.message : String(err) });
    throw err;
  }
}

export type RunExportBatch = typeof runExportBatch;
