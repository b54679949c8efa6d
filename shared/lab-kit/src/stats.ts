// The few statistics the measurements share: the benchmarks' medians and rates, lesson 16's
// latency percentiles. One definition each, so a p95 means the same thing on every page.

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** `count` events in `ms` milliseconds, per second; 0 when no time passed. */
export function rate(count: number, ms: number): number {
  return ms > 0 ? (count * 1000) / ms : 0;
}

/**
 * The nearest-rank percentile of values sorted in ascending order: the smallest value with at least
 * `q` of them at or below it (q = 0.95: with 10 values, the 10th). No interpolation, so the answer
 * is always a value that was measured. Null for no values.
 */
export function percentile(sortedAscending: readonly number[], q: number): number | null {
  if (sortedAscending.length === 0) return null;
  const rank = Math.min(sortedAscending.length, Math.max(1, Math.ceil(q * sortedAscending.length)));
  return sortedAscending[rank - 1]!;
}

/** A count with its noun, as a line reads it: "1 run", "3 runs". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
