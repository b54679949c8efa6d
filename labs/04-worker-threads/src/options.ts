// The lesson's numbers, as defaults. Tests and drills pass smaller or different values
// through the same code paths.

export const THREADED_BATCH_DEFAULTS = {
  /** Consumer threads. */
  threads: 2,
  /** Most ids waiting in the queue at once. */
  capacity: 4,
  /** Product ids 1..20. */
  itemCount: 20,
  /** The simulated blocking read of one product. */
  workMs: 50,
  /** The product whose read fails on purpose. */
  failingIds: [7] as readonly number[],
  /** A batch that has not finished by then is stopped: its threads are terminated. */
  timeoutMs: 15_000,
} as const;

export const INCREMENT_RACE_DEFAULTS = {
  threads: 2,
  incrementsPerThread: 100,
  /** The pause between reading the counter and writing it back: the window where updates get lost. */
  pauseMs: 1,
} as const;

export function productIds(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index + 1);
}
