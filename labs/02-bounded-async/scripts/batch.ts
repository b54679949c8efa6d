// Runs one export batch of 20 products and prints what happened.
//   pnpm batch                      normal run: completed 20
//   pnpm drill:timeout              --budget-ms 150: the deadline stops the batch
//   pnpm drill:fail-item            --fail-product 3: one bad product stops the batch
import { parseArgs } from 'node:util';
import {
  BATCH_DEFAULTS,
  BatchRecorder,
  failingOn,
  JobStore,
  runExportBatch,
  simulatedRead,
  type BatchEvent,
} from '../src/index.ts';

const { values } = parseArgs({
  options: {
    'budget-ms': { type: 'string', default: String(BATCH_DEFAULTS.budgetMs) },
    'fail-product': { type: 'string' },
    products: { type: 'string', default: '20' },
  },
});
const budgetMs = Number(values['budget-ms']);
const productCount = Number(values.products);
const failProduct = values['fail-product'] === undefined ? undefined : Number(values['fail-product']);

const recorder = new BatchRecorder();
const onEvent = (event: BatchEvent) => {
  recorder.record(event);
  if (event.type === 'consumer-closed') console.log(`consumer ${event.consumer} closed (${event.reason})`);
};
const read = simulatedRead({ readDelayMs: BATCH_DEFAULTS.readDelayMs });

const store = new JobStore();
const job = store.create(Array.from({ length: productCount }, (_, index) => index + 1));
const { consumers, queueCapacity, readConcurrency } = BATCH_DEFAULTS;
console.log(
  `batch of ${productCount} products: ${consumers} consumers, queue capacity ${queueCapacity}, ` +
    `${readConcurrency} reads at once, budget ${budgetMs} ms`,
);

const started = Date.now();
try {
  const products = await runExportBatch(store, job.id, {
    budgetMs,
    onEvent,
    read: failProduct === undefined ? read : failingOn(failProduct, read),
  });
  console.log(`completed ${products.length} in ${Date.now() - started} ms`);
} catch (err) {
  console.log(`${err instanceof Error ? err.message : String(err)} (after ${Date.now() - started} ms)`);
  process.exitCode = 1;
}

const final = store.require(job.id);
console.log(`job ${final.state}: ${final.state === 'succeeded' ? JSON.stringify(final.result) : final.error}`);
console.log(`reads: ${recorder.describeReads()}`);
console.log(`peak reads in flight ${recorder.peakInFlight}, longest queue ${recorder.longestQueue}`);
