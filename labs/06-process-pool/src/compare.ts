// Serial versus pool, the lesson's main experiment: `pnpm compare [rows] [rounds]`.
// Results are compared first; only then do the timings mean anything.
import { availableParallelism } from 'node:os';
import { onShutdown, runMain, SECOND } from '@tasks-lab/lab-kit';
import { PROCESS_POOL_OPTIONS } from './options.ts';
import { ProcessPool } from './process-pool.ts';
import { exportRowsFor, loadScorer, type ExportRow, type RowScore, type ScorerModule } from './scoring.ts';

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

export interface Measured<T> {
  value: T;
  ms: number;
  /** CPU time this process used meanwhile (all its threads, so it can exceed `ms` a little). */
  cpuMs: number;
  /** cpuMs / ms: near 1 (or above) is CPU-bound work, near 0 is waiting. */
  cpuShare: number;
}

/** Runs `work` and measures it: before choosing a number of processes, know whether it is CPU work at all. */
export function measureCpu<T>(work: () => T): Measured<T> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const value = work();
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpuBefore);
  const cpuMs = (user + system) / 1000;
  return { value, ms, cpuMs, cpuShare: ms > 0 ? cpuMs / ms : 0 };
}

/**
 * Pids in ascending order. Which worker answered first changes from run to run; which workers
 * were used does not, so both lines list them alike (the drill and the checks do the same).
 */
const ascending = (pids: readonly number[]) => [...pids].sort((a, b) => a - b).join(', ');

/** Product ids 1, 2, ..., count: the same input on every run. */
export function firstProductIds(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i + 1);
}

/**
 * `pnpm compare [rows] [rounds]`: the two arguments are shorthands for EXPORT_ROWS and
 * SCORE_ROUNDS, and are checked the same way (a bad value names that variable).
 */
async function main(): Promise<number> {
  const [rowsArg, roundsArg] = process.argv.slice(2);
  const env = { ...process.env };
  if (rowsArg !== undefined) env.EXPORT_ROWS = rowsArg;
  if (roundsArg !== undefined) env.SCORE_ROUNDS = roundsArg;
  const options = PROCESS_POOL_OPTIONS.read({ env });
  const { rows: rowCount, rounds, poolSize } = options;
  const rows = exportRowsFor(firstProductIds(rowCount));
  const scorer = await loadScorer();
  console.log(`scoring ${rowCount} rows x ${rounds} rounds (parent pid ${process.pid})`);

  const { value: serial, ms: serialMs, cpuMs } = measureCpu(() => scoreSerially(scorer, rows, rounds));
  // Close to the wall time: CPU work. Far below it: waiting, or (on a busy machine) other programs had the core.
  console.log(
    `serial: ${Math.round(serialMs)} ms (CPU time ${Math.round(cpuMs)} ms); cores on this machine: ${availableParallelism()}`,
  );

  const pool = new ProcessPool({
    size: poolSize,
    startTimeoutMs: options.workerStartTimeoutMs,
    stopGraceMs: options.workerStopGraceMs,
  });
  // Ctrl-C while the pool works: close it (its workers exit) instead of leaving them to notice alone.
  onShutdown(pool.close, { graceMs: options.workerStopGraceMs + SECOND });
  try {
    await pool.start();
    console.log(`pool: started worker processes ${ascending(pool.pids())} in ${pool.startupMs} ms (once)`);
    const started = performance.now();
    const pooled = await pool.scoreBatch(rows, { rounds });
    console.log(
      `pool of ${poolSize} processes: ${Math.round(performance.now() - started)} ms (workers used: ${ascending(pooled.workerPids)})`,
    );
    const difference = findScoreDifference(serial, pooled.scores);
    console.log(difference ? `DIFFERENT: ${difference}` : 'same scores, same order: yes');
    return difference ? 1 : 0;
  } finally {
    await pool.close();
  }
}

runMain(import.meta.url, main);
