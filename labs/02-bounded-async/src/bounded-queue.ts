// A first-in, first-out queue with a fixed capacity: the Node counterpart of
// Python's asyncio.Queue(maxsize=4). `put` waits while the queue is full, so a fast
// producer is slowed to the pace of its consumers (backpressure) instead of piling
// every product id up in memory at once.
//
// Node runs this code on one thread, like asyncio: no locks are needed, only a list
// of callers waiting for space and a list waiting for items.

type Wake = () => void;

export class QueueClosedError extends Error {
  constructor() {
    super('the queue is closed: no more items can be put');
    this.name = 'QueueClosedError';
  }
}

export class BoundedQueue<T extends {}> {
  readonly capacity: number;
  readonly #items: T[] = [];
  /** Producers blocked in `put` until an item is taken out. */
  readonly #waitingForSpace: Wake[] = [];
  /** Consumers blocked in `get` until an item arrives or the queue closes. */
  readonly #waitingForItem: Wake[] = [];
  #closed = false;
  #peakLength = 0;
  #blockedPuts = 0;

  constructor(capacity: number) {
    // Infinity is accepted on purpose: the tests build an unbounded queue to show what goes wrong.
    if (!(capacity >= 1) || (!Number.isInteger(capacity) && capacity !== Infinity)) {
      throw new RangeError(`queue capacity must be a whole number >= 1, got ${capacity}`);
    }
    this.capacity = capacity;
  }

  get length(): number {
    return this.#items.length;
  }

  /** The most items the queue has held at one moment: what the checks compare with the capacity. */
  get peakLength(): number {
    return this.#peakLength;
  }

  /**
   * How many puts found the queue full and had to wait for space: the backpressure,
   * counted by the queue itself. A queue that is never full never makes its producer wait.
   */
  get blockedPuts(): number {
    return this.#blockedPuts;
  }

  get isFull(): boolean {
    return this.#items.length >= this.capacity;
  }

  /** Adds an item, waiting while the queue is full. Aborting `signal` gives up the wait. */
  async put(item: T, signal?: AbortSignal): Promise<void> {
    if (this.isFull && !this.#closed) this.#blockedPuts += 1;
    while (this.isFull) {
      if (this.#closed) throw new QueueClosedError();
      await waitInLine(this.#waitingForSpace, signal);
    }
    if (this.#closed) throw new QueueClosedError();
    this.#items.push(item);
    this.#peakLength = Math.max(this.#peakLength, this.#items.length);
    this.#waitingForItem.shift()?.();
  }

  /**
   * Takes the oldest item, waiting while the queue is empty. Resolves `undefined`
   * once the queue is closed and drained: the consumer's signal to stop (asyncio
   * code often sends a `None` sentinel for the same purpose).
   */
  async get(signal?: AbortSignal): Promise<T | undefined> {
    while (this.#items.length === 0) {
      if (this.#closed) return undefined;
      await waitInLine(this.#waitingForItem, signal);
    }
    const item = this.#items.shift() as T;
    this.#waitingForSpace.shift()?.();
    return item;
  }

  /** No more puts. Consumers still receive what is queued, then `undefined`. */
  close(): void {
    this.#closed = true;
    // Wake everyone: consumers re-check and see "closed and empty", producers see "closed".
    for (const wake of this.#waitingForItem.splice(0)) wake();
    for (const wake of this.#waitingForSpace.splice(0)) wake();
  }
}

/** Parks the caller in `line` until woken, or rejects with the abort reason when `signal` fires. */
function waitInLine(line: Wake[], signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const wake = () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      const index = line.indexOf(wake);
      if (index >= 0) line.splice(index, 1);
      reject(signal?.reason);
    };
    line.push(wake);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
