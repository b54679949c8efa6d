// Integration: a real BullMQ Worker (in this process) on the lab's Redis, with short
// timings. Each test starts its own worker, because fault counts are per worker.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { redisOptions } from '@tasks-lab/infra';
import { FAULTS_ENV, faultPoints } from '@tasks-lab/lab-kit';
import { enqueue, openQueue, waitForFinalState } from '@tasks-lab/08-broker-worker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readRetryEvidence } from '../src/execution-log.ts';
import { RETRY_EXPORT_JOB_NAME, parseRetryExportData } from '../src/export-job.ts';
import { RETRY_FAULT_POINTS } from '../src/faults.ts';
import {
  retryQueueAddress,
  type RetryJobData,
  type RetryJobName,
  type RetryJobResult,
  type RetryQueue,
} from '../src/jobs.ts';
import { RETRY_WORKER_OPTIONS } from '../src/options.ts';
import { submitRetryExport } from '../src/submit.ts';
import { startRetryWorker, type RunningRetryWorker } from '../src/worker.ts';

const queueName = `retries-test-${randomUUID()}`;
let queue: RetryQueue;
let redis: Redis;
let running: RunningRetryWorker | undefined;

beforeAll(async () => {
  queue = await openQueue<RetryJobData, RetryJobResult, RetryJobName>(retryQueueAddress(queueName));
  redis = new Redis(redisOptions());
});
afterEach(async () => {
  await running?.close();
});
afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  await redis.quit();
});

async function startWorkerWithFaults(rules: string): Promise<void> {
  running = await startRetryWorker({
    ...RETRY_WORKER_OPTIONS.defaults(),
    queueName,
    backoffBaseMs: 20,
    backoffCapMs: 100,
    minWorkMs: 50,
    softTimeLimitMs: 500,
    hardTimeLimitMs: 1500,
    faults: faultPoints(RETRY_FAULT_POINTS, { [FAULTS_ENV]: rules }),
  });
}

const settle = async (jobId: string) => (await waitForFinalState(queue, jobId, { timeoutMs: 20_000 })).job;

describe('worker: retries on a real queue', () => {
  it('When the source fails once then answers, Then the job completes after 2 runs and keeps its deadline_at [test:retry-keeps-deadline-at]', async () => {
    await startWorkerWithFaults('source-read:throw:1');
    const submitted = await submitRetryExport(queue, { deadlineInMs: 30_000 });
    const job = await settle(submitted.id ?? '');
    expect(await job.getState()).toBe('completed');
    expect(job.attemptsMade).toBe(2);
    expect(parseRetryExportData(job.data).deadline_at).toBe(parseRetryExportData(submitted.data).deadline_at);
    expect((await readRetryEvidence(redis, queueName, submitted.id ?? '')).runs.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it('When a job is submitted with attempts 2 and the source always fails, Then BullMQ stops after 2 runs [test:attempts-counts-first-run]', async () => {
    await startWorkerWithFaults('source-read:throw:always');
    const submitted = await submitRetryExport(queue, { deadlineInMs: 30_000, attempts: 2 });
    const job = await settle(submitted.id ?? '');
    expect(await job.getState()).toBe('failed');
    expect(job.failedReason).toBe('temporary source failure');
    expect((await readRetryEvidence(redis, queueName, submitted.id ?? '')).runs).toHaveLength(2);
  });

  it("When a job name has no handler, Then it fails once with the layer's unknown-job-name error", async () => {
    await startWorkerWithFaults('');
    const jobId = randomUUID();
    // A name this worker does not register, as an older or newer producer might send.
    await enqueue(
      queue,
      'export-pdf' as RetryJobName,
      { job_id: jobId, deadline_at: Date.now() + 30_000, category: 'samples' },
      { jobId, jobOptions: { attempts: 4 } },
    );
    const job = await settle(jobId);
    expect(await job.getState()).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/no processor registered for job name "export-pdf"/);
  });

  it('When the data does not match the job name, Then it fails once with invalid-job-data', async () => {
    await startWorkerWithFaults('');
    const jobId = randomUUID();
    await enqueue(queue, RETRY_EXPORT_JOB_NAME, { job_id: jobId } as RetryJobData, {
      jobId,
      jobOptions: { attempts: 4 },
    });
    const job = await settle(jobId);
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/^invalid export-snapshot job: deadline_at must be epoch milliseconds; category/);
  });
});
