// Try it yourself: the same rows, the same pool, two sizes of work (rounds 10 and 2000).
// How much of the pool's cost is starting processes, when the work is tiny and when it is big?
import { findScoreDifference } from '../src/compare.ts';
import type { ProcessPool } from '../src/process-pool.ts';
import type { ExportRow, RowScore, ScorerModule } from '../src/scoring.ts';

export interface RoundsMeasurement {
  rounds: number;
  /** The scores both runs agreed on, in row order. */
  scores: RowScore[];
  serialMs: number;
  poolMs: number;
  /** The pool's one-off start-up as a share of start-up plus this batch: near 1 means start-up dominates. */
  startupShare: number;
}

export async function compareRounds(
  pool: ProcessPool,
  scorer: ScorerModule,
  rows: readonly ExportRow[],
  roundsList: readonly number[],
): Promise<RoundsMeasurement[]> {
  const measurements: RoundsMeasurement[] = [];
  for (const rounds of roundsList) {
    let started = performance.now();
    // TODO: score `rows` here, in this process, with `scorer` and these `rounds`.
    const serial: RowScore[] = [];
    const serialMs = performance.now() - started;

    started = performance.now();
    // TODO: score the same rows in the pool, with the same rounds.
    const pooled: RowScore[] = [];
    const poolMs = performance.now() - started;

    const difference = findScoreDifference(serial, pooled);
    if (difference !== undefined) {
      // TODO: a timing of a wrong answer is worthless: throw an Error that names the difference.
    }

    const startupShare = pool.startupMs / (pool.startupMs + poolMs);
    measurements.push({ rounds, scores: serial, serialMs, poolMs, startupShare });
  }
  return measurements;
}
