// The lesson 10 worker: lesson 08's worker (startWorker: one processor, handlers per
// job name) with the retry policy, the planned backoff strategy, the soft and hard
// time limits, and the idempotent deduction.
//   pnpm worker                                     the course's timings
//   LAB_FAULTS=source-read:throw:2 pnpm worker      a drill (see src/faults.ts)
// Before anything else it makes sure the lab's Redis and database run, and says so
// ([infra] ...), like every process of lessons 08 to 10.
import type { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { redisOptions } from '@tasks-lab/infra';
import { errorCode, idempotent, onShutdown, runMain } from '@tasks-lab/lab-kit';
import { startWorker, type JobHandlers } from '@tasks-lab/08-broker-worker';
import { ensureServices } from '@tasks-lab/09-redelivery';
import { CRAWL_JOB_NAME, crawlPolitely, processCrawl } from './crawl-job.ts';
import { lazyPool } from './database.ts';
import { DEDUCT_JOB_NAME, processDeduction } from './deduct-job.ts';
import { plannedDelayOf } from './export-errors.ts';
import {
  RETRY_EXPORT_JOB_NAME,
  RETRY_EXPORT_PARTS,
  plannedBackoff,
  processRetryExport,
  type RetryExportParts,
} from './export-job.ts';
import { retryFaults, type RetryFaults } from './faults.ts';
import { deductStockOnce } from './inventory.ts';
import { retryQueueAddress, type RetryJobData, type RetryJobName, type RetryJobResult } from './jobs.ts';
import { readRetryWorkerOptions, type RetryWorkerOptionValues } from './options.ts';
import { randomJitter, seededJitter, type JitterSource } from './retry-policy.ts';

/** Every step a broken variant may swap; only the can-fail fixtures pass anything but the defaults. */
export interface RetryWorkerParts extends RetryExportParts {
  crawl: typeof crawlPolitely;
  deductOnce: typeof deductStockOnce;
  /** What the hard limit's watchdog sends. */
  killSignal: NodeJS.Signals;
}

export const RETRY_WORKER_PARTS: RetryWorkerParts = {
  ...RETRY_EXPORT_PARTS,
  crawl: crawlPolitely,
  deductOnce: deductStockOnce,
  killSignal: 'SIGKILL',
};

export interface RetryWorkerOptions extends RetryWorkerOptionValues {
  /** @defaultValue the faults LAB_FAULTS switches on (none) */
  faults?: RetryFaults;
  parts?: Partial<RetryWorkerParts>;
  /** @defaultValue seededJitter(jitterSeed) when a seed is set, Math.random otherwise */
  jitter?: JitterSource;
}

export interface RunningRetryWorker {
  worker: Worker<RetryJobData, RetryJobResult, RetryJobName>;
  /** Stops taking jobs, waits for the running ones, closes Redis and the pool. Idempotent. */
  close(): Promise<void>;
}

export async function startRetryWorker(options: RetryWorkerOptions): Promise<RunningRetryWorker> {
  const parts = { ...RETRY_WORKER_PARTS, ...options.parts };
  const faults = options.faults ?? retryFaults();
  const evidence = new Redis(redisOptions());
  const database = lazyPool(); // opened by the first deduction job, shared by all of them
  const policy = {
    backoffBaseMs: options.backoffBaseMs,
    backoffCapMs: options.backoffCapMs,
    minWorkMs: options.minWorkMs,
  };
  const jitter = options.jitter ?? (options.jitterSeed ? seededJitter(options.jitterSeed) : randomJitter);
  const handlers: JobHandlers<RetryJobData, RetryJobResult, RetryJobName> = {
    [RETRY_EXPORT_JOB_NAME]: (job) => processRetryExport(job, { redis: evidence, policy, faults, parts, jitter }),
    [CRAWL_JOB_NAME]: (job) =>
      processCrawl(job, {
        redis: evidence,
        softTimeLimitMs: options.softTimeLimitMs,
        hardTimeLimitMs: options.hardTimeLimitMs,
        crawl: parts.crawl,
        killSignal: parts.killSignal,
      }),
    [DEDUCT_JOB_NAME]: async (job) =>
      processDeduction(job, { pool: await database.get(), faults, deductOnce: parts.deductOnce }),
  };
  const { concurrency, lockDurationMs, stalledIntervalMs, maxStalledCount } = options;
  const worker = startWorker(retryQueueAddress(options.queueName), handlers, {
    concurrency,
    lockDurationMs,
    stalledIntervalMs,
    maxStalledCount,
    // No backoff type of BullMQ's own is used: every job of this lab asks for this strategy.
    settings: { backoffStrategy: plannedBackoff },
  });
  await worker.waitUntilReady();
  return {
    worker,
    close: idempotent(async () => {
      await worker.close();
      await evidence.quit();
      await database.close();
    }),
  };
}

/** The process: options from the environment, one line per finished run, a ready line, a clean exit on SIGTERM/SIGINT. */
export async function runRetryWorker(parts: Partial<RetryWorkerParts> = {}): Promise<void> {
  const options = readRetryWorkerOptions();
  const faults = retryFaults();
  await ensureServices(['redis', 'mysql']);
  const running = await startRetryWorker({ ...options, faults, parts });
  running.worker.on('failed', (job, err) => {
    const delayMs = plannedDelayOf(err);
    const next = delayMs === undefined ? 'no retry' : `retry in ${delayMs} ms`;
    console.log(
      `job ${job?.id} run ${job?.attemptsMade} failed [${errorCode(err) ?? 'no code'}]: ${err.message} (${next})`,
    );
  });
  running.worker.on('completed', (job) => console.log(`job ${job.id} completed after ${job.attemptsMade} run(s)`));
  // close() waits for running jobs; a crawl may take up to its hard limit to end.
  onShutdown(running.close, { graceMs: options.hardTimeLimitMs + 5000 });
  const { backoffBaseMs, backoffCapMs, minWorkMs, softTimeLimitMs, hardTimeLimitMs, concurrency, jitterSeed } = options;
  console.log(
    `retry worker ${process.pid} ready on queue ${options.queueName} (backoff base ${backoffBaseMs} ms, cap ${backoffCapMs} ms, ` +
      `min work ${minWorkMs} ms, soft ${softTimeLimitMs} ms, hard ${hardTimeLimitMs} ms, concurrency ${concurrency}; ${faults.describe()}` +
      `${jitterSeed ? `; jitter seeded with "${jitterSeed}", for drills only` : ''})`,
  );
}

runMain(import.meta.url, () => runRetryWorker());
