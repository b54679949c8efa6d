// Two time limits, and what a timeout does not tell you. The batch has a deadline for the
// whole run, and each read has a limit of its own (READ_TIMEOUT_MS): one stuck read fails
// the batch on its own instead of holding a slot until the budget is gone. And giving up
// on a read stops only our waiting: the product service may already have acted on it.
import { describe, expect, it } from 'vitest';
import { MemoryJobStore } from '@tasks-lab/01-state-machine';
import { abortableDelay, BatchRecorder, runExportBatch, simulatedRead, type ReadProduct } from '../src/index.ts';

const ids = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

async function queuedJob(productIds: number[]) {
  const store = new MemoryJobStore();
  const job = await store.create(productIds);
  return { store, jobId: job.id };
}

/** Product 2's read never answers (until its signal aborts); the others take 10 ms. */
const hangsOnProduct2: ReadProduct = async (productId, signal) => {
  if (productId === 2) await abortableDelay(60_000, signal);
  return simulatedRead({ readDelayMs: 10 })(productId, signal);
};

describe('each read has its own time limit, beside the batch deadline', () => {
  it('When one read hangs, Then it fails on its own read timeout long before the batch deadline, and the job names the product [test:read-has-own-timeout]', async () => {
    const { store, jobId } = await queuedJob(ids(6));
    const started = Date.now();
    const expected = 'batch failed: product 2 read timed out after 200 ms';

    await expect(
      runExportBatch(store, jobId, { read: hangsOnProduct2, readTimeoutMs: 200, budgetMs: 10_000 }),
    ).rejects.toThrow(expected);

    expect(Date.now() - started).toBeLessThan(5_000); // the 10 s deadline never came into it
    expect(await store.require(jobId)).toMatchObject({ state: 'failed', result: null, error: expected });
  });

  it('When the batch deadline comes first, Then the batch reports the deadline, not a read timeout', async () => {
    const { store, jobId } = await queuedJob(ids(6));
    await expect(
      runExportBatch(store, jobId, { read: hangsOnProduct2, readTimeoutMs: 5_000, budgetMs: 150 }),
    ).rejects.toThrow('batch timed out after 150 ms');
  });
});

describe('a timeout on our side', () => {
  it('When the deadline aborts reads in flight, Then the product service had already received (and may have acted on) those requests [test:timeout-not-proof-of-no-effect]', async () => {
    const { store, jobId } = await queuedJob(ids(20));
    // The service acts the moment a request arrives (a log line, a counter, a reservation); the answer takes 100 ms.
    const actedOn: number[] = [];
    const service: ReadProduct = (productId, signal) => {
      actedOn.push(productId);
      return simulatedRead({ readDelayMs: 100 })(productId, signal);
    };
    const recorder = new BatchRecorder();

    await expect(
      runExportBatch(store, jobId, { read: service, budgetMs: 150, onEvent: recorder.record }),
    ).rejects.toThrow('batch timed out after 150 ms');

    const abortedByUs = recorder.events.flatMap((event) => (event.type === 'read-aborted' ? [event.productId] : []));
    expect(abortedByUs.length).toBeGreaterThanOrEqual(1);
    expect(actedOn).toEqual(expect.arrayContaining(abortedByUs));
  });
});
