// The jobs lesson 10's queue carries: three names, each with its own payload. BullMQ
// stores a job's data as JSON in Redis, so a name does not guarantee a shape: the
// producer checks the data before it reaches the queue, and every handler parses it
// again before use (a mismatch fails at once, code invalid-job-data, never retried).
import type { Job, Queue } from 'bullmq';
import { labPrefix } from '@tasks-lab/infra';
import type { QueueAddress } from '@tasks-lab/08-broker-worker';
import type { CRAWL_JOB_NAME, CrawlJobData, CrawlResult } from './crawl-job.ts';
import type { DEDUCT_JOB_NAME, DeductJobData } from './deduct-job.ts';
import { InvalidJobDataError } from './errors.ts';
import type { RETRY_EXPORT_JOB_NAME, RetryExportData, RetryExportResult } from './export-job.ts';
import type { DeductionOutcome } from './inventory.ts';

export type RetryJobName = typeof RETRY_EXPORT_JOB_NAME | typeof CRAWL_JOB_NAME | typeof DEDUCT_JOB_NAME;
export type RetryJobData = RetryExportData | CrawlJobData | DeductJobData;
export type RetryJobResult = RetryExportResult | CrawlResult | DeductionOutcome[];

export type RetryJob = Job<RetryJobData, RetryJobResult, RetryJobName>;
export type RetryQueue = Queue<RetryJobData, RetryJobResult, RetryJobName>;

/** Lesson 10's jobs live under the key prefix tasks-lab10. */
export const retryQueueAddress = (queueName: string): QueueAddress => ({ prefix: labPrefix('10'), queueName });

/**
 * Checks a payload against one job name's contract: `problemsOf` lists what is wrong
 * (every problem, not just the first). Throws InvalidJobDataError, or returns the data typed.
 */
export function checkJobData<T>(jobName: string, input: unknown, problemsOf: (data: Partial<T>) => string[]): T {
  const data = (typeof input === 'object' && input !== null ? input : {}) as Partial<T>;
  const problems = problemsOf(data);
  if (problems.length > 0) throw new InvalidJobDataError(jobName, problems);
  return data as T;
}

/** 1-64 letters, digits, _ or -: safe as a BullMQ job id and in a Redis key. */
export const isIdentifier = (value: unknown): value is string =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(value);
