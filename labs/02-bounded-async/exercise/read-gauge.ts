// Try it yourself (lesson 02): prove that no more than 2 product reads run at once.
// Wrap the product read with a gauge that counts reads in flight and remembers the
// highest count. Pass the wrapped read to the batch: it runs inside the limiter
// (p-limit), so the gauge sees exactly what the limit allows.
//
// Check your work: pnpm -w lab 02 --exercise   (or LAB_EXERCISE=student pnpm vitest run test/exercise.test.ts)
import type { ReadProduct } from '../src/index.ts';

export class ReadGauge {
  /** Reads running right now. */
  current = 0;
  /** The most reads that ran at the same moment. */
  peak = 0;

  enter(): void {
    // TODO: one more read is in flight; if that is a new high, remember it in `peak`.
  }

  leave(): void {
    this.current -= 1;
  }
}

/** `read`, counted by `gauge` while it runs. */
export function gaugedRead(gauge: ReadGauge, read: ReadProduct): ReadProduct {
  return async (productId, signal) => {
    // TODO: call gauge.enter() before the read and gauge.leave() after it, on every path:
    // a read can also fail (product 3) or be aborted (the deadline).
    return read(productId, signal);
  };
}
