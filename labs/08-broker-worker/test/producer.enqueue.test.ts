// The producer against the real lab Redis, with no worker: what reaches the queue,
// under which id, with which retention, and what a wait that runs out says.
import {
  messageOfSize,
  MAX_MESSAGE_BYTES,
  MessageContractError,
  sampleMessage,
} from '@tasks-lab/07-choosing-executors';
import type { QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArtifactResult } from '../src/artifacts.ts';
import { exportsAddress, RESULT_RETENTION } from '../src/broker.ts';
import { enqueueExport, type ExportsQueue } from '../src/producer.ts';
import { enqueue, openQueue, openQueueEvents, ResultTimeoutError, waitForResult } from '../src/queue-layer.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const queueName = uniqueQueueName('producer');
let queue: ExportsQueue;
let events: QueueEvents<ArtifactResult>;

beforeAll(async () => {
  queue = await openQueue(exportsAddress(queueName));
  events = await openQueueEvents<ArtifactResult>(exportsAddress(queueName));
});
afterAll(async () => {
  await events?.close();
  await queue?.close();
  await obliterateQueues([queueName]);
});

describe('enqueueExport', () => {
  it('When a valid message is submitted with no worker running, Then enqueue returns at once with the business job_id as the BullMQ id, and the job waits [test:submit-returns-without-waiting]', async () => {
    const message = sampleMessage(2);
    const job = await enqueueExport(queue, message);
    expect(job.id).toBe(message.job_id);
    expect(job.name).toBe('products.export');
    expect(await queue.getJobState(message.job_id)).toBe('waiting');
    expect((await queue.getJob(message.job_id))?.data).toEqual(message);
  });

  it('When a job is stored, Then it carries removeOnComplete age 3600 and a longer removeOnFail', async () => {
    const job = await enqueueExport(queue, sampleMessage(1));
    const stored = await queue.getJob(job.id ?? '');
    expect(stored?.opts.removeOnComplete).toEqual(RESULT_RETENTION.removeOnComplete);
    expect(stored?.opts.removeOnFail).toEqual({ age: 86_400 });
  });

  it('When a message breaks the contract, Then it is refused before Redis and the queue does not grow', async () => {
    const before = await queue.count();
    await expect(enqueueExport(queue, { ...sampleMessage(1), db_url: 'redis://x' })).rejects.toBeInstanceOf(
      MessageContractError,
    );
    await expect(enqueueExport(queue, messageOfSize(MAX_MESSAGE_BYTES))).rejects.toThrow(/must be smaller than/);
    await expect(enqueueExport(queue, { ...sampleMessage(1), job_id: '../x' })).rejects.toThrow(/job_id/);
    expect(await queue.count()).toBe(before);
  });
});

describe('enqueue (the layer)', () => {
  for (const jobId of ['exports:1', '42']) {
    it(`When the job id is ${JSON.stringify(jobId)}, Then it is refused before Redis (BullMQ would misread it)`, async () => {
      const before = await queue.count();
      await expect(enqueue(queue, 'products.export', sampleMessage(1), { jobId })).rejects.toThrow(
        /must not contain ':' or be a plain integer/,
      );
      expect(await queue.count()).toBe(before);
    });
  }

  it('When a validator is given, Then it runs before Redis and its refusal stops the add', async () => {
    const before = await queue.count();
    const refuse = () => {
      throw new Error('refused by the validator');
    };
    await expect(
      enqueue(queue, 'products.export', sampleMessage(1), { jobId: 'refused-job', validate: refuse }),
    ).rejects.toThrow('refused by the validator');
    expect(await queue.count()).toBe(before);
  });
});

describe('waitForResult', () => {
  it('When no worker runs, Then the wait ends with "no result within N s; the job is still waiting" and the job stays', async () => {
    const job = await enqueueExport(queue, sampleMessage(1));
    const started = Date.now();
    const error = await waitForResult(job, events, 300).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ResultTimeoutError);
    expect((error as ResultTimeoutError).code).toBe('result-timeout');
    expect((error as Error).message).toBe(`no result within 0.3 s; the job is still waiting (id ${job.id})`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(await queue.getJobState(job.id ?? '')).toBe('waiting');
  });

  it("When the wait is longer than Node's timer limit (2^31-1 ms), Then it is refused at once instead of firing early and claiming it waited [test:wait-over-timer-limit-refused]", async () => {
    const job = await enqueueExport(queue, sampleMessage(1));
    const error = await waitForResult(job, events, 2 ** 31).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toMatch(
      /wait must be a whole number of milliseconds from 1 to 2147483647, got 2147483648/,
    );
    expect(await queue.getJobState(job.id ?? '')).toBe('waiting');
  });
});
