// A check that cannot fail proves nothing. Each test below feeds the verify checks
// a deliberately broken variant (through buildChecks' deps) and expects the check
// that guards against that mistake to fail.
import { describe, expect, it } from 'vitest';
import { runCheck, type Check } from '@tasks-lab/lab-kit';
import { buildChecks, type CheckDeps } from '../scripts/checks.ts';
import {
  BATCH_DEFAULTS,
  BatchTimeoutError,
  collectProducts,
  simulatedRead,
  withDeadline,
  type Consumer,
  type Product,
  type ReadProduct,
  type RunExportBatch,
} from '../src/index.ts';

async function runNamed(deps: CheckDeps, nameStart: string) {
  const check: Check | undefined = buildChecks(deps).find((candidate) => candidate.name.startsWith(nameStart));
  if (!check) throw new Error(`no check starts with "${nameStart}"`);
  return runCheck(check);
}

/** Broken: the consumer logs its close after the loop instead of in `finally`, so only a drained consumer logs it. */
const consumerWithoutFinally: Consumer = async ({ consumer, queue, readOne, signal, emit }) => {
  for (;;) {
    const productId = await queue.get(signal);
    if (productId === undefined) break;
    await readOne(productId);
  }
  emit({ type: 'consumer-closed', consumer, reason: 'drained' });
};

/** Broken: a read whose timer ignores the abort signal, so it keeps running after the batch gave up. */
const readIgnoringSignal = (readDelayMs: number): ReadProduct => async (productId) => {
  await new Promise((resolve) => setTimeout(resolve, readDelayMs));
  return { id: productId, name: `Product ${productId}`, description: 'teaching sample', isActive: false, priceCents: 0 };
};

/** Broken: on timeout it keeps the products read so far and reports them as a completed export. */
const partialOnTimeout: RunExportBatch = async (store, jobId, options = {}) => {
  const { budgetMs = BATCH_DEFAULTS.budgetMs, read = simulatedRead(), ...rest } = options;
  const job = store.require(jobId);
  store.transition(jobId, 'running');
  const collected: Product[] = [];
  const keep: ReadProduct = async (productId, signal) => {
    const product = await read(productId, signal);
    collected.push(product);
    return product;
  };
  try {
    await withDeadline(budgetMs, (signal) => collectProducts(job.productIds, { ...rest, read: keep, signal }));
  } catch (err) {
    if (!(err instanceof BatchTimeoutError)) throw err; // the bug: a timeout is swallowed
  }
  store.transition(jobId, 'succeeded', { result: { rows: collected.length } });
  return collected;
};

describe('verify checks can fail', () => {
  it('When nothing is broken, Then the peak check passes (the baseline for the tests below)', async () => {
    const result = await runNamed({}, 'At most 2 product reads');
    expect(result.ok, result.observed).toBe(true);
  });

  it('When the limiter allows 3 reads instead of 2, Then the peak check fails', async () => {
    const result = await runNamed({ batch: { readConcurrency: 3 } }, 'At most 2 product reads');
    expect(result.ok).toBe(false);
    expect(result.observed).toContain('peak reads in flight 3');
  });

  it('When the queue is unbounded, Then the queue check fails', async () => {
    const result = await runNamed({ batch: { queueCapacity: Infinity } }, 'The queue never holds more than 4');
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/waited for space 0 times/);
  });

  it('When the batch reports partial results on timeout, Then the "no partial result" and "batch timed out" checks fail', async () => {
    const partial = await runNamed({ runBatch: partialOnTimeout }, 'A timed-out batch reports no partial result');
    expect(partial.ok).toBe(false);
    expect(partial.observed).toMatch(/returned \d+ products; job succeeded/);
    const timedOut = await runNamed({ runBatch: partialOnTimeout }, 'A 150 ms budget rejects the batch');
    expect(timedOut.ok).toBe(false);
  });

  it('When consumers do not log their close in finally, Then both "consumers closed" checks fail', async () => {
    const deps: CheckDeps = { batch: { consumer: consumerWithoutFinally } };
    const afterTimeout = await runNamed(deps, 'After the timeout all 4 consumers have closed');
    expect(afterTimeout.ok).toBe(false);
    expect(afterTimeout.observed).toMatch(/^0 of 4 consumers closed/);
    const afterFailure = await runNamed(deps, 'All 4 consumers close when a product fails');
    expect(afterFailure.ok).toBe(false);
  });

  it('When a read ignores the abort signal, Then the "reads in flight are aborted" check fails', async () => {
    const result = await runNamed({ makeRead: readIgnoringSignal }, 'After product 3 fails, reads in flight are aborted');
    expect(result.ok).toBe(false);
    expect(result.observed).toMatch(/0 aborted/);
  });
});
