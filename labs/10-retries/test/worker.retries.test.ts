// Integration: a real BullMQ Worker (in this process) on the lab's Redis, with short timings.
import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { labPrefix, redisOptions } from '@tasks-lab/infra';
import { waitFor } from '@tasks-lab/lab-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryLabConnection } from '../src/connection.ts';
import { readRetryEvidence } from '../src/execution-log.ts';
import { submitRetryExport } from '../src/submit.ts';
import { startRetryWorker, type RunningRetryWorker } from '../src/worker.ts';

const queueName = `retries-test-${randomUUID()}`;
let queue: Queue;
let running: RunningRetryWorker;
let redis: Redis;

beforeAll(async () => {
  queue = new Queue(queueName, { connection: retryLabConnection(), prefix: labPrefix('10') });
  redis = new Redis(redisOptions());
  running = await startRetryWorker({
    queueName,
    policy: { backoffBaseMs: 20, backoffCapMs: 100, minWorkMs: 50 },
    softTimeLimitMs: 500,
    hardTimeLimitMs: 1500,
  });
});
afterAll(async () => {
  await running.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await redis.quit();
});

const settle = (jobId: string): Promise<Job> =>
  waitFor(`job ${jobId} to finish`, async () => {
    // State first, then the job, so its fields are read after it finished.
    const state = await queue.getJobState(jobId);
    return (state === 'completed' || state === 'failed') && (await queue.getJob(jobId));
  }, { timeoutMs: 20_000 });

describe('worker: retries on a real queue', () => {
  it('When a job fails once then succeeds, Then it completes after 2 runs and keeps its deadline_at', async () => {
    const submitted = await submitRetryExport(queue, { failUntil: 1, deadlineInMs: 30_000 });
    const job = await settle(submitted.id!);
    expect(await job.getState()).toBe('completed');
    expect(job.attemptsMade).toBe(2);
    expect(job.data.deadline_at).toBe(submitted.data.deadline_at);
    expect((await readRetryEvidence(redis, queueName, submitted.data.job_id)).runs.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it('When a job is submitted with attempts 2 and always fails, Then BullMQ stops after 2 runs', async () => {
    const submitted = await submitRetryExport(queue, { failUntil: 99, deadlineInMs: 30_000, attempts: 2 });
    const job = await settle(submitted.id!);
    expect(await job.getState()).toBe('failed');
    expect((await readRetryEvidence(redis, queueName, submitted.data.job_id)).runs).toHaveLength(2);
  });
});
