// The lesson's troubleshooting entries, reproduced: the mistake made on purpose shows the
// symptom, and the lab's way of doing it does not.
import pLimit from 'p-limit';
import { describe, expect, it } from 'vitest';
import {
  BatchRecorder,
  collectProducts,
  simulatedRead,
  withDeadline,
  type BatchEvent,
  type ReadProduct,
} from '../src/index.ts';

const ids = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

/** The most product ids that had left the producer and whose read had not ended yet, at any one moment. */
function mostIdsInHand(events: readonly BatchEvent[]): number {
  let inHand = 0;
  let most = 0;
  for (const event of events) {
    if (event.type === 'queued') inHand += 1;
    if (event.type === 'read-finished' || event.type === 'read-aborted' || event.type === 'read-failed') inHand -= 1;
    most = Math.max(most, inHand);
  }
  return most;
}

describe('"memory keeps growing although a limiter caps the reads"', () => {
  it('When every product is handed to the limiter up front, Then nearly all of them wait inside it at once; with fixed consumers and a bounded queue at most 8 ids are in hand [test:limiter-alone-piles-up]', async () => {
    const count = 1_000;
    const read = simulatedRead({ readDelayMs: 1 });

    // The mistake: one pending call per product, created up front. p-limit(2) caps the reads, not the calls.
    const limit = pLimit(2);
    const stop = new AbortController();
    const everyProduct = Promise.allSettled(ids(count).map((id) => limit(() => read(id, stop.signal))));
    await new Promise((resolve) => setImmediate(resolve));
    expect(limit.activeCount).toBe(2);
    expect(limit.pendingCount).toBe(count - 2);
    stop.abort(new Error('enough'));
    await everyProduct;

    // The fix: 4 consumers and a queue of 4, so at most 4 ids wait and 4 are being read or wait for a slot.
    const recorder = new BatchRecorder();
    await collectProducts(ids(count), { read, onEvent: recorder.record });
    expect(mostIdsInHand(recorder.events)).toBeLessThanOrEqual(8);
  });
});

describe('"after the timeout the batch keeps running"', () => {
  /** The mistake: a read whose timer never hears the abort (a bare setTimeout, a fetch without `signal`). */
  const readIgnoringSignal: ReadProduct = async (productId) => {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return {
      id: productId,
      name: `Product ${productId}`,
      description: 'teaching sample',
      isActive: false,
      priceCents: 0,
    };
  };

  /** Runs 20 products under a 150 ms deadline; says when the batch settled and how its reads ended. */
  async function timedOutBatch(read: ReadProduct) {
    const recorder = new BatchRecorder();
    const started = Date.now();
    const error = await withDeadline(150, (signal) =>
      collectProducts(ids(20), { read, signal, onEvent: recorder.record }),
    ).catch((err: Error) => err.message);
    return {
      error,
      settledAfterMs: Date.now() - started,
      finished: recorder.count('read-finished'),
      aborted: recorder.count('read-aborted'),
    };
  }

  it('When a read ignores the abort, Then "batch timed out" arrives only after those reads ran to the end; a read that listens stops at the deadline [test:ignored-abort-keeps-running]', async () => {
    const ignoring = await timedOutBatch(readIgnoringSignal);
    expect(ignoring.error).toBe('batch timed out after 150 ms');
    expect(ignoring.settledAfterMs).toBeGreaterThanOrEqual(950); // it waited out the 1000 ms reads
    expect(ignoring.finished).toBe(2); // the deadline had passed, yet both reads in flight finished
    expect(ignoring.aborted).toBe(0);

    const listening = await timedOutBatch(simulatedRead({ readDelayMs: 1_000 }));
    expect(listening.error).toBe('batch timed out after 150 ms');
    expect(listening.settledAfterMs).toBeLessThan(900);
    expect(listening.finished).toBe(0);
    expect(listening.aborted).toBe(2);
  });
});
