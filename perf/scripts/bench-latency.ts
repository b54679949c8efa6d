// Latency as the field records it: an HDR histogram (hdr-histogram-js, the HdrHistogram
// project's port) per measurement, read at fixed percentiles, and the open loop's schedule.
//
// Why a histogram and not a sorted array: a run of a few thousand jobs would sort fine, but the
// load generator records every answer as it arrives, and the tail (p99.9, the maximum) is the
// point; an HDR histogram keeps every value to 3 significant digits in constant memory, and two
// histograms add up exactly, so percentiles over several runs are the percentiles of all their
// values, not a median of medians.
//
// Why the open loop times from the planned send, not the actual one: a generator that falls
// behind (its connections busy, its event loop late) would otherwise send later and time each
// request from the moment it finally went out, hiding exactly the waiting a slow server causes
// ("coordinated omission"). Timing from the schedule charges that wait to the answer.
import * as hdr from 'hdr-histogram-js';

/** Microseconds up to an hour, 3 significant digits. */
export function latencyHistogram(): hdr.Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
  });
}

/** A latency distribution's figures, in milliseconds (NaN for no values). */
export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/** Records milliseconds (a negative value, a clock's rounding, is recorded as 0). */
export function recordMs(histogram: hdr.Histogram, ms: number): void {
  histogram.recordValue(Math.max(0, Math.round(ms * 1000)));
}

export function summarizeLatency(histogram: hdr.Histogram): LatencySummary {
  const count = histogram.totalCount;
  const at = (q: number) => (count === 0 ? Number.NaN : histogram.getValueAtPercentile(q) / 1000);
  return {
    count,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    p999: at(99.9),
    max: count === 0 ? Number.NaN : histogram.maxValue / 1000,
  };
}

/** The summary of a list of milliseconds, through a histogram (the harness's per-job stages). */
export function latencyOf(values: readonly number[]): LatencySummary {
  const histogram = latencyHistogram();
  for (const ms of values) recordMs(histogram, ms);
  const summary = summarizeLatency(histogram);
  histogram.destroy();
  return summary;
}

/**
 * When the i-th request of an open loop is due, in milliseconds from its start: evenly spaced at
 * `perSecond` (a constant arrival rate; a Poisson process would add its own burstiness to the
 * server's, and the comparison between runs wants the server's alone).
 */
export function plannedAt(index: number, perSecond: number): number {
  return (index * 1000) / perSecond;
}

/** How many requests an open loop of `seconds` at `perSecond` sends. */
export function plannedCount(perSecond: number, seconds: number): number {
  return Math.max(1, Math.floor(perSecond * seconds));
}
