// The lesson's numbers, as validated options: each has an environment variable and the
// course's value as its default. Entry points read them once; the pool and the checks
// take other values in code, checked the same way, so a zero, negative or non-numeric
// value is refused with a message naming it and its bounds.
import { defineOptions, durationMs, wholeNumber } from '@tasks-lab/lab-kit';

export const IO_POOL_OPTIONS = defineOptions({
  /** Threads, so reads running at once. @defaultValue 2 */
  threads: wholeNumber('POOL_THREADS', 2, { min: 1, max: 32 }),
  /** Tasks allowed to wait for a thread; submit() beyond this throws PoolFullError. @defaultValue 4 */
  maxPending: wholeNumber('POOL_MAX_PENDING', 4, { min: 1, max: 10_000 }),
});

export type IoPoolSettings = ReturnType<typeof IO_POOL_OPTIONS.defaults>;

export const BLOCKING_READ_OPTIONS = defineOptions({
  /** The course's read: 20 slices of 100 ms, about 2 s in all. @defaultValue 20 */
  slices: wholeNumber('READ_SLICES', 20, { min: 1, max: 10_000 }),
  /** How long one slice blocks its thread: the longest a stop request may wait. @defaultValue 100 */
  sliceMs: durationMs('READ_SLICE_MS', 100, { max: 60_000 }),
  /** How long a caller waits for a read before it gives up: the course's 0.2 s. @defaultValue 200 */
  waitTimeoutMs: durationMs('READ_WAIT_TIMEOUT_MS', 200, { max: 600_000 }),
});

export type BlockingReadSettings = ReturnType<typeof BLOCKING_READ_OPTIONS.defaults>;
