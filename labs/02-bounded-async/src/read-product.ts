// The product read the batch is built around. The lesson does not call a real
// product API: a timer stands in for the network wait, so the timings are ours to
// choose. What matters is that the wait listens to an AbortSignal. Node cannot cancel
// a running function from outside; a read stops early only because it was handed a
// signal and chose to listen to it.

export interface Product {
  id: number;
  name: string;
  description: string;
  isActive: boolean;
  priceCents: number;
}

/** Reads one product. `signal` fires when the batch gives up: the read must stop then. */
export type ReadProduct = (productId: number, signal: AbortSignal) => Promise<Product>;

export const DEFAULT_READ_DELAY_MS = 100;

/** A read that failed for a reason of its own (not because the batch was stopping). */
export class ProductReadError extends Error {
  constructor(
    readonly productId: number,
    reason: string,
  ) {
    super(`product ${productId} ${reason}`);
    this.name = 'ProductReadError';
  }
}

/** Waits `ms`, or rejects with the abort reason as soon as `signal` fires (and clears the timer). */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The simulated product API: every read waits `readDelayMs`, then returns a sample product. */
export function simulatedRead({ readDelayMs = DEFAULT_READ_DELAY_MS } = {}): ReadProduct {
  return async (productId, signal) => {
    await abortableDelay(readDelayMs, signal);
    return {
      id: productId,
      name: `Product ${productId}`,
      description: 'teaching sample',
      isActive: false,
      priceCents: 0,
    };
  };
}

/**
 * `read` with a time limit of its own, besides the batch's deadline: one stuck read
 * fails on its own after `timeoutMs` (a ProductReadError naming the product) instead of
 * holding a slot until the whole budget is gone. When the batch stops first, the read
 * rejects with the batch's reason as before. Either way, giving up here only stops our
 * waiting: a request the product service already received may still have been acted on.
 */
export function withReadTimeout(read: ReadProduct, timeoutMs: number): ReadProduct {
  return async (productId, batchSignal) => {
    const ownLimit = AbortSignal.timeout(timeoutMs);
    try {
      return await read(productId, AbortSignal.any([batchSignal, ownLimit]));
    } catch (err) {
      if (ownLimit.aborted && !batchSignal.aborted) {
        throw new ProductReadError(productId, `read timed out after ${timeoutMs} ms`);
      }
      throw err;
    }
  };
}

/** The fault drill: `read`, except that `badProductId` fails at once, before any waiting. */
export function failingOn(badProductId: number, read: ReadProduct): ReadProduct {
  return async (productId, signal) => {
    if (productId === badProductId) throw new ProductReadError(productId, 'is not valid (injected fault)');
    return read(productId, signal);
  };
}
