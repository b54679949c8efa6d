// Lesson 10's learning checks and fault drills, run for real: a worker in its own
// process, BullMQ on the lab's Redis, the lab's MariaDB/MySQL database. Every retry
// check counts real executions from the evidence the worker wrote to Redis.
// buildChecks(deps) swaps parts for the can-fail tests (test/checks.can-fail.test.ts).
import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Pool } from 'mysql2/promise';
import { fail, isAlive, outcome, startTsProcess, waitFor, type Check } from '@tasks-lab/lab-kit';
import { ensureInfra, labPrefix, openLabDatabase, redisOptions } from '@tasks-lab/infra';
import { retryLabConnection } from '../src/connection.ts';
import { CRAWL_JOB_NAME, type CrawlJobData } from '../src/crawl-job.ts';
import { DEDUCT_JOB_NAME, type DeductJobData } from '../src/deduct-job.ts';
import { gapsBetweenRuns, readRetryEvidence, type RetryEvidence } from '../src/execution-log.ts';
import { PLANNED_BACKOFF } from '../src/export-job.ts';
import { countDeductions, deductStockOnce, readStock, setStock, type DeductionOutcome, type StockDeduction } from '../src/inventory.ts';
import { migrateLabDatabase } from '../src/migrate.ts';
import {
  DEADLINE_EXCEEDED,
  EXPORT_ATTEMPTS,
  INSUFFICIENT_RETRY_BUDGET,
  RETRY_POLICY_DEFAULTS,
  backoffCeilingMs,
  fullJitterDelayMs,
} from '../src/retry-policy.ts';
import { submitRetryExport, type RetryExportRequest } from '../src/submit.ts';
import { HARD_TIME_LIMIT_EXCEEDED, SOFT_TIME_LIMIT_EXCEEDED } from '../src/time-limits.ts';

const LAB_DIR = fileURLToPath(new URL('..', import.meta.url));
const WORKER_SCRIPT = fileURLToPath(new URL('../src/worker.ts', import.meta.url));

/** Short timings so verify takes seconds; the worker's defaults stay the course's (1 s base, 8 s cap, 8 s / 10 s limits). */
export const VERIFY_TIMINGS = { backoffBaseMs: 50, backoffCapMs: 400, minWorkMs: 100, softTimeLimitMs: 500, hardTimeLimitMs: 1500 };

export interface RetryCheckDeps {
  /** The backoff function the cap check samples. */
  backoffDelay?: typeof fullJitterDelayMs;
  /** `attempts` on every submitted job (all runs, the first included). */
  attempts?: number;
  /** The worker's entry point; fixtures start a broken variant. */
  workerScript?: string;
  /** The deduction the dedupe check runs. */
  deductOnce?: (pool: Pool, deduction: StockDeduction) => Promise<DeductionOutcome>;
}

// ---- a real worker process and a fresh queue per check -------------------------------

interface RetryLab {
  queueName: string;
  queue: Queue;
  redis: Redis;
  workerPid: number;
}

async function withRetryLab<T>(deps: RetryCheckDeps, body: (lab: RetryLab) => Promise<T>): Promise<T> {
  await ensureInfra({ services: ['redis', 'mysql'] });
  const queueName = `retries-${randomUUID()}`;
  const worker = startTsProcess(deps.workerScript ?? WORKER_SCRIPT, {
    cwd: LAB_DIR,
    env: {
      RETRY_QUEUE: queueName,
      RETRY_BACKOFF_BASE_MS: String(VERIFY_TIMINGS.backoffBaseMs),
      RETRY_BACKOFF_CAP_MS: String(VERIFY_TIMINGS.backoffCapMs),
      RETRY_MIN_WORK_MS: String(VERIFY_TIMINGS.minWorkMs),
      SOFT_TIME_LIMIT_MS: String(VERIFY_TIMINGS.softTimeLimitMs),
      HARD_TIME_LIMIT_MS: String(VERIFY_TIMINGS.hardTimeLimitMs),
    },
  });
  const queue = new Queue(queueName, { connection: retryLabConnection(), prefix: labPrefix('10') });
  const redis = new Redis(redisOptions());
  try {
    await worker.waitForOutput(/ready on queue/, 30_000);
    return await body({ queueName, queue, redis, workerPid: worker.pid });
  } finally {
    await worker.kill('SIGKILL');
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
    await redis.quit();
  }
}

/** Polls until the job is completed or failed for good (a retry in between is neither). */
async function finished(queue: Queue, jobId: string, timeoutMs = 30_000): Promise<Job> {
  return waitFor(
    `job ${jobId} to finish`,
    async () => {
      // State first, then the job: read the other way round, a job that finishes between
      // the two reads comes back finished but with the fields of the earlier read.
      const state = await queue.getJobState(jobId);
      if (state !== 'completed' && state !== 'failed') return undefined;
      return await queue.getJob(jobId);
    },
    { timeoutMs, intervalMs: 50 },
  );
}

interface ExportRun {
  job: Job;
  state: string;
  evidence: RetryEvidence;
}

async function runExport(lab: RetryLab, deps: RetryCheckDeps, request: RetryExportRequest): Promise<ExportRun> {
  const submitted = await submitRetryExport(lab.queue, { attempts: deps.attempts ?? EXPORT_ATTEMPTS, ...request });
  const job = await finished(lab.queue, submitted.id!);
  const state = await job.getState();
  const evidence = await readRetryEvidence(lab.redis, lab.queueName, submitted.data.job_id);
  return { job, state, evidence };
}

const describeRun = ({ job, state, evidence }: ExportRun) =>
  `${state}${state === 'failed' ? ` with "${job.failedReason}"` : ''}; ${evidence.runs.length} run(s), ${evidence.reads} read(s) of the source`;

// ---- the checks --------------------------------------------------------------------

function backoffIsCappedFullJitter(deps: RetryCheckDeps): Check {
  return {
    name: 'Backoff waits are full jitter under a cap of 8 s',
    run: () => {
      const delay = deps.backoffDelay ?? fullJitterDelayMs;
      const policy = RETRY_POLICY_DEFAULTS;
      const highest = [1, 2, 3, 4, 5, 6, 10].map((retry) => delay(retry, policy, () => 0.999999));
      const lowest = [1, 2, 3, 4, 5, 6, 10].map((retry) => delay(retry, policy, () => 0));
      const ceilings = [1, 2, 3, 4, 5, 6, 10].map((retry) => backoffCeilingMs(retry, policy));
      let outside = 0;
      for (let i = 0; i < 2000; i++) {
        const retry = 1 + (i % 10);
        const wait = delay(retry, policy);
        if (wait < 0 || wait > backoffCeilingMs(retry, policy)) outside += 1;
      }
      const capped = highest.every((wait) => wait <= policy.backoffCapMs);
      const grows = highest[0] < highest[1] && highest[1] < highest[2] && highest[2] < highest[3];
      const startsAtZero = lowest.every((wait) => wait === 0);
      return outcome(
        capped && grows && startsAtZero && outside === 0,
        `longest waits for retries 1-6 and 10: ${highest.join(', ')} ms (ceilings ${ceilings.join(', ')}); shortest ${lowest[0]} ms; ${outside} of 2000 random waits outside [0, ceiling]`,
      );
    },
  };
}

function recoversAfterTwoFailures(deps: RetryCheckDeps): Check {
  return {
    name: 'Two temporary failures, then success: 3 runs, completed',
    run: () =>
      withRetryLab(deps, async (lab) => {
        const run = await runExport(lab, deps, { failUntil: 2, deadlineInMs: 30_000 });
        const gaps = gapsBetweenRuns(run.evidence.runs);
        const rows = (run.job.returnvalue as { rows?: number } | null)?.rows;
        return outcome(
          run.state === 'completed' && run.evidence.runs.length === 3 && rows === 1,
          `${describeRun(run)}; result rows ${rows}; waits between runs ${gaps.join(', ')} ms`,
        );
      }),
  };
}

function expiredDeadlineFailsBeforeRead(deps: RetryCheckDeps): Check {
  return {
    name: 'An expired deadline fails before any read',
    run: () =>
      withRetryLab(deps, async (lab) => {
        const run = await runExport(lab, deps, { failUntil: 0, deadlineInMs: -1000 });
        return outcome(
          run.state === 'failed' && run.job.failedReason === DEADLINE_EXCEEDED && run.evidence.reads === 0 && run.evidence.runs.length <= 1,
          describeRun(run),
        );
      }),
  };
}

function permanentErrorRunsOnce(deps: RetryCheckDeps): Check {
  return {
    name: 'A permanent error runs exactly once',
    run: () =>
      withRetryLab(deps, async (lab) => {
        const run = await runExport(lab, deps, { permanent: true, deadlineInMs: 30_000 });
        return outcome(run.state === 'failed' && run.evidence.runs.length === 1, describeRun(run));
      }),
  };
}

function alwaysFailingRunsFourTimes(deps: RetryCheckDeps): Check {
  return {
    name: 'A job that always fails runs exactly 4 times (1 + 3 retries)',
    run: () =>
      withRetryLab(deps, async (lab) => {
        const run = await runExport(lab, deps, { failUntil: 10, deadlineInMs: 60_000 });
        const gaps = gapsBetweenRuns(run.evidence.runs);
        return outcome(
          run.state === 'failed' && run.evidence.runs.length === 4 && run.job.failedReason === 'temporary source failure',
          `${describeRun(run)}; attemptsMade ${run.job.attemptsMade}; waits between runs ${gaps.join(', ')} ms (ceilings ${VERIFY_TIMINGS.backoffBaseMs}, ${VERIFY_TIMINGS.backoffBaseMs * 2}, ${VERIFY_TIMINGS.backoffBaseMs * 4} ms, plus pickup)`,
        );
      }),
  };
}

function retryOverrunningDeadlineFails(deps: RetryCheckDeps): Check {
  return {
    name: 'A retry that would overrun the deadline fails with "insufficient retry budget"',
    run: () =>
      withRetryLab(deps, async (lab) => {
        // The read hangs for the whole budget and then fails: retries are left, time is not.
        const run = await runExport(lab, deps, { failUntil: 10, deadlineInMs: 5000, readMs: 5000 });
        return outcome(
          run.state === 'failed' && run.job.failedReason === INSUFFICIENT_RETRY_BUDGET && run.evidence.runs.length < EXPORT_ATTEMPTS,
          `${describeRun(run)} (attempts allowed: ${EXPORT_ATTEMPTS})`,
        );
      }),
  };
}

function softLimitStopsCooperativeWork(deps: RetryCheckDeps): Check {
  return {
    name: 'Soft time limit: the signal stops the work, cleanup runs, the job fails',
    run: () =>
      withRetryLab(deps, async (lab) => {
        const data: CrawlJobData = { job_id: randomUUID(), mode: 'cooperative', work_ms: 20_000 };
        const started = Date.now();
        await lab.queue.add(CRAWL_JOB_NAME, data, { jobId: data.job_id, attempts: EXPORT_ATTEMPTS, backoff: PLANNED_BACKOFF });
        const job = await finished(lab.queue, data.job_id);
        const tookMs = Date.now() - started;
        const { notes } = await readRetryEvidence(lab.redis, lab.queueName, data.job_id);
        const state = await job.getState();
        return outcome(
          state === 'failed' && job.failedReason === SOFT_TIME_LIMIT_EXCEEDED && notes.includes('cleanup ran') && job.attemptsMade === 1 && tookMs < data.work_ms / 2,
          `${state} with "${job.failedReason}" after ${tookMs} ms of ${data.work_ms} ms of work (soft limit ${VERIFY_TIMINGS.softTimeLimitMs} ms); notes: ${notes.join(', ') || 'none'}; runs ${job.attemptsMade}`,
        );
      }),
  };
}

function hardLimitKillsBlockedChild(deps: RetryCheckDeps): Check {
  return {
    name: 'Hard time limit: the blocked child process is killed, the job fails',
    run: () =>
      withRetryLab(deps, async (lab) => {
        const data: CrawlJobData = { job_id: randomUUID(), mode: 'blocking', work_ms: 0 };
        await lab.queue.add(CRAWL_JOB_NAME, data, { jobId: data.job_id, attempts: EXPORT_ATTEMPTS, backoff: PLANNED_BACKOFF });
        const job = await finished(lab.queue, data.job_id);
        const { notes } = await readRetryEvidence(lab.redis, lab.queueName, data.job_id);
        const childPid = Number(/child pid (\d+)/.exec(notes.join('\n'))?.[1]);
        if (!childPid) return fail(`no child pid was recorded; job ${await job.getState()} with "${job.failedReason}"`);
        const state = await job.getState();
        const alive = isAlive(childPid);
        return outcome(
          state === 'failed' && job.failedReason === HARD_TIME_LIMIT_EXCEEDED && !alive,
          `${state} with "${job.failedReason}"; child ${childPid} ${alive ? 'is STILL running' : 'is gone'} (its own ${VERIFY_TIMINGS.softTimeLimitMs} ms exit timer could not run in a blocked loop; the parent's watchdog sent SIGKILL at ${VERIFY_TIMINGS.hardTimeLimitMs} ms)`,
        );
      }),
  };
}

async function withInventory<T>(body: (pool: Pool, sku: string) => Promise<T>): Promise<T> {
  await ensureInfra({ services: ['mysql'] });
  const pool = await openLabDatabase('10');
  try {
    await migrateLabDatabase(pool);
    const sku = `sku-${randomUUID().slice(0, 8)}`;
    await setStock(pool, sku, 10);
    return await body(pool, sku);
  } finally {
    await pool.end();
  }
}

function sameOrderDeductsOnce(deps: RetryCheckDeps): Check {
  return {
    name: 'The same order, twice in turn and five times at once, takes stock once',
    run: () =>
      withInventory(async (pool, sku) => {
        const deduct = deps.deductOnce ?? deductStockOnce;
        const inTurn = { orderId: `order-${randomUUID()}`, sku, quantity: 2 };
        const atOnce = { orderId: `order-${randomUUID()}`, sku, quantity: 2 };
        const sequential = [await deduct(pool, inTurn), await deduct(pool, inTurn)];
        const concurrent = await Promise.all(Array.from({ length: 5 }, () => deduct(pool, atOnce)));
        const stock = await readStock(pool, sku);
        const rows = (await countDeductions(pool, inTurn.orderId)) + (await countDeductions(pool, atOnce.orderId));
        const deducted = [...sequential, ...concurrent].filter((o) => o === 'deducted').length;
        return outcome(
          stock === 6 && deducted === 2,
          `stock 10 -> ${stock} after two orders of 2; in turn: ${sequential.join(', ')}; at once: ${deducted - sequential.filter((o) => o === 'deducted').length} deducted, ${concurrent.filter((o) => o === 'already applied').length} already applied; dedupe rows ${rows}`,
        );
      }),
  };
}

function rerunJobDeductsOnce(deps: RetryCheckDeps): Check {
  return {
    name: 'A deduction job run again after its commit takes stock once',
    run: () =>
      withInventory((pool, sku) =>
        withRetryLab(deps, async (lab) => {
          const data: DeductJobData = { order_id: `order-${randomUUID()}`, sku, quantity: 3, fail_after_commit_once: true };
          await lab.queue.add(DEDUCT_JOB_NAME, data, { jobId: data.order_id, attempts: EXPORT_ATTEMPTS, backoff: PLANNED_BACKOFF });
          const job = await finished(lab.queue, data.order_id);
          const state = await job.getState();
          const outcomes = (job.progress as { outcomes?: string[] }).outcomes ?? [];
          const stock = await readStock(pool, sku);
          return outcome(
            state === 'completed' && job.attemptsMade === 2 && stock === 7,
            `${state} after ${job.attemptsMade} runs (${outcomes.join(', ')}); stock 10 -> ${stock} for an order of 3`,
          );
        }),
      ),
  };
}

export function buildChecks(deps: RetryCheckDeps = {}): Check[] {
  return [
    backoffIsCappedFullJitter(deps),
    recoversAfterTwoFailures(deps),
    expiredDeadlineFailsBeforeRead(deps),
    permanentErrorRunsOnce(deps),
    alwaysFailingRunsFourTimes(deps),
    retryOverrunningDeadlineFails(deps),
    softLimitStopsCooperativeWork(deps),
    hardLimitKillsBlockedChild(deps),
    sameOrderDeductsOnce(deps),
    rerunJobDeductsOnce(deps),
  ];
}
