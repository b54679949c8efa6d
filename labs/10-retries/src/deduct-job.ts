// The deduction job: runs deductStockOnce inside a BullMQ job. The drill makes the
// first run fail AFTER its transaction committed (fault point after-deduct-commit, as if
// the worker died before reporting back), so BullMQ runs the job again; the deduction
// record makes that harmless.
import type { Pool } from 'mysql2/promise';
import { CodedError, InjectedFault } from '@tasks-lab/lab-kit';
import { withPlannedDelay } from './export-errors.ts';
import type { RetryFaults } from './faults.ts';
import { deductStockOnce, type DeductionOutcome } from './inventory.ts';
import { checkJobData, isIdentifier, type RetryJob } from './jobs.ts';

export const DEDUCT_JOB_NAME = 'deduct-stock';

export interface DeductJobData {
  order_id: string;
  sku: string;
  quantity: number;
}

export function parseDeductJobData(input: unknown): DeductJobData {
  return checkJobData<DeductJobData>(DEDUCT_JOB_NAME, input, (data) => [
    ...(isIdentifier(data.order_id) ? [] : ['order_id must be 1-64 letters, digits, _ or -']),
    ...(isIdentifier(data.sku) ? [] : ['sku must be 1-64 letters, digits, _ or -']),
    ...(Number.isSafeInteger(data.quantity) && Number(data.quantity) > 0
      ? []
      : ['quantity must be a whole number > 0']),
  ]);
}

/** The work was done and committed, but nobody heard about it: run the job again. */
export class ReplyLostError extends CodedError {
  constructor(options: { cause?: unknown }) {
    super('reply-lost', 'lost the reply after the commit', options);
  }
}

export interface DeductionContext {
  pool: Pool;
  faults: RetryFaults;
  /** @defaultValue deductStockOnce */
  deductOnce?: typeof deductStockOnce;
}

export async function processDeduction(job: RetryJob, context: DeductionContext): Promise<DeductionOutcome[]> {
  const { order_id, sku, quantity } = parseDeductJobData(job.data);
  const outcome = await (context.deductOnce ?? deductStockOnce)(context.pool, { orderId: order_id, sku, quantity });
  const outcomes = [...((job.progress as { outcomes?: DeductionOutcome[] }).outcomes ?? []), outcome];
  await job.updateProgress({ outcomes });
  try {
    await context.faults.hit('after-deduct-commit');
  } catch (err) {
    if (!(err instanceof InjectedFault)) throw err;
    // Retry at once: this drill is about running twice, not about waiting.
    throw withPlannedDelay(new ReplyLostError({ cause: err }), 0);
  }
  return outcomes;
}
