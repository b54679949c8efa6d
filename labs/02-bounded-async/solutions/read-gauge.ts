// Try it yourself (lesson 02): prove that no more than 2 product reads run at once.
// Wrap the product read with a gauge that counts reads in flight and remembers the
// highest count. Pass the wrapped read to the batch: it runs inside the limiter
// (p-limit), so the gauge sees exactly what the limit allows.
import type { ReadProduct } from '../src/index.ts';

export class ReadGauge {
  /** Reads running right now. */
  current = 0;
  /** The most reads that ran at the same moment. */
  peak = 0;

  enter(): void {
    this.current += 1;
    this.peak = Math.max(this.peak, this.current);
  }

  leave(): void {
    this.current -= 1;
  }
}

/** `read`, counted by `gauge` while it runs. */
export function gaugedRead(gauge: ReadGauge, read: ReadProduct): ReadProduct {
  return async (productId, signal) => {
    gauge.enter();
    try {
      return await read(productId, signal);
    } finally {
      // A read that fails or is aborted is over too: count it out on every path.
      gauge.leave();
    }
  };
}
