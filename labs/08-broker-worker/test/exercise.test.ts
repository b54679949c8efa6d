// Grades the try-it-yourself exercise: solutions/lookup.ts by default,
// exercise/lookup.ts with LAB_EXERCISE=student (pnpm lab 08 --exercise).
// Real Redis, a real BullMQ worker (in this process, writing to a temporary folder).
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleMessage } from '@tasks-lab/07-choosing-executors';
import { loadExercise } from '@tasks-lab/lab-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportsAddress } from '../src/broker.ts';
import { exportHandlers, startExportWorker, type ExportsWorker } from '../src/export-worker.ts';
import { enqueueExport, type ExportsQueue } from '../src/producer.ts';
import { enqueue, openQueue, waitForFinalState } from '../src/queue-layer.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const { lookupExport } = await loadExercise<typeof import('../solutions/lookup.ts')>(import.meta.url, 'lookup.ts');

const queueName = uniqueQueueName('exercise');
const artifactsDir = mkdtempSync(join(tmpdir(), 'lab08-exercise-'));
let queue: ExportsQueue;
let worker: ExportsWorker | undefined;

beforeAll(async () => {
  queue = await openQueue(exportsAddress(queueName));
});
afterAll(async () => {
  await worker?.close();
  await queue?.close();
  await obliterateQueues([queueName]);
  rmSync(artifactsDir, { recursive: true, force: true });
});

describe('lookupExport', () => {
  it('When the id was never submitted, Then the answer is "unknown", not "waiting" [test:lookup-unknown-id]', async () => {
    const id = randomUUID();
    expect(await lookupExport(queue, id)).toEqual({ state: 'unknown', jobId: id });
  });

  it('When no worker runs and the wait ran out, Then the same id is still pending (waiting) [test:lookup-pending-while-stopped]', async () => {
    const message = sampleMessage(1);
    await enqueueExport(queue, message);
    expect(await lookupExport(queue, message.job_id)).toEqual({
      state: 'pending',
      jobId: message.job_id,
      detail: 'waiting',
    });
  });

  it('When a worker starts later and finishes, Then the same id answers "completed" with the path and row count [test:lookup-completed-same-id]', async () => {
    const message = sampleMessage(2);
    await enqueueExport(queue, message);
    worker = startExportWorker({ queueName, handlers: exportHandlers({ artifactsDir }) });
    await waitForFinalState(queue, message.job_id, { timeoutMs: 30_000 });
    const answer = await lookupExport(queue, message.job_id);
    expect(answer.state).toBe('completed');
    expect(answer).toMatchObject({ jobId: message.job_id, result: { job_id: message.job_id, rows: 2 } });
  });

  it('When the job failed, Then the answer carries the reason [test:lookup-failed-reason]', async () => {
    // A job name no worker handles, added the way an outdated producer would.
    const careless = await openQueue<unknown, unknown, string>(exportsAddress(queueName));
    const jobId = randomUUID();
    try {
      await enqueue(careless, 'products.unknown', sampleMessage(1), { jobId });
      await waitForFinalState(careless, jobId, { timeoutMs: 30_000 });
    } finally {
      await careless.close();
    }
    const answer = await lookupExport(queue, jobId);
    expect(answer).toMatchObject({ state: 'failed', reason: expect.stringMatching(/no processor registered/) });
  });
});
