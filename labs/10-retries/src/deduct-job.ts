// The deduction job: runs deductStockOnce inside a BullMQ job. The drill makes the
// first run fail AFTER its transaction committed (as if the worker died before
// reporting back), so BullMQ runs the job again; the dedupe row makes that harmless.
import type { Job } from 'bullmq';
import type { Pool } from 'mysql2/promise';
import { TemporaryExportError, withPlannedDelay } from './export-errors.ts';
import { deductStockOnce, type DeductionOutcome } from './inventory.ts';

export const DEDUCT_JOB_NAME = 'deduct-stock';

export interface DeductJobData {
  order_id: string;
  sku: string;
  quantity: number;
  /** Drill only: fail the first run after the commit, so the job is run again. */
  fail_after_commit_once: boolean;
}

export async function processDeduction(job: Job<DeductJobData>, pool: Pool): Promise<DeductionOutcome[]> {
  const { order_id, sku, quantity, fail_after_commit_once } = job.data;
  const outcome = await deductStockOnce(pool, { orderId: order_id, sku, quantity });
  const outcomes = [...((job.progress as { outcomes?: DeductionOutcome[] }).outcomes ?? []), outcome];
  await job.updateProgress({ outcomes });
  if (fail_after_commit_once && job.attemptsMade === 0) {
    // Retry at once: this drill is about running twice, not about waiting.
    throw withPlannedDelay(new TemporaryExportError('lost the reply after the commit'), 0);
  }
  return outcomes;
}
