// Grades the try-it-yourself exercise: solutions/lookup.ts by default,
// exercise/lookup.ts with LAB_EXERCISE=student (pnpm lab 08 --exercise).
// Real Redis, a real BullMQ worker (in this process, writing to a temporary folder).
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleMessage } from '@tasks-lab/07-choosing-executors';
import { loadExercise } from '@tasks-lab/lab-kit';
import type { QueueEvents, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportHandlers, startExportWorker } from '../src/export-worker.ts';
import { enqueueExport, openExportsEvents, openExportsQueue } from '../src/producer.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const { lookupExport } = await loadExercise<typeof import('../solutions/lookup.ts')>(import.meta.url, 'lookup.ts');

const queueName = uniqueQueueName('exercise');
const queue = openExportsQueue(queueName);
const artifactsDir = mkdtempSync(join(tmpdir(), 'lab08-exercise-'));
let events: QueueEvents;
let worker: Worker | undefined;

beforeAll(async () => {
  events = openExportsEvents(queueName);
  await events.waitUntilReady();
});
afterAll(async () => {
  await worker?.close();
  await events.close();
  await queue.close();
  await obliterateQueues([queueName]);
  rmSync(artifactsDir, { recursive: true, force: true });
});

describe('lookupExport', () => {
  it('When the id was never submitted, Then the answer is "unknown", not "waiting"', async () => {
    const id = randomUUID();
    expect(await lookupExport(queue, id)).toEqual({ state: 'unknown', jobId: id });
  });

  it('When no worker runs and the wait ran out, Then the same id is still pending (waiting)', async () => {
    const message = sampleMessage(1);
    await enqueueExport(queue, message);
    expect(await lookupExport(queue, message.job_id)).toEqual({ state: 'pending', jobId: message.job_id, detail: 'waiting' });
  });

  it('When a worker starts later and finishes, Then the same id answers "completed" with the path and row count', async () => {
    const message = sampleMessage(2);
    const job = await enqueueExport(queue, message);
    worker = startExportWorker({ queueName, handlers: exportHandlers({ artifactsDir }) });
    await job.waitUntilFinished(events, 30_000);
    const answer = await lookupExport(queue, message.job_id);
    expect(answer.state).toBe('completed');
    expect(answer).toMatchObject({ jobId: message.job_id, result: { job_id: message.job_id, rows: 2 } });
  });

  it('When the job failed, Then the answer carries the reason', async () => {
    const job = await queue.add('products.unknown' as string, sampleMessage(1), { jobId: randomUUID() });
    await job.waitUntilFinished(events, 30_000).catch(() => undefined);
    const answer = await lookupExport(queue, job.id!);
    expect(answer).toMatchObject({ state: 'failed', reason: expect.stringMatching(/no processor registered/) });
  });
});
