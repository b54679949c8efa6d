// The export job of lesson 10: read a product snapshot from a source that may be
// briefly unavailable, with a deadline the producer set and that every retry keeps.
import { UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { CodedError, InjectedFault } from '@tasks-lab/lab-kit';
import { DeadlineExceededError, InsufficientRetryBudgetError } from './errors.ts';
import { TemporaryExportError, failFastUnlessRetryable, plannedDelayOf, withPlannedDelay } from './export-errors.ts';
import { recordRetryRun, recordSourceRead } from './execution-log.ts';
import type { RetryFaults } from './faults.ts';
import { checkJobData, isIdentifier, type RetryJob } from './jobs.ts';
import { deadlineProblem, planRetry, randomJitter, type JitterSource, type RetryPolicy } from './retry-policy.ts';

export const RETRY_EXPORT_JOB_NAME = 'export-snapshot';

/** What the producer puts in the job: business data only. Snake case, like the course's payloads. */
export interface RetryExportData {
  job_id: string;
  /** Epoch ms, fixed once by the producer. Retries carry it unchanged: it is never recomputed. */
  deadline_at: number;
  /** Which products to export. Only the source knows which categories exist. */
  category: string;
}

export interface RetryExportResult {
  job_id: string;
  rows: number;
}

/** Bad input is refused before it reaches a queue: a job with no deadline would never stop retrying. */
export function parseRetryExportData(input: unknown): RetryExportData {
  return checkJobData<RetryExportData>(RETRY_EXPORT_JOB_NAME, input, (data) => [
    ...(isIdentifier(data.job_id) ? [] : ['job_id must be 1-64 letters, digits, _ or -']),
    ...(Number.isSafeInteger(data.deadline_at) ? [] : ['deadline_at must be epoch milliseconds']),
    ...(isIdentifier(data.category) ? [] : ['category must be 1-64 letters, digits, _ or -']),
  ]);
}

export interface Product {
  id: number;
  name: string;
  is_active: boolean;
  price_cents: number;
}

/** The drill's product source: one category. Asking for another is an input error no retry can fix. */
export const PRODUCT_CATALOGUE: ReadonlyMap<string, readonly Product[]> = new Map([
  ['samples', [{ id: 1, name: 'teaching sample', is_active: false, price_cents: 0 }]],
]);
export const DEFAULT_CATEGORY = 'samples';

export class UnknownCategoryError extends CodedError {
  constructor(category: string) {
    super('unknown-category', `no such product category: ${category}`);
  }
}

/**
 * Reads one category from the product source. It only reads. The drill's faults
 * strike here: `source-connect` makes the source slow, `source-read` makes it fail.
 * A fault thrown at the read stands for the source being down, the one failure that
 * waiting can fix, so it becomes a TemporaryExportError (the allow-list stays honest:
 * it lists what a real source throws, and nothing drill-specific).
 */
export async function readProductSource(category: string, faults: RetryFaults): Promise<readonly Product[]> {
  await faults.hit('source-connect');
  try {
    await faults.hit('source-read');
  } catch (err) {
    if (err instanceof InjectedFault) throw new TemporaryExportError('temporary source failure', { cause: err });
    throw err;
  }
  const products = PRODUCT_CATALOGUE.get(category);
  if (!products) throw new UnknownCategoryError(category);
  return products;
}

/** The steps a broken variant may swap (test/fixtures does, to prove the checks can fail). */
export interface RetryExportParts {
  deadlineProblem: typeof deadlineProblem;
  failFastUnlessRetryable: typeof failFastUnlessRetryable;
  planRetry: typeof planRetry;
}

export const RETRY_EXPORT_PARTS: RetryExportParts = { deadlineProblem, failFastUnlessRetryable, planRetry };

export interface RetryExportContext {
  redis: Redis;
  policy: RetryPolicy;
  faults: RetryFaults;
  parts?: RetryExportParts;
  now?: () => number;
  /** @defaultValue randomJitter (Math.random); a drill passes seededJitter(RETRY_JITTER_SEED) */
  jitter?: JitterSource;
}

export async function processRetryExport(job: RetryJob, context: RetryExportContext): Promise<RetryExportResult> {
  const { redis, parts = RETRY_EXPORT_PARTS, now = Date.now } = context;
  const data = parseRetryExportData(job.data);
  const attempt = job.attemptsMade + 1;
  await recordRetryRun(redis, job.queueName, data.job_id, { attempt, startedAt: now() });

  // Check 1, before any work: an expired export must not cost the source a single read.
  if (parts.deadlineProblem(now(), data.deadline_at)) throw new DeadlineExceededError();

  try {
    await recordSourceRead(redis, job.queueName, data.job_id);
    const products = await readProductSource(data.category, context.faults);
    return { job_id: data.job_id, rows: products.length };
  } catch (err) {
    throw decideAfterFailure(err, job, data, context, parts);
  }
}

/** Turns a failed try into what BullMQ should do next: fail now, or retry after a planned wait. */
function decideAfterFailure(
  err: unknown,
  job: RetryJob,
  data: RetryExportData,
  context: RetryExportContext,
  parts: RetryExportParts,
): Error {
  const error = parts.failFastUnlessRetryable(err);
  if (error instanceof UnrecoverableError) return error;
  const retriesLeft = job.attemptsMade + 1 < (job.opts.attempts ?? 1);
  if (!retriesLeft) return error; // BullMQ fails the job with this error's message.

  // Check 2, before a retry is scheduled: the wait plus one more try must end before the deadline.
  const retry = job.attemptsMade + 1;
  const jitter = context.jitter ?? randomJitter;
  const plan = parts.planRetry({
    nowMs: (context.now ?? Date.now)(),
    deadlineAt: data.deadline_at,
    retry,
    policy: context.policy,
    random: () => jitter(retry),
  });
  if (!plan.retry) return new InsufficientRetryBudgetError();
  return withPlannedDelay(error, plan.delayMs);
}

/**
 * The Worker's `settings.backoffStrategy`. BullMQ calls it for every error it is about to
 * retry; it returns the wait planned above, or -1 ("do not retry") for an error that came
 * with no plan (say, Redis failing while we recorded the run), so nothing unplanned is
 * ever retried. Which errors get a plan is decided in one place: the allow-list.
 */
export function plannedBackoff(_attemptsMade: number, _type?: string, err?: Error): number {
  return plannedDelayOf(err) ?? -1;
}

/** The backoff option every job of this lab carries, so BullMQ asks plannedBackoff (no built-in type matches). */
export const PLANNED_BACKOFF = { type: 'planned-full-jitter' } as const;
