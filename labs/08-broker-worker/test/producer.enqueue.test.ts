// The producer against the real lab Redis, with no worker: what reaches the queue,
// under which id, with which retention, and what a wait that runs out says.
import { messageOfSize, MAX_MESSAGE_BYTES, MessageContractError, sampleMessage } from '@tasks-lab/07-choosing-executors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueEvents } from 'bullmq';
import { RESULT_RETENTION } from '../src/broker.ts';
import { enqueueExport, openExportsEvents, openExportsQueue, ResultTimeoutError, waitForExportResult } from '../src/producer.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const queueName = uniqueQueueName('producer');
const queue = openExportsQueue(queueName);
let events: QueueEvents;

beforeAll(async () => {
  events = openExportsEvents(queueName);
  await events.waitUntilReady();
});
afterAll(async () => {
  await events.close();
  await queue.close();
  await obliterateQueues([queueName]);
});

describe('enqueueExport', () => {
  it('When a valid message is submitted, Then the BullMQ job id is the business job_id and it waits', async () => {
    const message = sampleMessage(2);
    const job = await enqueueExport(queue, message);
    expect(job.id).toBe(message.job_id);
    expect(job.name).toBe('products.export');
    expect(await queue.getJobState(message.job_id)).toBe('waiting');
    expect((await queue.getJob(message.job_id))?.data).toEqual(message);
  });

  it('When a job is stored, Then it carries removeOnComplete age 3600 and a longer removeOnFail', async () => {
    const job = await enqueueExport(queue, sampleMessage(1));
    const stored = await queue.getJob(job.id!);
    expect(stored?.opts.removeOnComplete).toEqual(RESULT_RETENTION.removeOnComplete);
    expect(stored?.opts.removeOnFail).toEqual({ age: 86_400 });
  });

  it('When the same business id is submitted twice, Then BullMQ silently keeps the first job (no error, no second job)', async () => {
    const first = sampleMessage(1);
    const second = { ...sampleMessage(3), job_id: first.job_id };
    await enqueueExport(queue, first);
    await expect(enqueueExport(queue, second)).resolves.toBeDefined();
    expect((await queue.getJob(first.job_id))?.data.products).toHaveLength(1);
  });

  it('When a message breaks the contract, Then it is refused before Redis and the queue does not grow', async () => {
    const before = await queue.count();
    await expect(enqueueExport(queue, { ...sampleMessage(1), db_url: 'redis://x' })).rejects.toBeInstanceOf(MessageContractError);
    await expect(enqueueExport(queue, messageOfSize(MAX_MESSAGE_BYTES))).rejects.toThrow(/must be smaller than/);
    await expect(enqueueExport(queue, { ...sampleMessage(1), job_id: '../x' })).rejects.toThrow(/job_id/);
    expect(await queue.count()).toBe(before);
  });
});

describe('waitForExportResult', () => {
  it('When no worker runs, Then the wait ends with "no result within N s; the job is still waiting" and the job stays', async () => {
    const job = await enqueueExport(queue, sampleMessage(1));
    const started = Date.now();
    const error = await waitForExportResult(job, events, 300).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ResultTimeoutError);
    expect((error as Error).message).toBe(`no result within 0.3 s; the job is still waiting (id ${job.id})`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(await queue.getJobState(job.id!)).toBe('waiting');
  });
});
