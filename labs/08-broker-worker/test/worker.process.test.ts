// A real worker process (src/worker.ts) on a queue of its own, fed by this test.
import { existsSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { sampleMessage } from '@tasks-lab/07-choosing-executors';
import { startTsProcess, type LabProcess } from '@tasks-lab/lab-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, LAB_DIR } from '../src/artifacts.ts';
import { exportsAddress } from '../src/broker.ts';
import { enqueueExport, type ExportsQueue } from '../src/producer.ts';
import { enqueue, openQueue, waitForFinalState } from '../src/queue-layer.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

const queueName = uniqueQueueName('worker');
let queue: ExportsQueue;
let worker: LabProcess;

beforeAll(async () => {
  queue = await openQueue(exportsAddress(queueName));
  worker = startTsProcess('src/worker.ts', { cwd: LAB_DIR, env: { EXPORTS_QUEUE: queueName } });
  await worker.waitForOutput(/ready: queue/, 30_000);
});
afterAll(async () => {
  await worker?.kill('SIGKILL');
  await queue?.close();
  await obliterateQueues([queueName]);
});

describe('the worker process', () => {
  it('When it starts with brokerConnection(), Then it announces its queue, concurrency 2 and products.export, and Redis lists it [test:worker-ready-on-lab-broker]', async () => {
    expect(worker.output()).toMatch(
      new RegExp(`worker ${worker.pid} ready: queue ${queueName}, concurrency 2, registered: products.export`),
    );
    expect(await queue.getWorkersCount()).toBe(1);
  });

  it('When three snapshots are submitted, Then each completes under its own id with a file equal to its products', async () => {
    const messages = [sampleMessage(1), sampleMessage(2), sampleMessage(5)];
    await Promise.all(messages.map((m) => enqueueExport(queue, m)));
    for (const message of messages) {
      const { state, job } = await waitForFinalState(queue, message.job_id, { timeoutMs: 30_000 });
      expect(state).toBe('completed');
      expect(job.returnvalue).toMatchObject({
        job_id: message.job_id,
        rows: message.products.length,
        path: `artifacts/${message.job_id}.json`,
      });
      expect(JSON.parse(readFileSync(join(LAB_DIR, job.returnvalue.path), 'utf8'))).toEqual(message.products);
    }
  });

  it('When a job arrives whose data breaks the contract, Then it fails with the contract error and writes no file', async () => {
    // Bypasses the producer: what a producer that skips validation would put on the queue.
    const careless = await openQueue<unknown, unknown, string>(exportsAddress(queueName));
    try {
      const job = await enqueue(
        careless,
        'products.export',
        { job_id: '../escape', products: [] },
        { jobId: randomUUID() },
      );
      const { state, job: settled } = await waitForFinalState(careless, job.id ?? '', { timeoutMs: 30_000 });
      expect(state).toBe('failed');
      expect(settled.failedReason).toMatch(/breaks the contract/);
      expect(existsSync(join(ARTIFACTS_DIR, '../escape.json'))).toBe(false);
    } finally {
      await careless.close();
    }
  });

  it('When it gets SIGTERM, Then it closes cleanly (exit 0) and Redis no longer lists it', async () => {
    const exit = await worker.stop(10_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(worker.output()).toMatch(/SIGTERM: closing/);
    expect(await queue.getWorkersCount()).toBe(0);
  });
});

describe('a worker process with a bad option', () => {
  it('When WORKER_CONCURRENCY is 0, Then it exits 1 naming the variable and its bounds, before touching Redis', async () => {
    const bad = startTsProcess('src/worker.ts', {
      cwd: LAB_DIR,
      env: { EXPORTS_QUEUE: queueName, WORKER_CONCURRENCY: '0' },
    });
    const exit = await bad.exited;
    expect(exit.code).toBe(1);
    expect(bad.output()).toMatch(/WORKER_CONCURRENCY must be a whole number from 1 to 64, got "0"/);
    expect(bad.output()).not.toMatch(/ready/);
  });
});
