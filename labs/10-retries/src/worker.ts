// The lesson 10 worker: a real BullMQ Worker in its own process, with the retry
// policy, the planned backoff strategy, and the soft and hard time limits.
//   pnpm worker            (env below shortens the timings; the defaults are the course's)
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Pool } from 'mysql2/promise';
import { pathToFileURL } from 'node:url';
import { ensureInfra, labPrefix, openLabDatabase, redisOptions } from '@tasks-lab/infra';
import { retryLabConnection } from './connection.ts';
import { CRAWL_JOB_NAME, processCrawl } from './crawl-job.ts';
import { plannedDelayOf } from './export-errors.ts';
import { DEDUCT_JOB_NAME, processDeduction } from './deduct-job.ts';
import { RETRY_EXPORT_JOB_NAME, RETRY_EXPORT_PARTS, plannedBackoff, processRetryExport, type RetryExportParts } from './export-job.ts';
import { RETRY_POLICY_DEFAULTS, type RetryPolicy } from './retry-policy.ts';
import { TIME_LIMIT_DEFAULTS } from './time-limits.ts';

export const RETRY_QUEUE_DEFAULT = 'exports';

export interface RetryWorkerOptions {
  queueName: string;
  policy: RetryPolicy;
  softTimeLimitMs: number;
  hardTimeLimitMs: number;
  /** Swappable steps; only the can-fail fixtures pass anything but the defaults. */
  parts?: RetryExportParts;
}

export interface RunningRetryWorker {
  worker: Worker;
  close(): Promise<void>;
}

export async function startRetryWorker(options: RetryWorkerOptions): Promise<RunningRetryWorker> {
  const evidence = new Redis(redisOptions());
  let pool: Pool | undefined; // opened on the first deduction job only
  const processJob = async (job: Job) => {
    switch (job.name) {
      case RETRY_EXPORT_JOB_NAME:
        return processRetryExport(job, { redis: evidence, policy: options.policy, parts: options.parts });
      case CRAWL_JOB_NAME:
        return processCrawl(job, { redis: evidence, ...options });
      case DEDUCT_JOB_NAME:
        pool ??= await openLabDatabase('10');
        return processDeduction(job, pool);
      default:
        throw new Error(`unknown job name ${job.name}`);
    }
  };
  const worker = new Worker(options.queueName, processJob, {
    connection: retryLabConnection(),
    prefix: labPrefix('10'),
    concurrency: 4,
    // No backoff type of BullMQ's own is used: every export job asks for this strategy.
    settings: { backoffStrategy: plannedBackoff },
  });
  await worker.waitUntilReady();
  return {
    worker,
    async close() {
      await worker.close();
      await evidence.quit();
      await pool?.end();
    },
  };
}

const numberFromEnv = (name: string, fallback: number) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number of milliseconds >= 0, got "${raw}"`);
  return value;
};

/** Reads the options from the environment, starts the worker, prints one ready line, closes on SIGTERM/SIGINT. */
export async function runRetryWorkerFromEnv(parts: RetryExportParts = RETRY_EXPORT_PARTS): Promise<void> {
  await ensureInfra({ services: ['redis', 'mysql'] });
  const options: RetryWorkerOptions = {
    queueName: process.env.RETRY_QUEUE || RETRY_QUEUE_DEFAULT,
    policy: {
      backoffBaseMs: numberFromEnv('RETRY_BACKOFF_BASE_MS', RETRY_POLICY_DEFAULTS.backoffBaseMs),
      backoffCapMs: numberFromEnv('RETRY_BACKOFF_CAP_MS', RETRY_POLICY_DEFAULTS.backoffCapMs),
      minWorkMs: numberFromEnv('RETRY_MIN_WORK_MS', RETRY_POLICY_DEFAULTS.minWorkMs),
    },
    softTimeLimitMs: numberFromEnv('SOFT_TIME_LIMIT_MS', TIME_LIMIT_DEFAULTS.softTimeLimitMs),
    hardTimeLimitMs: numberFromEnv('HARD_TIME_LIMIT_MS', TIME_LIMIT_DEFAULTS.hardTimeLimitMs),
    parts,
  };
  const running = await startRetryWorker(options);
  running.worker.on('failed', (job, err) => {
    const delayMs = plannedDelayOf(err);
    const next = delayMs === undefined ? 'no retry' : `retry in ${delayMs} ms`;
    console.log(`job ${job?.id} run ${job?.attemptsMade} failed: ${err.message} (${next})`);
  });
  running.worker.on('completed', (job) => console.log(`job ${job.id} completed after ${job.attemptsMade} run(s)`));
  const { backoffBaseMs, backoffCapMs, minWorkMs } = options.policy;
  console.log(
    `retry worker ${process.pid} ready on queue ${options.queueName} (backoff base ${backoffBaseMs} ms, cap ${backoffCapMs} ms, min work ${minWorkMs} ms, soft ${options.softTimeLimitMs} ms, hard ${options.hardTimeLimitMs} ms)`,
  );
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runRetryWorkerFromEnv().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
