// Collect a batch of products with three separate limits, each set on its own:
//   consumers        how many async workers take ids from the queue (fixed, not one per id)
//   queueCapacity    how many ids may wait in the queue; the producer waits when it is full
//   readConcurrency  how many product reads may run at once (p-limit, asyncio's Semaphore)
// A limiter alone would still create one pending task per product up front; the fixed
// consumers plus the bounded queue keep both the waiting ids and the task count small.
// Each read also has its own time limit (readTimeoutMs), beside the caller's deadline.
import { errorMessage } from '@tasks-lab/lab-kit';
import pLimit from 'p-limit';
import { BoundedQueue } from './bounded-queue.ts';
import { BATCH_DEFAULTS } from './options.ts';
import { simulatedRead, withReadTimeout, type Product, type ReadProduct } from './read-product.ts';
import { runTaskGroup } from './task-group.ts';

export type ConsumerCloseReason = 'drained' | 'cancelled' | 'failed';

/** What the batch reports while it runs: the checks and the CLI measure the limits from these. */
export type BatchEvent =
  | { type: 'queued'; productId: number; queueLength: number; waitedForSpace: boolean }
  | { type: 'read-started'; productId: number }
  | { type: 'read-finished'; productId: number }
  | { type: 'read-aborted'; productId: number }
  | { type: 'read-failed'; productId: number; error: string }
  | { type: 'consumer-closed'; consumer: number; reason: ConsumerCloseReason };

/** What one consumer gets to work with. */
export interface ConsumerContext {
  consumer: number;
  queue: BoundedQueue<number>;
  /** Reads one product through the limiter and keeps the result. */
  readOne: (productId: number) => Promise<void>;
  signal: AbortSignal;
  emit: (event: BatchEvent) => void;
}

export type Consumer = (context: ConsumerContext) => Promise<void>;

export interface CollectOptions {
  consumers?: number;
  queueCapacity?: number;
  readConcurrency?: number;
  readDelayMs?: number;
  /** Each read's own time limit (the batch deadline comes on top). */
  readTimeoutMs?: number;
  /** How a product is read. @defaultValue simulatedRead({ readDelayMs }) */
  read?: ReadProduct;
  /** Stops the batch from outside (the deadline). */
  signal?: AbortSignal;
  onEvent?: (event: BatchEvent) => void;
  /** The consumer loop. @defaultValue consumeProducts (the tests swap in a broken one) */
  consumer?: Consumer;
}

/** The batch failed because one of its products did; `cause` is that product's error. */
export class BatchFailedError extends Error {
  constructor(cause: unknown) {
    super(`batch failed: ${errorMessage(cause)}`, { cause });
    this.name = 'BatchFailedError';
  }
}

/**
 * One consumer: take an id, read it, repeat until the queue is closed and drained.
 * The close event sits in `finally`, so it is logged on every path: drained,
 * cancelled by the batch, or failed itself.
 */
export async function consumeProducts({ consumer, queue, readOne, signal, emit }: ConsumerContext): Promise<void> {
  let reason: ConsumerCloseReason = 'drained';
  try {
    for (;;) {
      const productId = await queue.get(signal);
      if (productId === undefined) return;
      await readOne(productId);
    }
  } catch (err) {
    // Aborted already: another task's failure or the deadline stopped us. Not yet: we are the failure.
    reason = signal.aborted ? 'cancelled' : 'failed';
    throw err;
  } finally {
    emit({ type: 'consumer-closed', consumer, reason });
  }
}

/**
 * Reads every product in `productIds` and returns them in that order, or rejects:
 * with BatchFailedError when a read fails, with `signal.reason` when the caller
 * stops the batch. It never returns part of the list.
 */
export async function collectProducts(productIds: readonly number[], options: CollectOptions = {}): Promise<Product[]> {
  const {
    consumers = BATCH_DEFAULTS.consumers,
    queueCapacity = BATCH_DEFAULTS.queueCapacity,
    readConcurrency = BATCH_DEFAULTS.readConcurrency,
    readDelayMs = BATCH_DEFAULTS.readDelayMs,
    readTimeoutMs = BATCH_DEFAULTS.readTimeoutMs,
    onEvent = () => {},
    consumer = consumeProducts,
  } = options;
  const read = withReadTimeout(options.read ?? simulatedRead({ readDelayMs }), readTimeoutMs);
  const queue = new BoundedQueue<number>(queueCapacity);
  const limit = pLimit(readConcurrency);
  const products = new Map<number, Product>();

  const readOne = (productId: number, signal: AbortSignal) =>
    limit(async () => {
      // A consumer may have waited for a slot while the batch was stopping: do not start then.
      signal.throwIfAborted();
      onEvent({ type: 'read-started', productId });
      try {
        products.set(productId, await read(productId, signal));
        onEvent({ type: 'read-finished', productId });
      } catch (err) {
        onEvent(
          signal.aborted
            ? { type: 'read-aborted', productId }
            : { type: 'read-failed', productId, error: errorMessage(err) },
        );
        throw err;
      }
    });

  const produce = async (signal: AbortSignal) => {
    for (const productId of productIds) {
      const waitedForSpace = queue.isFull;
      await queue.put(productId, signal);
      onEvent({ type: 'queued', productId, queueLength: queue.length, waitedForSpace });
    }
    queue.close();
  };

  const consume = (index: number) => (signal: AbortSignal) =>
    consumer({ consumer: index, queue, signal, emit: onEvent, readOne: (id) => readOne(id, signal) });

  try {
    await runTaskGroup([produce, ...Array.from({ length: consumers }, (_, index) => consume(index))], options.signal);
  } catch (err) {
    // The caller's own stop (the deadline) passes through unchanged; anything else is a failed item.
    if (options.signal?.aborted && err === options.signal.reason) throw err;
    throw new BatchFailedError(err);
  }
  return productIds.map((id) => {
    const product = products.get(id);
    // Every task succeeded, so every id was read; if not, fail loudly rather than return a short list.
    if (!product) throw new BatchFailedError(new Error(`product ${id} was never read`));
    return product;
  });
}
