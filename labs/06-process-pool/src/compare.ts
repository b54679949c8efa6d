// Serial versus pool, the lesson's main experiment: `pnpm compare [rows] [rounds]`.
// Results are compared first; only then do the timings mean anything.
import { pathToFileURL } from 'node:url';
import { ProcessPool } from './process-pool.ts';
import { DEFAULT_ROUNDS, exportRowsFor, loadScorer, type ExportRow, type RowScore, type ScorerModule } from './scoring.ts';

export function scoreSerially(scorer: ScorerModule, rows: readonly ExportRow[], rounds: number): RowScore[] {
  return rows.map((row) => scorer.scoreExportRow(row, rounds));
}

/** Undefined when both lists hold the same scores in the same order; otherwise the first difference. */
export function findScoreDifference(expected: readonly RowScore[], actual: readonly RowScore[]): string | undefined {
  if (expected.length !== actual.length) return `${expected.length} scores expected, got ${actual.length}`;
  for (let i = 0; i < expected.length; i += 1) {
    const [want, got] = [expected[i]!, actual[i]!];
    if (want.productId !== got.productId || want.score !== got.score) {
      return `row ${i}: expected product ${want.productId} -> ${want.score}, got product ${got.productId} -> ${got.score}`;
    }
  }
  return undefined;
}

/** Product ids 1, 2, ..., count: the same input on every run. */
export function firstProductIds(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i + 1);
}

async function main(): Promise<void> {
  const rowCount = Number(process.argv[2] ?? 8);
  const rounds = Number(process.argv[3] ?? DEFAULT_ROUNDS);
  const rows = exportRowsFor(firstProductIds(rowCount));
  const scorer = await loadScorer();
  console.log(`scoring ${rowCount} rows x ${rounds} rounds (parent pid ${process.pid})`);

  let started = performance.now();
  const serial = scoreSerially(scorer, rows, rounds);
  console.log(`serial: ${Math.round(performance.now() - started)} ms`);

  const pool = await new ProcessPool({ size: 2 }).start();
  try {
    console.log(`pool: started worker processes ${pool.pids().join(', ')} in ${pool.startupMs} ms (once)`);
    started = performance.now();
    const pooled = await pool.scoreBatch(rows, { rounds });
    console.log(`pool of 2 processes: ${Math.round(performance.now() - started)} ms (workers used: ${pooled.workerPids.join(', ')})`);
    const difference = findScoreDifference(serial, pooled.scores);
    console.log(difference ? `DIFFERENT: ${difference}` : 'same scores, same order: yes');
    if (difference) process.exitCode = 1;
  } finally {
    await pool.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
