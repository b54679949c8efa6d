// Lab 08's layer under lesson 09's worker: jobs are dispatched by name, an unknown name
// fails at once (never retried), and lesson 07's message contract holds on both sides.
import { readdir } from 'node:fs/promises';
import { faultPoints, MINUTE } from '@tasks-lab/lab-kit';
import { MessageContractError, sampleMessage, type ExportMessage } from '@tasks-lab/07-choosing-executors';
import { enqueue, openQueue, waitForFinalState } from '@tasks-lab/08-broker-worker';
import { describe, expect, it } from 'vitest';
import { withSandbox, type Sandbox } from '../scripts/scenarios.ts';
import { EXPORT_FAULT_POINTS, startExportWorker, type DeliveryResult } from '../src/export-worker.ts';
import { submitExport } from '../src/submit.ts';

/** An in-process export worker on the sandbox's queue, with no faults whatever the environment says. */
function startWorkerIn(sandbox: Sandbox) {
  const handle = startExportWorker({
    queueName: sandbox.address.queueName,
    artifactDir: sandbox.artifactDir,
    concurrency: 1,
    lockDurationMs: 30_000,
    stalledIntervalMs: 30_000,
    maxStalledCount: 1,
    faults: faultPoints(EXPORT_FAULT_POINTS, {}),
  });
  sandbox.res.add(handle, (h) => h.close());
  return handle;
}

describe('export worker dispatch', () => {
  it('When a job has a name the worker does not handle, Then it fails at once with the names it does handle, and is not retried', {
    timeout: MINUTE,
  }, async () => {
    await withSandbox('unknown-name', undefined, async (sandbox) => {
      startWorkerIn(sandbox);
      // A producer that is not ours: any job name goes.
      const anyName = sandbox.res.add(await openQueue<ExportMessage, DeliveryResult, string>(sandbox.address), (q) =>
        q.close(),
      );
      await enqueue(anyName, 'products.delete', sampleMessage(1), { jobId: 'delete-1', jobOptions: { attempts: 3 } });

      const { state, job } = await waitForFinalState(anyName, 'delete-1', { timeoutMs: 30_000 });
      expect(state).toBe('failed');
      expect(job.failedReason).toBe(
        'no processor registered for job name "products.delete"; this worker handles: products.export',
      );
      expect(job.attemptsMade).toBe(1);
      expect(await readdir(sandbox.artifactDir)).toEqual([]);
    });
  });

  it('When a message breaks the contract, Then submitExport refuses it before Redis', { timeout: MINUTE }, async () => {
    await withSandbox('contract-out', undefined, async (sandbox) => {
      const withPassword = { ...sampleMessage(1), password: 'hunter2' } as ExportMessage;

      await expect(submitExport(sandbox.queue, withPassword)).rejects.toBeInstanceOf(MessageContractError);
      expect(await sandbox.queue.count()).toBe(0);
    });
  });

  it('When a job that breaks the contract gets past the producer, Then the worker fails it and writes no file', {
    timeout: MINUTE,
  }, async () => {
    await withSandbox('contract-in', undefined, async (sandbox) => {
      startWorkerIn(sandbox);
      const withPassword = { ...sampleMessage(1), password: 'hunter2' } as ExportMessage;
      await enqueue(sandbox.queue, 'products.export', withPassword, { jobId: 'unchecked-1' });

      const { state, job } = await waitForFinalState(sandbox.queue, 'unchecked-1', { timeoutMs: 30_000 });
      expect(state).toBe('failed');
      expect(job.failedReason).toMatch(/field\(s\) not in the contract: password/);
      expect(await readdir(sandbox.artifactDir)).toEqual([]);
    });
  });
});
