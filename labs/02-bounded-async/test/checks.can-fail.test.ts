// A check that cannot fail proves nothing. Each case breaks one real part of the batch
// (passed through buildChecks' deps), runs the check's experiment for real, and
// expects that check to fail. The last case proves every check has such a case.
import { describe } from 'vitest';
import { canFailSuite } from '@tasks-lab/lab-kit/testing';
import { buildChecks, type CheckDeps } from '../scripts/checks.ts';
import {
  BATCH_DEFAULTS,
  BatchTimeoutError,
  collectProducts,
  runExportBatch,
  simulatedRead,
  withDeadline,
  type Consumer,
  type Product,
  type ReadProduct,
  type RunExportBatch,
} from '../src/index.ts';

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
const readIgnoringSignal =
  (readDelayMs: number): ReadProduct =>
  async (productId) => {
    await new Promise((resolve) => setTimeout(resolve, readDelayMs));
    return {
      id: productId,
      name: `Product ${productId}`,
      description: 'teaching sample',
      isActive: false,
      priceCents: 0,
    };
  };

/** `read`, plus a list of the products in the order their reads finished. */
function keepArrivals(read: ReadProduct): { read: ReadProduct; arrived: Product[] } {
  const arrived: Product[] = [];
  return {
    arrived,
    read: async (productId, signal) => {
      const product = await read(productId, signal);
      arrived.push(product);
      return product;
    },
  };
}

/** Broken: returns the products in the order their reads finished, not in the job's order. */
const arrivalOrder: RunExportBatch = async (store, jobId, options = {}) => {
  const { read, arrived } = keepArrivals(options.read ?? simulatedRead());
  await runExportBatch(store, jobId, { ...options, read });
  return arrived;
};

/** Broken: on timeout it keeps the products read so far and reports them as a completed export. */
const partialOnTimeout: RunExportBatch = async (store, jobId, options = {}) => {
  const { budgetMs = BATCH_DEFAULTS.budgetMs, ...rest } = options;
  const { read, arrived } = keepArrivals(options.read ?? simulatedRead());
  const job = await store.transition(jobId, 'running');
  try {
    await withDeadline(budgetMs, (signal) => collectProducts(job.productIds, { ...rest, read, signal }));
  } catch (err) {
    if (!(err instanceof BatchTimeoutError)) throw err; // the bug: a timeout is swallowed
  }
  await store.transition(jobId, 'succeeded', { result: { rows: arrived.length } });
  return arrived;
};

/** Broken: a failed batch is never written to the job, which stays `running` for ever. */
const forgetsFailure: RunExportBatch = async (store, jobId, options = {}) => {
  const { budgetMs = BATCH_DEFAULTS.budgetMs, ...rest } = options;
  const job = await store.transition(jobId, 'running');
  const products = await withDeadline(budgetMs, (signal) => collectProducts(job.productIds, { ...rest, signal }));
  await store.transition(jobId, 'succeeded', { result: { rows: products.length } });
  return products;
};

/**
 * Broken, and only on the timeout path: when the budget looks too short for the batch at
 * its limits, it lifts them "to make the deadline". Every normal-path check still passes
 * (a 3000 ms budget is enough), which is why the limits are judged on the failure paths too.
 */
const rushesNearDeadline: RunExportBatch = async (store, jobId, options = {}) => {
  const { budgetMs = BATCH_DEFAULTS.budgetMs, readConcurrency = BATCH_DEFAULTS.readConcurrency } = options;
  const { productIds } = await store.require(jobId);
  const neededMs = (productIds.length / readConcurrency) * BATCH_DEFAULTS.readDelayMs;
  const rush = neededMs > budgetMs ? { readConcurrency: productIds.length, queueCapacity: Infinity } : {};
  return runExportBatch(store, jobId, { ...options, ...rush });
};

describe('the lesson 02 checks can fail', () => {
  const suite = canFailSuite<CheckDeps>(buildChecks);

  suite.breaks(
    'batch-completes-in-order',
    'the batch returns products in the order their reads finished',
    () => ({ runBatch: arrivalOrder }),
    {
      observed: /out of order/,
    },
  );
  suite.breaks(
    'reads-at-once-limited',
    'the limiter allows 3 reads instead of 2',
    () => ({ batch: { readConcurrency: 3 } }),
    {
      observed: /peak reads in flight 3/,
    },
  );
  suite.breaks('queue-bounded', 'the queue is unbounded', () => ({ batch: { queueCapacity: Infinity } }), {
    observed: /waited for space 0 times/,
  });
  suite.breaks(
    'timeout-fails-job',
    'a failed batch is never written to the job',
    () => ({ runBatch: forgetsFailure }),
    {
      observed: /job running/,
    },
  );
  suite.breaks(
    'timeout-closes-consumers',
    'consumers log their close after the loop instead of in finally',
    () => ({
      batch: { consumer: consumerWithoutFinally },
    }),
    { observed: /^0 of 4 consumers closed/ },
  );
  suite.breaks(
    'timeout-no-partial-result',
    'the batch swallows the timeout and reports the products read so far',
    () => ({
      runBatch: partialOnTimeout,
    }),
    { observed: /returned \d+ products; job succeeded/ },
  );
  suite.breaks(
    'timeout-keeps-limits',
    'the batch lifts its limits when the budget looks too short',
    () => ({ runBatch: rushesNearDeadline }),
    {
      observed: /peak reads in flight 4 \(limit 2\), longest queue (\d{2}|[5-9]) /,
    },
  );
  suite.breaks(
    'timeout-keeps-limits',
    'the limiter allows 3 reads instead of 2',
    () => ({ batch: { readConcurrency: 3 } }),
    {
      observed: /peak reads in flight 3 /,
    },
  );
  suite.breaks('timeout-keeps-limits', 'the queue is unbounded', () => ({ batch: { queueCapacity: Infinity } }), {
    observed: /longest queue (\d{2}|[5-9]) /,
  });
  suite.breaks(
    'failing-product-fails-job',
    'a failed batch is never written to the job',
    () => ({ runBatch: forgetsFailure }),
    {
      observed: /job running/,
    },
  );
  suite.breaks('failure-aborts-reads', 'a read ignores the abort signal', () => ({ makeRead: readIgnoringSignal }), {
    observed: /0 aborted/,
  });
  suite.breaks('failure-closes-consumers', 'consumers log their close after the loop instead of in finally', () => ({
    batch: { consumer: consumerWithoutFinally },
  }));

  suite.breaks(
    'failure-keeps-limits',
    'the limiter allows 3 reads instead of 2',
    () => ({ batch: { readConcurrency: 3 } }),
    {
      observed: /peak reads in flight 3 /,
    },
  );
  suite.breaks('failure-keeps-limits', 'the queue is unbounded', () => ({ batch: { queueCapacity: Infinity } }), {
    observed: /longest queue (\d{2}|[5-9]) /,
  });

  suite.coversEveryCheck();
});
