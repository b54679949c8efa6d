// The producer side: it fixes the deadline ONCE, at submission, and puts it in the
// job. Retries reuse the same job and so the same deadline_at; nothing recomputes it.
//   pnpm submit                         one export of the 'samples' category
//   pnpm submit --expired               the deadline passed a second ago: fails before any read
//   pnpm submit --category discontinued no such category: an input error, never retried
//   pnpm submit --deadline-ms 3000      a 3 s budget (EXPORT_DEADLINE_MS sets the default)
// The drills' failures come from the worker's LAB_FAULTS, never from the payload.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { redisOptions } from '@tasks-lab/infra';
import { errorMessage, idempotent, onShutdown, runMain, SECOND } from '@tasks-lab/lab-kit';
import {
  RESULT_RETENTION,
  ResultTimeoutError,
  enqueue,
  openQueue,
  openQueueEvents,
  waitForFinalState,
  waitForResult,
} from '@tasks-lab/08-broker-worker';
import { ensureServices } from '@tasks-lab/09-redelivery';
import { CRAWL_JOB_NAME, parseCrawlJobData } from './crawl-job.ts';
import { DEDUCT_JOB_NAME, parseDeductJobData } from './deduct-job.ts';
import { gapsBetweenRuns, readRetryEvidence } from './execution-log.ts';
import { DEFAULT_CATEGORY, PLANNED_BACKOFF, RETRY_EXPORT_JOB_NAME, parseRetryExportData } from './export-job.ts';
import {
  retryQueueAddress,
  type RetryJob,
  type RetryJobData,
  type RetryJobName,
  type RetryJobResult,
  type RetryQueue,
} from './jobs.ts';
import { RETRY_SUBMIT_OPTIONS } from './options.ts';
import { DEFAULT_EXPORT_DEADLINE_MS, EXPORT_ATTEMPTS } from './retry-policy.ts';

/** Each job name's contract, checked before the job reaches Redis. */
const PARSERS: Record<RetryJobName, (input: unknown) => RetryJobData> = {
  [RETRY_EXPORT_JOB_NAME]: parseRetryExportData,
  [CRAWL_JOB_NAME]: parseCrawlJobData,
  [DEDUCT_JOB_NAME]: parseDeductJobData,
};

/**
 * Adds one job with the options every job of this lab carries: `attempts` (all runs,
 * the first included), the planned backoff, and lesson 08's retention.
 */
export function submitRetryJob(
  queue: RetryQueue,
  name: RetryJobName,
  data: RetryJobData,
  options: { jobId: string; attempts?: number },
): Promise<RetryJob> {
  return enqueue(queue, name, data, {
    jobId: options.jobId,
    validate: PARSERS[name],
    jobOptions: { attempts: options.attempts ?? EXPORT_ATTEMPTS, backoff: PLANNED_BACKOFF, ...RESULT_RETENTION },
  });
}

export interface RetryExportRequest {
  category?: string;
  /** The deadline, counted from now. Negative = already expired (a drill). */
  deadlineInMs?: number;
  /** All runs, the first included. */
  attempts?: number;
  now?: number;
}

export function submitRetryExport(queue: RetryQueue, request: RetryExportRequest = {}): Promise<RetryJob> {
  const jobId = randomUUID();
  const deadlineAt = (request.now ?? Date.now()) + (request.deadlineInMs ?? DEFAULT_EXPORT_DEADLINE_MS);
  return submitRetryJob(
    queue,
    RETRY_EXPORT_JOB_NAME,
    { job_id: jobId, deadline_at: deadlineAt, category: request.category ?? DEFAULT_CATEGORY },
    { jobId, attempts: request.attempts },
  );
}

/** "; waits between runs 391, 345 ms", from the run log the worker writes (when each processor call started). */
async function describeWaits(redis: Redis, queueName: string, jobId: string): Promise<string> {
  const gaps = gapsBetweenRuns((await readRetryEvidence(redis, queueName, jobId)).runs);
  return gaps.length === 0 ? '' : `; waits between runs ${gaps.join(', ')} ms`;
}

/** Exits 0 when the job completed, 1 when it failed or had no result in time (as lesson 11's submit does). */
async function main(): Promise<number> {
  // `pnpm submit -- --x` passes the `--` through; drop it.
  const args = process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--'));
  const { values: flags } = parseArgs({
    args,
    options: {
      category: { type: 'string' },
      'deadline-ms': { type: 'string' },
      expired: { type: 'boolean', default: false },
    },
  });
  const options = RETRY_SUBMIT_OPTIONS.read({
    overrides: flags['deadline-ms'] === undefined ? {} : { deadlineMs: Number(flags['deadline-ms']) },
  });
  await ensureServices(['redis']);
  const address = retryQueueAddress(options.queueName);
  const queue = await openQueue<RetryJobData, RetryJobResult, RetryJobName>(address);
  const events = await openQueueEvents<RetryJobResult>(address); // before the add: a fast worker must not finish unheard
  const evidence = new Redis(redisOptions()); // to read the run log the worker wrote
  const close = idempotent(async () => {
    await events.close();
    await queue.close();
    await evidence.quit();
  });
  onShutdown(close);
  try {
    const job = await submitRetryExport(queue, {
      category: flags.category,
      deadlineInMs: flags.expired ? -SECOND : options.deadlineMs,
    });
    const { deadline_at } = parseRetryExportData(job.data);
    console.log(
      `submitted ${job.id} (deadline_at ${new Date(deadline_at).toISOString()}, attempts ${job.opts.attempts})`,
    );
    let outcome: string;
    let completed = false;
    try {
      outcome = `completed: ${JSON.stringify(await waitForResult(job, events, options.waitSeconds * SECOND))}`;
      completed = true;
    } catch (err) {
      outcome = `${err instanceof ResultTimeoutError ? 'no result yet' : 'failed'}: ${errorMessage(err)}`;
    }
    const { job: finished } = await waitForFinalState(queue, job.id ?? '', { timeoutMs: 5 * SECOND }).catch(() => ({
      job,
    }));
    console.log(
      `${outcome} (runs: ${finished.attemptsMade}${await describeWaits(evidence, options.queueName, job.id ?? '')})`,
    );
    return completed ? 0 : 1;
  } finally {
    await close();
  }
}

runMain(import.meta.url, main);
