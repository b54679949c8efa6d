// The batch's limits and timings, read once and checked: a zero, negative or
// non-numeric value is refused with a message naming the variable and its bounds,
// instead of surfacing later as a queue that never takes an id or a deadline that
// fires at once. The defaults are the course's values.
//
//   BATCH_CONSUMERS=4 BATCH_QUEUE_CAPACITY=4 BATCH_READS_AT_ONCE=2 READ_DELAY_MS=100
//   READ_TIMEOUT_MS=1000 BATCH_BUDGET_MS=3000
import { defineOptions, durationMs, MINUTE, wholeNumber } from '@tasks-lab/lab-kit';
import { DEFAULT_READ_DELAY_MS } from './read-product.ts';

export const BATCH_OPTIONS = defineOptions({
  /** How many async consumers take ids from the queue (fixed, not one per product). @defaultValue 4 */
  consumers: wholeNumber('BATCH_CONSUMERS', 4, { min: 1, max: 64 }),
  /** How many ids may wait in the queue; the producer waits when it is full. @defaultValue 4 */
  queueCapacity: wholeNumber('BATCH_QUEUE_CAPACITY', 4, { min: 1, max: 10_000 }),
  /** How many product reads may run at the same moment (p-limit). @defaultValue 2 */
  readConcurrency: wholeNumber('BATCH_READS_AT_ONCE', 2, { min: 1, max: 64 }),
  /** How long one simulated product read takes. @defaultValue DEFAULT_READ_DELAY_MS */
  readDelayMs: durationMs('READ_DELAY_MS', DEFAULT_READ_DELAY_MS, { max: MINUTE }),
  /**
   * How long one read may take before it fails on its own. The course gives no number;
   * ten times a normal read is ours. It sits beside the batch deadline, not instead of it.
   * @defaultValue 1000
   */
  readTimeoutMs: durationMs('READ_TIMEOUT_MS', 1000, { max: MINUTE }),
  /** The deadline for the whole batch. @defaultValue 3000 */
  budgetMs: durationMs('BATCH_BUDGET_MS', 3000, { max: 10 * MINUTE }),
  /** How many products the batch CLI reads (ids 1..n). @defaultValue 20 */
  productCount: wholeNumber('BATCH_PRODUCTS', 20, { min: 1, max: 100_000 }),
});

export type BatchOptions = ReturnType<typeof BATCH_OPTIONS.read>;

/** The course's values: what the checks and the doc compare against. */
export const BATCH_DEFAULTS: Readonly<BatchOptions> = Object.freeze(BATCH_OPTIONS.defaults());
