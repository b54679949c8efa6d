// How the worker decides what to run: the dispatcher (queue-layer's createProcessor),
// the products.export handler's second contract check, and what BullMQ does with a
// refusal (a real worker in this process, on the real Redis).
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageContractError, sampleMessage, type ExportMessage } from '@tasks-lab/07-choosing-executors';
import { UnrecoverableError, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArtifactResult } from '../src/artifacts.ts';
import { exportsAddress, type ExportJobName } from '../src/broker.ts';
import { exportHandlers, exportProductsHandler, startExportWorker, type ExportsWorker } from '../src/export-worker.ts';
import { createProcessor, enqueue, openQueue, UnknownJobNameError, waitForFinalState } from '../src/queue-layer.ts';
import { obliterateQueues, uniqueQueueName } from './queues.ts';

// The dispatcher reads only a job's name, the handler only its data: a plain object with those is enough here.
const namedJob = (name: string) => ({ name, data: {} }) as unknown as Job<unknown, string, string>;
const exportJob = (data: unknown) =>
  ({ name: 'products.export', data }) as unknown as Job<ExportMessage, ArtifactResult, ExportJobName>;

let artifactsDir: string;
beforeAll(() => {
  artifactsDir = mkdtempSync(join(tmpdir(), 'lab08-dispatch-'));
});
afterAll(() => rmSync(artifactsDir, { recursive: true, force: true }));

describe('createProcessor', () => {
  it('When a job name is registered, Then its handler runs and its value is the result', async () => {
    const processor = createProcessor<unknown, string, string>({ 'products.export': async () => 'done' });
    await expect(processor(namedJob('products.export'))).resolves.toBe('done');
  });

  it('When a job name is not registered, Then it is refused as unrecoverable, naming what the worker handles', async () => {
    const processor = createProcessor<unknown, string, string>({ 'products.export': async () => 'done' });
    const refusal = processor(namedJob('products.exprot'));
    await expect(refusal).rejects.toBeInstanceOf(UnknownJobNameError);
    await expect(refusal).rejects.toBeInstanceOf(UnrecoverableError);
    await expect(refusal).rejects.toMatchObject({
      code: 'unknown-job-name',
      name: 'UnknownJobNameError',
      jobName: 'products.exprot',
    });
    await expect(refusal).rejects.toThrow(
      'no processor registered for job name "products.exprot"; this worker handles: products.export',
    );
  });

  it('When the name is an inherited object property, Then it is not mistaken for a handler', async () => {
    const processor = createProcessor<unknown, string, string>({});
    await expect(processor(namedJob('toString'))).rejects.toBeInstanceOf(UnknownJobNameError);
  });
});

describe('the products.export handler', () => {
  const handler = () => exportProductsHandler<ExportJobName>({ artifactsDir });

  it('When the message keeps the contract, Then it writes the file and describes it', async () => {
    const message = sampleMessage(2);
    const result = await handler()(exportJob(message));
    expect(result).toMatchObject({ job_id: message.job_id, rows: 2 });
    expect(readdirSync(artifactsDir)).toContain(`${message.job_id}.json`);
  });

  const broken: Array<[string, unknown]> = [
    ['a credential field', { ...sampleMessage(1), password: 'not-a-real-secret' }],
    ['a path-like id', { ...sampleMessage(1), job_id: '../../etc/passwd' }],
    ['a float price', { ...sampleMessage(1), products: [{ ...sampleMessage(1).products[0], price_cents: 12.5 }] }],
    ['no products', { job_id: randomUUID(), products: [] }],
  ];
  for (const [what, data] of broken) {
    it(`When a job that skipped the producer carries ${what}, Then the handler refuses it with the contract error and writes nothing`, async () => {
      const before = readdirSync(artifactsDir).length;
      await expect(handler()(exportJob(data))).rejects.toBeInstanceOf(MessageContractError);
      expect(readdirSync(artifactsDir)).toHaveLength(before);
    });
  }
});

describe('a refusal in a real worker', () => {
  const queueName = uniqueQueueName('dispatch');
  let worker: ExportsWorker | undefined;
  afterAll(async () => {
    await worker?.close();
    await obliterateQueues([queueName]);
  });

  it('When a job has an unknown name and 3 attempts, Then it fails after 1 attempt (no retry) with the refusal as its reason [test:unknown-name-not-retried]', async () => {
    worker = startExportWorker({ queueName, handlers: exportHandlers({ artifactsDir }) });
    await worker.waitUntilReady();
    // A producer that names jobs freely: what an outdated or mistyped one would send.
    const careless = await openQueue<unknown, unknown, string>(exportsAddress(queueName));
    try {
      const job = await enqueue(careless, 'products.unknown', sampleMessage(1), {
        jobId: randomUUID(),
        jobOptions: { attempts: 3 },
      });
      const { state, job: settled } = await waitForFinalState(careless, job.id ?? '', { timeoutMs: 30_000 });
      expect(state).toBe('failed');
      expect(settled.attemptsMade).toBe(1);
      expect(settled.failedReason).toBe(
        'no processor registered for job name "products.unknown"; this worker handles: products.export',
      );

      const bypassed = await enqueue(
        careless,
        'products.export',
        { ...sampleMessage(1), password: 'x' },
        { jobId: randomUUID() },
      );
      const refused = await waitForFinalState(careless, bypassed.id ?? '', { timeoutMs: 30_000 });
      expect(refused.state).toBe('failed');
      expect(refused.job.failedReason).toMatch(/breaks the contract: .*password/);
      expect(existsSync(join(artifactsDir, `${(bypassed.data as ExportMessage).job_id}.json`))).toBe(false);
    } finally {
      await careless.close();
    }
  });
});
