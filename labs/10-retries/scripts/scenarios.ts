// Lesson 10's experiments. Each one runs the real thing and returns what it saw; the
// checks (scripts/checks.ts) judge that evidence. The job experiments start a worker
// process (src/worker.ts, or a broken variant from the can-fail tests) on a queue of
// their own, with the drill's faults switched on through LAB_FAULTS, submit one job and
// read back its final state plus the runs and reads the worker wrote to Redis.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { JobState } from 'bullmq';
import { Redis } from 'ioredis';
import type { Pool } from 'mysql2/promise';
import { ensureInfra, redisOptions } from '@tasks-lab/infra';
import { FAULTS_ENV, faultRule, isAlive, launchProcess, withResources, type Resources } from '@tasks-lab/lab-kit';
import { openQueue, waitForFinalState } from '@tasks-lab/08-broker-worker';
import { CRAWL_JOB_NAME, type CrawlJobData } from '../src/crawl-job.ts';
import { openInventoryDatabase } from '../src/database.ts';
import { DEDUCT_JOB_NAME, type DeductJobData } from '../src/deduct-job.ts';
import { gapsBetweenRuns, readRetryEvidence, type RetryRun } from '../src/execution-log.ts';
import { deductStockOnce, type DeductionOutcome } from '../src/inventory.ts';
import {
  retryQueueAddress,
  type RetryJob,
  type RetryJobData,
  type RetryJobName,
  type RetryJobResult,
  type RetryQueue,
} from '../src/jobs.ts';
import { RETRY_WORKER_OPTIONS, type RetryWorkerOptionValues } from '../src/options.ts';
import { countDeductions, readStock, setStock } from '../src/queries.ts';
import {
  EXPORT_ATTEMPTS,
  RETRY_POLICY_DEFAULTS,
  backoffCeilingMs,
  fullJitterDelayMs,
  seededJitter,
} from '../src/retry-policy.ts';
import { submitRetryExport, submitRetryJob, type RetryExportRequest } from '../src/submit.ts';

const LAB_DIR = fileURLToPath(new URL('..', import.meta.url));
export const WORKER_SCRIPT = fileURLToPath(new URL('../src/worker.ts', import.meta.url));

/** Short timings so verify takes seconds; the worker's defaults stay the course's (1 s base, 8 s cap, 8 s / 10 s limits). */
export const VERIFY_TIMINGS = {
  backoffBaseMs: 50,
  backoffCapMs: 400,
  minWorkMs: 100,
  softTimeLimitMs: 500,
  hardTimeLimitMs: 1500,
};

/**
 * For the check that times the waits: a base long enough that a wait stands out from the
 * worker's own pickup time, and a fixed jitter seed (RETRY_JITTER_SEED) so every wait is
 * known before the job runs. With this seed the three waits are 188, 713 and 516 ms.
 */
export const TIMED_BACKOFF = { ...VERIFY_TIMINGS, backoffBaseMs: 400, backoffCapMs: 1600, jitterSeed: 'jitter' };

/** The waits the seed plans before retries 1 .. retries, as the worker's planRetry draws them. */
export function seededWaits(
  timings: { backoffBaseMs: number; backoffCapMs: number; jitterSeed: string },
  retries: number,
): number[] {
  const jitter = seededJitter(timings.jitterSeed);
  return Array.from({ length: retries }, (_, i) => fullJitterDelayMs(i + 1, timings, () => jitter(i + 1)));
}

/** Which worker process an experiment starts: the lab's, or a broken variant (script + args). */
export interface WorkerUnderTest {
  script: string;
  args?: string[];
}

// ---- backoff: sampled, no processes ------------------------------------------------

export interface BackoffEvidence {
  /** The longest possible wait before retries 1-6 and 10 (random source just below 1). */
  longest: number[];
  ceilings: number[];
  shortest: number;
  capMs: number;
  /** Of `samples` random waits, how many fell outside [0, ceiling]. */
  outside: number;
  samples: number;
}

export function sampleBackoff(delay: typeof fullJitterDelayMs = fullJitterDelayMs): BackoffEvidence {
  const policy = RETRY_POLICY_DEFAULTS;
  const retries = [1, 2, 3, 4, 5, 6, 10];
  const samples = 2000;
  let outside = 0;
  for (let i = 0; i < samples; i++) {
    const retry = 1 + (i % 10);
    const wait = delay(retry, policy);
    if (wait < 0 || wait > backoffCeilingMs(retry, policy)) outside += 1;
  }
  return {
    longest: retries.map((retry) => delay(retry, policy, () => 0.999999)),
    ceilings: retries.map((retry) => backoffCeilingMs(retry, policy)),
    shortest: Math.max(...retries.map((retry) => delay(retry, policy, () => 0))),
    capMs: policy.backoffCapMs,
    outside,
    samples,
  };
}

// ---- a worker process on a queue of its own ------------------------------------------

interface RetrySandbox {
  queueName: string;
  queue: RetryQueue;
  redis: Redis;
  res: Resources;
}

interface SandboxSetup {
  /** LAB_FAULTS for the worker, e.g. faultRule('source-read', 'throw', 2). */
  faults?: string;
  worker?: WorkerUnderTest;
  /** The worker's timings (and jitter seed). @defaultValue VERIFY_TIMINGS */
  timings?: Partial<RetryWorkerOptionValues>;
}

async function withRetryWorker<T>(
  signal: AbortSignal,
  setup: SandboxSetup,
  body: (sandbox: RetrySandbox) => Promise<T>,
): Promise<T> {
  return withResources(signal, async (res) => {
    await ensureInfra({ services: ['redis', 'mysql'] });
    const queueName = `retries-${randomUUID()}`;
    const queue = res.add(
      await openQueue<RetryJobData, RetryJobResult, RetryJobName>(retryQueueAddress(queueName)),
      async (q) => {
        await q.obliterate({ force: true }).catch(() => {});
        await q.close();
      },
    );
    const redis = res.add(new Redis(redisOptions()), (r) => r.quit());
    await launchProcess(setup.worker?.script ?? WORKER_SCRIPT, {
      args: setup.worker?.args,
      cwd: LAB_DIR,
      env: {
        ...RETRY_WORKER_OPTIONS.toEnv({ queueName, ...(setup.timings ?? VERIFY_TIMINGS) }),
        [FAULTS_ENV]: setup.faults ?? '',
      },
      ready: /ready on queue/,
      resources: res,
    });
    return body({ queueName, queue, redis, res });
  });
}

interface Settled {
  state: JobState | 'unknown';
  job?: RetryJob;
}

/** The job once completed or failed, or (after `timeoutMs`) the state it is stuck in. */
async function settle(sandbox: RetrySandbox, jobId: string, timeoutMs: number): Promise<Settled> {
  try {
    return await waitForFinalState(sandbox.queue, jobId, { timeoutMs, signal: sandbox.res.signal });
  } catch (err) {
    sandbox.res.throwIfAborted();
    if (!/timed out/.test(String(err))) throw err;
    return { state: await sandbox.queue.getJobState(jobId), job: await sandbox.queue.getJob(jobId) };
  }
}

// ---- one export job ------------------------------------------------------------------

export interface ExportRunEvidence {
  faults: string;
  state: JobState | 'unknown';
  failedReason?: string;
  rows?: number;
  /** `attempts` the job was submitted with. */
  attemptsAllowed: number;
  /** Processor calls, as the worker recorded them. */
  runs: RetryRun[];
  /** Reads of the product source. */
  reads: number;
  /** Waits between consecutive runs, ms. */
  gaps: number[];
}

/** How the experiment's producer adds the export (a broken variant drops the backoff option). */
export type SubmitExport = typeof submitRetryExport;

export interface ExportRunOptions {
  faults?: string;
  request: RetryExportRequest;
  worker?: WorkerUnderTest;
  timings?: Partial<RetryWorkerOptionValues>;
  /** @defaultValue submitRetryExport */
  submit?: SubmitExport;
}

export async function exportRun(
  signal: AbortSignal,
  { faults = '', request, worker, timings, submit = submitRetryExport }: ExportRunOptions,
): Promise<ExportRunEvidence> {
  return withRetryWorker(signal, { faults, worker, timings }, async (sandbox) => {
    const attemptsAllowed = request.attempts ?? EXPORT_ATTEMPTS;
    const submitted = await submit(sandbox.queue, { ...request, attempts: attemptsAllowed });
    const { state, job } = await settle(sandbox, submitted.id ?? '', 30_000);
    const { runs, reads } = await readRetryEvidence(sandbox.redis, sandbox.queueName, submitted.id ?? '');
    const result = job?.returnvalue;
    const rows = result && typeof result === 'object' && 'rows' in result ? result.rows : undefined;
    return {
      faults,
      state,
      failedReason: job?.failedReason,
      rows,
      attemptsAllowed,
      runs,
      reads,
      gaps: gapsBetweenRuns(runs),
    };
  });
}

// ---- the waits between retries, timed ----------------------------------------------------

export interface TimedRetriesEvidence extends ExportRunEvidence {
  seed: string;
  /** The waits the seed plans before each retry (what the worker's planRetry draws). */
  planned: number[];
}

/**
 * A job whose source always fails, on a worker with TIMED_BACKOFF: four runs, three waits.
 * The gaps come from the run log the worker itself writes (when each processor call
 * started), not from the delay BullMQ stored, so they show what really happened.
 */
export async function timedRetries(
  signal: AbortSignal,
  options: { worker?: WorkerUnderTest; submit?: SubmitExport } = {},
): Promise<TimedRetriesEvidence> {
  const run = await exportRun(signal, {
    ...options,
    timings: TIMED_BACKOFF,
    faults: faultRule('source-read', 'throw', 'always'),
    request: { deadlineInMs: 60_000, attempts: EXPORT_ATTEMPTS },
  });
  return { ...run, seed: TIMED_BACKOFF.jitterSeed, planned: seededWaits(TIMED_BACKOFF, EXPORT_ATTEMPTS - 1) };
}

// ---- one crawl job (the time limits) ---------------------------------------------------

export interface CrawlEvidence {
  mode: CrawlJobData['mode'];
  workMs: number;
  state: JobState | 'unknown';
  failedReason?: string;
  attemptsMade?: number;
  tookMs: number;
  notes: string[];
  /** The blocking crawl's child process, and whether it still existed when the job settled. */
  childPid?: number;
  childAlive: boolean;
}

export interface CrawlRunOptions {
  mode: CrawlJobData['mode'];
  workMs: number;
  worker?: WorkerUnderTest;
  /**
   * How long past the hard limit to wait for the job to settle before reading the state it
   * is in (a slow machine may need a while to start the child and kill it).
   * @defaultValue 10000
   */
  settleGraceMs?: number;
}

export async function crawlRun(signal: AbortSignal, options: CrawlRunOptions): Promise<CrawlEvidence> {
  return withRetryWorker(signal, { worker: options.worker }, async (sandbox) => {
    let childPid: number | undefined;
    // A child that outlived a broken watchdog must not outlive the experiment.
    sandbox.res.defer(() => {
      if (childPid !== undefined && isAlive(childPid)) process.kill(childPid, 'SIGKILL');
    });
    const data: CrawlJobData = { job_id: randomUUID(), mode: options.mode, work_ms: options.workMs };
    const started = Date.now();
    await submitRetryJob(sandbox.queue, CRAWL_JOB_NAME, data, { jobId: data.job_id });
    const { state, job } = await settle(
      sandbox,
      data.job_id,
      VERIFY_TIMINGS.hardTimeLimitMs + (options.settleGraceMs ?? 10_000),
    );
    const tookMs = Date.now() - started;
    const { notes } = await readRetryEvidence(sandbox.redis, sandbox.queueName, data.job_id);
    const pid = Number(/child pid (\d+)/.exec(notes.join('\n'))?.[1]);
    childPid = Number.isInteger(pid) && pid > 0 ? pid : undefined;
    return {
      mode: options.mode,
      workMs: options.workMs,
      state,
      failedReason: job?.failedReason,
      attemptsMade: job?.attemptsMade,
      tookMs,
      notes,
      childPid,
      childAlive: childPid !== undefined && isAlive(childPid),
    };
  });
}

// ---- the deduction (the database) ------------------------------------------------------

const STOCK_BEFORE = 10;

async function withInventory<T>(res: Resources, body: (pool: Pool, sku: string) => Promise<T>): Promise<T> {
  await ensureInfra({ services: ['mysql'] });
  const pool = res.add(await openInventoryDatabase(), (p) => p.end());
  const sku = `sku-${randomUUID().slice(0, 8)}`;
  await setStock(pool, sku, STOCK_BEFORE);
  return body(pool, sku);
}

export interface SameOrderEvidence {
  stockBefore: number;
  stockAfter?: number;
  quantity: number;
  /** One order deducted twice in turn. */
  inTurn: DeductionOutcome[];
  /** Another order deducted five times at once. */
  atOnce: DeductionOutcome[];
  /** Deduction records of the two orders together. */
  records: number;
}

export async function sameOrderDeductions(
  signal: AbortSignal,
  deductOnce: typeof deductStockOnce = deductStockOnce,
): Promise<SameOrderEvidence> {
  return withResources(signal, (res) =>
    withInventory(res, async (pool, sku) => {
      const quantity = 2;
      const inTurn = { orderId: `order-${randomUUID()}`, sku, quantity };
      const atOnce = { orderId: `order-${randomUUID()}`, sku, quantity };
      const sequential = [await deductOnce(pool, inTurn), await deductOnce(pool, inTurn)];
      const concurrent = await Promise.all(Array.from({ length: 5 }, () => deductOnce(pool, atOnce)));
      return {
        stockBefore: STOCK_BEFORE,
        stockAfter: await readStock(pool, sku),
        quantity,
        inTurn: sequential,
        atOnce: concurrent,
        records: (await countDeductions(pool, inTurn.orderId)) + (await countDeductions(pool, atOnce.orderId)),
      };
    }),
  );
}

export interface DeductionJobEvidence {
  faults: string;
  state: JobState | 'unknown';
  attemptsMade?: number;
  /** What each run of the job answered (kept in the job's progress). */
  outcomes: string[];
  stockBefore: number;
  stockAfter?: number;
  quantity: number;
}

/** A deduction job whose first run loses its reply after the commit (fault after-deduct-commit), so BullMQ runs it again. */
export async function rerunDeductionJob(
  signal: AbortSignal,
  options: { faults: string; worker?: WorkerUnderTest },
): Promise<DeductionJobEvidence> {
  return withResources(signal, (res) =>
    withInventory(res, (pool, sku) =>
      withRetryWorker(res.signal, options, async (sandbox) => {
        const data: DeductJobData = { order_id: `order-${randomUUID()}`, sku, quantity: 3 };
        await submitRetryJob(sandbox.queue, DEDUCT_JOB_NAME, data, { jobId: data.order_id });
        const { state, job } = await settle(sandbox, data.order_id, 30_000);
        const progress = job?.progress;
        const outcomes =
          progress && typeof progress === 'object' && 'outcomes' in progress && Array.isArray(progress.outcomes)
            ? progress.outcomes.map(String)
            : [];
        return {
          faults: options.faults,
          state,
          attemptsMade: job?.attemptsMade,
          outcomes,
          stockBefore: STOCK_BEFORE,
          stockAfter: await readStock(pool, sku),
          quantity: data.quantity,
        };
      }),
    ),
  );
}
