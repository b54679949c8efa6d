// Runs one export batch and prints what happened.
//   pnpm batch                      normal run: completed 20
//   pnpm drill:timeout              --budget-ms 150: the deadline stops the batch
//   pnpm drill:fail-item            --fail-product 3: one bad product stops the batch
// The limits come from src/options.ts (BATCH_CONSUMERS, BATCH_QUEUE_CAPACITY, ...);
// --budget-ms and --products set BATCH_BUDGET_MS and BATCH_PRODUCTS and are checked the same way.
import { parseArgs } from 'node:util';
import { errorMessage, runMain } from '@tasks-lab/lab-kit';
import { MemoryJobStore } from '@tasks-lab/01-state-machine';
import {
  BATCH_OPTIONS,
  BatchRecorder,
  failingOn,
  runExportBatch,
  simulatedRead,
  type BatchEvent,
  type BatchOptions,
} from '../src/index.ts';

interface CliSettings {
  options: BatchOptions;
  /** The fault drill's bad product, if any. */
  failProduct?: number;
}

/** Flags become the options' environment variables, so one parser checks them all. */
export function readCliSettings(args: string[], env: NodeJS.ProcessEnv = process.env): CliSettings {
  const { values } = parseArgs({
    args,
    options: {
      'budget-ms': { type: 'string' },
      products: { type: 'string' },
      'fail-product': { type: 'string' },
    },
  });
  const { specs } = BATCH_OPTIONS;
  const options = BATCH_OPTIONS.read({
    env: {
      ...env,
      ...(values['budget-ms'] === undefined ? {} : { [specs.budgetMs.env]: values['budget-ms'] }),
      ...(values.products === undefined ? {} : { [specs.productCount.env]: values.products }),
    },
  });
  const rawFail = values['fail-product'];
  if (rawFail === undefined) return { options };
  const failProduct = Number(rawFail);
  if (!Number.isInteger(failProduct) || failProduct < 1) {
    throw new Error(`--fail-product must be a product id (a whole number from 1), got "${rawFail}"`);
  }
  return { options, failProduct };
}

async function main(): Promise<number> {
  const { options, failProduct } = readCliSettings(process.argv.slice(2));
  const { consumers, queueCapacity, readConcurrency, readDelayMs, readTimeoutMs, budgetMs, productCount } = options;

  const recorder = new BatchRecorder();
  const onEvent = (event: BatchEvent) => {
    recorder.record(event);
    if (event.type === 'consumer-closed') console.log(`consumer ${event.consumer} closed (${event.reason})`);
  };
  const read = simulatedRead({ readDelayMs });

  const store = new MemoryJobStore();
  const job = await store.create(Array.from({ length: productCount }, (_, index) => index + 1));
  console.log(
    `batch of ${productCount} products: ${consumers} consumers, queue capacity ${queueCapacity}, ` +
      `${readConcurrency} reads at once (each up to ${readTimeoutMs} ms), budget ${budgetMs} ms`,
  );

  const started = Date.now();
  let exitCode = 0;
  try {
    const products = await runExportBatch(store, job.id, {
      consumers,
      queueCapacity,
      readConcurrency,
      readTimeoutMs,
      budgetMs,
      onEvent,
      read: failProduct === undefined ? read : failingOn(failProduct, read),
    });
    console.log(`completed ${products.length} in ${Date.now() - started} ms`);
  } catch (err) {
    console.log(`${errorMessage(err)} (after ${Date.now() - started} ms)`);
    exitCode = 1;
  }

  const final = await store.require(job.id);
  console.log(`job ${final.state}: ${final.state === 'succeeded' ? JSON.stringify(final.result) : final.error}`);
  console.log(`reads: ${recorder.describeReads()}`);
  console.log(`peak reads in flight ${recorder.peakInFlight}, longest queue ${recorder.longestQueue}`);
  return exitCode;
}

runMain(import.meta.url, main);
