// A real worker process (src/worker.ts) on a queue of its own, fed by this test.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sampleMessage } from '@tasks-lab/07-choosing-executors';
import { startTsProcess, type LabProcess } from '@tasks-lab/lab-kit';
import type { QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAB_DIR } from '../src/artifacts.ts';
import { enqueueExport, openExportsEvents, openExportsQueue } from '../src/producer.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const queueName = uniqueQueueName('worker');
const queue = openExportsQueue(queueName);
let events: QueueEvents;
let worker: LabProcess;

beforeAll(async () => {
  events = openExportsEvents(queueName);
  await events.waitUntilReady();
  worker = startTsProcess('src/worker.ts', { cwd: LAB_DIR, env: { EXPORTS_QUEUE: queueName } });
  await worker.waitForOutput(/ready: queue/, 30_000);
});
afterAll(async () => {
  await worker?.kill('SIGKILL');
  await events.close();
  await queue.close();
  await obliterateQueues([queueName]);
});

describe('the worker process', () => {
  it('When it starts, Then it announces its queue, concurrency 2 and products.export, and Redis lists it', async () => {
    expect(worker.output()).toMatch(new RegExp(`worker ${worker.pid} ready: queue ${queueName}, concurrency 2, registered: products.export`));
    expect(await queue.getWorkersCount()).toBe(1);
  });

  it('When three snapshots are submitted, Then each completes under its own id with a file equal to its products', async () => {
    const messages = [sampleMessage(1), sampleMessage(2), sampleMessage(5)];
    const jobs = await Promise.all(messages.map((m) => enqueueExport(queue, m)));
    const results = await Promise.all(jobs.map((job) => job.waitUntilFinished(events, 30_000)));
    results.forEach((result, i) => {
      const message = messages[i];
      expect(result).toMatchObject({ job_id: message.job_id, rows: message.products.length, path: `artifacts/${message.job_id}.json` });
      expect(JSON.parse(readFileSync(join(LAB_DIR, result.path), 'utf8'))).toEqual(message.products);
    });
  });

  it('When a job arrives whose data breaks the contract, Then it fails with the contract error and writes no file', async () => {
    // Bypasses the producer: what a producer that skips validation would put on the queue.
    const job = await queue.add('products.export', { job_id: '../escape', products: [] } as never);
    await expect(job.waitUntilFinished(events, 30_000)).rejects.toThrow(/breaks the contract/);
    expect(existsSync(join(LAB_DIR, 'escape.json'))).toBe(false);
  });

  it('When it gets SIGTERM, Then it closes cleanly (exit 0) and Redis no longer lists it', async () => {
    const exit = await worker.kill('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(await queue.getWorkersCount()).toBe(0);
  });
});
