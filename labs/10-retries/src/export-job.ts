// The export job of lesson 10: read a product snapshot from a source that may be
// briefly unavailable, with a deadline the producer set and that every retry keeps.
import { UnrecoverableError, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { sleep } from '@tasks-lab/lab-kit';
import { TemporaryExportError, failFastUnlessRetryable, plannedDelayOf, withPlannedDelay } from './export-errors.ts';
import { recordRetryRun, recordSourceRead } from './execution-log.ts';
import { deadlineProblem, planRetry, type RetryPolicy } from './retry-policy.ts';

export const RETRY_EXPORT_JOB_NAME = 'export-snapshot';

/** What the producer puts in the job. Snake case, like the course's payloads. */
export interface RetryExportData {
  job_id: string;
  /** Epoch ms, fixed once by the producer. Retries carry it unchanged: it is never recomputed. */
  deadline_at: number;
  /** Drill only: the first `fail_until` runs fail with a temporary error. */
  fail_until: number;
  /** Drill only: 'permanent' makes every read fail with an input error that waiting cannot fix. */
  fail_with: 'temporary' | 'permanent';
  /** Drill only: how long one read of the source takes. */
  read_ms: number;
}

export interface RetryExportResult {
  job_id: string;
  rows: number;
}

/** Bad input is rejected before it reaches a queue: a job with no deadline would never stop retrying. */
export function parseRetryExportData(input: unknown): RetryExportData {
  const data = input as Partial<RetryExportData> | null;
  const problems: string[] = [];
  if (typeof data?.job_id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(data.job_id)) problems.push('job_id must be 1-64 letters, digits, _ or -');
  if (!Number.isSafeInteger(data?.deadline_at)) problems.push('deadline_at must be epoch milliseconds');
  if (!Number.isInteger(data?.fail_until) || (data?.fail_until ?? -1) < 0) problems.push('fail_until must be a whole number >= 0');
  if (data?.fail_with !== 'temporary' && data?.fail_with !== 'permanent') problems.push("fail_with must be 'temporary' or 'permanent'");
  if (!Number.isInteger(data?.read_ms) || (data?.read_ms ?? -1) < 0) problems.push('read_ms must be a whole number >= 0');
  if (problems.length > 0) throw new TypeError(`invalid export job: ${problems.join('; ')}`);
  return data as RetryExportData;
}

/**
 * The product source of the drill. Stands in for a store that is briefly down: it
 * fails for the first `fail_until` runs, then returns one product. It only reads.
 */
export async function readProductSource(attempt: number, data: RetryExportData, signal?: AbortSignal): Promise<object[]> {
  await sleep(data.read_ms, signal);
  if (data.fail_with === 'permanent') throw new TypeError('invalid export request');
  if (attempt <= data.fail_until) throw new TemporaryExportError('temporary source failure');
  return [{ id: 1, name: 'teaching sample', is_active: false, price_cents: 0 }];
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
  parts?: RetryExportParts;
  now?: () => number;
}

export async function processRetryExport(job: Job, context: RetryExportContext): Promise<RetryExportResult> {
  const { redis, parts = RETRY_EXPORT_PARTS, now = Date.now } = context;
  const data = parseOrFailFast(job.data);
  const attempt = job.attemptsMade + 1;
  await recordRetryRun(redis, job.queueName, data.job_id, { attempt, startedAt: now() });

  // Check 1, before any work: an expired export must not cost the source a single read.
  const expired = parts.deadlineProblem(now(), data.deadline_at);
  if (expired) throw new UnrecoverableError(expired);

  try {
    await recordSourceRead(redis, job.queueName, data.job_id);
    const rows = await readProductSource(attempt, data);
    return { job_id: data.job_id, rows: rows.length };
  } catch (err) {
    throw decideAfterFailure(err, job, data, context, parts);
  }
}

/** Invalid input never gets better by waiting: fail at once instead of retrying it. */
function parseOrFailFast(input: unknown): RetryExportData {
  try {
    return parseRetryExportData(input);
  } catch (err) {
    throw new UnrecoverableError((err as Error).message);
  }
}

/** Turns a failed try into what BullMQ should do next: fail now, or retry after a planned wait. */
function decideAfterFailure(err: unknown, job: Job, data: RetryExportData, context: RetryExportContext, parts: RetryExportParts): Error {
  const error = parts.failFastUnlessRetryable(err);
  if (error instanceof UnrecoverableError) return error;
  const retriesLeft = job.attemptsMade + 1 < (job.opts.attempts ?? 1);
  if (!retriesLeft) return error; // BullMQ fails the job with this error's message.

  // Check 2, before a retry is scheduled: the wait plus one more try must end before the deadline.
  const plan = parts.planRetry({ nowMs: (context.now ?? Date.now)(), deadlineAt: data.deadline_at, retry: job.attemptsMade + 1, policy: context.policy });
  if (!plan.retry) return new UnrecoverableError(plan.reason);
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

/** The backoff option every export job carries, so BullMQ asks plannedBackoff (no built-in type matches). */
export const PLANNED_BACKOFF = { type: 'planned-full-jitter' } as const;
