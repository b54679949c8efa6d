// The lesson's numbers, as validated options: each has an environment variable and the
// course's value as its default. An entry point reads them once (scripts/batch.ts);
// tests and drills pass other values in code, and those are checked the same way, so
// a zero, negative or non-numeric value is refused with a message naming it.
import { BATCH_DEFAULTS } from '@tasks-lab/02-bounded-async';
import { defineOptions, durationMs, wholeNumber } from '@tasks-lab/lab-kit';

export const THREADED_BATCH_OPTIONS = defineOptions({
  /** Consumer threads. @defaultValue 2 */
  threads: wholeNumber('BATCH_THREADS', 2, { min: 1, max: 16 }),
  /**
   * Most ids waiting in the queue at once: lesson 02's variable and default, a smaller bound.
   * @defaultValue BATCH_DEFAULTS.queueCapacity (4)
   */
  capacity: wholeNumber('BATCH_QUEUE_CAPACITY', BATCH_DEFAULTS.queueCapacity, { min: 1, max: 1_000 }),
  /** Product ids 1..itemCount. @defaultValue 20 */
  itemCount: wholeNumber('BATCH_ITEMS', 20, { min: 1, max: 10_000 }),
  /** The simulated blocking read of one product. @defaultValue 50 */
  workMs: durationMs('BATCH_READ_MS', 50, { max: 60_000 }),
  /** A batch that has not finished by then is stopped: its threads are terminated. @defaultValue 15_000 */
  timeoutMs: durationMs('BATCH_TIMEOUT_MS', 15_000, { max: 600_000 }),
});

export type ThreadedBatchSettings = ReturnType<typeof THREADED_BATCH_OPTIONS.defaults>;

/** The product whose read fails on purpose in the course (a bad record). */
export const COURSE_FAILING_IDS: readonly number[] = [7];

export const INCREMENT_RACE_OPTIONS = defineOptions({
  /** A race needs at least two threads. @defaultValue 2 */
  threads: wholeNumber('RACE_THREADS', 2, { min: 2, max: 16 }),
  /** How many times each thread increments the shared counter. @defaultValue 100 */
  incrementsPerThread: wholeNumber('RACE_INCREMENTS', 100, { min: 1, max: 1_000_000 }),
  /**
   * The pause between reading the counter and writing it back: the window where updates
   * get lost. 0 is allowed on purpose: with no pause the race is rarer, not gone (the drill shows it).
   * @defaultValue 1
   */
  pauseMs: durationMs('RACE_PAUSE_MS', 1, { min: 0, max: 1_000 }),
});

export type IncrementRaceSettings = ReturnType<typeof INCREMENT_RACE_OPTIONS.defaults>;

export function productIds(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index + 1);
}
