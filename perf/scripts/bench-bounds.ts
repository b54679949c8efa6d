// `pnpm bench:bounds` (from the root): three early labs measured against the bound their own
// design sets, each with the lab's own exported code. No services: only this machine's cores.
//
//   lab 02  bounded async  collectProducts reads READS_PER_SLOT x N products, each a timer of the
//                          course's 100 ms, with N reads at once (p-limit) and max(4, N)
//                          consumers. The bound: N reads every 100 ms, N / 0.1 s reads per second.
//                          Waiting costs no CPU, so cores do not enter it.
//   lab 05  thread pool    BlockingIoPool with T threads runs READS_PER_THREAD x T blocking reads
//                          (exportAll), each 5 slices of 20 ms that park its thread
//                          (Atomics.wait). The bound: T reads every 100 ms, T / 0.1 s per second.
//                          A parked thread uses no core either: T may exceed the cores.
//   lab 06  process pool   ProcessPool of P processes scores a large input (the course's 2000
//                          rounds a row), against scoreSerially on the same rows in the same run.
//                          The bound on the speedup: min(P, cores), every core busy with no cost
//                          for messages. Here cores = 2, and they are shared with everything else.
//
// What is left out of the clock: starting the pool's threads or processes (done once, before the
// first measurement, as the lessons do), and one untimed pass of the scoring in every process
// (each compiles the hot loop on its first rows). Each setting takes turns with the
// others run by run, so a machine that slows down slows all alike; each figure is the median of the
// runs, and the ratio is measured ÷ bound (1 = the bound reached).
//
//   pnpm bench:bounds              3 runs, 64 rows for the process pool (under a minute)
//   pnpm bench:bounds -- --quick   1 run, 24 rows: to try it, not to quote
//
// Lesson 16 does not list labs 02, 05 and 06 as dependencies (its chain starts at lesson 11), so
// their code is imported from their folders by path; it is the same code their packages export.
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median, runMain, withResources } from '@tasks-lab/lab-kit';
import { BATCH_DEFAULTS, collectProducts } from '@tasks-lab/02-bounded-async';
import { BlockingIoPool, exportAll } from '@tasks-lab/05-thread-pool-io';
import {
  exportRowsFor,
  firstProductIds,
  loadScorer,
  measureCpu,
  ProcessPool,
  scoreSerially,
  type ExportRow,
  type ScorerModule,
} from '@tasks-lab/06-process-pool';

export const BOUND_LABS = ['02', '05', '06'] as const;
export type BoundLab = (typeof BOUND_LABS)[number];

/** One measurement of one lab at one setting (reads at once, threads, processes). */
export interface BoundMeasurement {
  lab: BoundLab;
  /** N reads at once (02), T threads (05), P processes (06). */
  setting: number;
  run: number;
  /** Reads per second (02, 05), or the speedup over serial (06). */
  measured: number;
  /** What the design allows at this setting, in the same unit. */
  bound: number;
  /** The measured batch's wall time; for 06, the pool's (serialMs holds the serial run's). */
  ms: number;
  serialMs?: number;
}

export interface BoundsSettings {
  runs: number;
  cores: number;
  readDelayMs: number;
  readsPerSlot: number;
  slices: number;
  sliceMs: number;
  readsPerThread: number;
  rows: number;
  rounds: number;
}

export interface BoundsBenchResult {
  settings: BoundsSettings;
  /** The serial scoring's CPU time over its wall time: near 1 says the work is CPU-bound (lesson 06's first question). */
  serialCpuShare: number;
  loadAverage: { start: number; end: number };
  measurements: BoundMeasurement[];
}

export interface BoundMedian {
  lab: BoundLab;
  setting: number;
  measured: number;
  bound: number;
  /** measured ÷ bound: 1 is the bound reached. */
  ratio: number;
  runs: number;
}

export const ASYNC_READS_AT_ONCE = [1, 2, 4, 8] as const;
export const POOL_THREADS = [1, 2, 4, 8] as const;
export const POOL_PROCESSES = [1, 2, 4] as const;

/** Reads per unit of concurrency: every setting's batch lasts about the same (10 reads' time). */
const READS_PER_SLOT = 10;
const READS_PER_THREAD = 4;
/** A read of lesson 05 for the benchmark: shorter than the course's 20 x 100 ms, the same kind. */
const SLICES = 5;
const SLICE_MS = 20;
const FULL = { runs: 3, rows: 64 } as const;
const QUICK = { runs: 1, rows: 24 } as const;
const RESULTS_DIR = fileURLToPath(new URL('../bench-results', import.meta.url));

// ---- the figures (pure) ---------------------------------------------------------------------

/** Lesson 02's and 05's bound: `concurrency` reads every `readMs`, in reads per second. */
export const readsBound = (concurrency: number, readMs: number): number => (concurrency * 1000) / readMs;
/** Lesson 06's bound on the speedup: no more processes at work than there are cores. */
export const speedupBound = (processes: number, cores: number): number => Math.min(processes, cores);

/** One median per lab and setting, in BOUND_LABS order, settings as measured. */
export function boundMedians(result: Pick<BoundsBenchResult, 'measurements'>): BoundMedian[] {
  const medians: BoundMedian[] = [];
  for (const lab of BOUND_LABS) {
    const settings = [...new Set(result.measurements.filter((m) => m.lab === lab).map((m) => m.setting))];
    for (const setting of settings) {
      const mine = result.measurements.filter((m) => m.lab === lab && m.setting === setting);
      const measured = median(mine.map((m) => m.measured));
      const bound = mine[0]!.bound;
      medians.push({
        lab,
        setting,
        measured,
        bound,
        ratio: bound > 0 ? measured / bound : Number.NaN,
        runs: mine.length,
      });
    }
  }
  return medians;
}

export const BOUND_LAB_LABELS: Record<BoundLab, string> = {
  '02': 'lab 02 bounded async',
  '05': 'lab 05 thread pool',
  '06': 'lab 06 process pool',
};
const SETTING_NAMES: Record<BoundLab, (n: number) => string> = {
  '02': (n) => `${n} read${n > 1 ? 's' : ''} at once`,
  '05': (n) => `${n} thread${n > 1 ? 's' : ''}`,
  '06': (n) => `${n} process${n > 1 ? 'es' : ''}`,
};
export const settingName = (lab: BoundLab, setting: number): string => SETTING_NAMES[lab](setting);
/** "9.8 reads/s" or "1.71×". */
export const formatBoundValue = (lab: BoundLab, value: number): string =>
  lab === '06' ? `${value.toFixed(2)}×` : `${value.toFixed(1)} reads/s`;

export function describeBoundMeasurement(step: number, total: number, m: BoundMeasurement): string {
  const serial = m.serialMs === undefined ? '' : `, serial ${Math.round(m.serialMs)} ms`;
  return `[${step}/${total}] ${BOUND_LAB_LABELS[m.lab]}, ${settingName(m.lab, m.setting)}, run ${m.run}: ${formatBoundValue(m.lab, m.measured)} of ${formatBoundValue(m.lab, m.bound)} (${Math.round(m.ms)} ms${serial})`;
}

// ---- the measurements -----------------------------------------------------------------------

/** Lesson 02: N reads at once over READS_PER_SLOT x N timer reads of the course's delay. */
async function measureBoundedAsync(readsAtOnce: number, run: number): Promise<BoundMeasurement> {
  const productIds = Array.from({ length: READS_PER_SLOT * readsAtOnce }, (_, i) => i + 1);
  const started = performance.now();
  await collectProducts(productIds, {
    readConcurrency: readsAtOnce,
    consumers: Math.max(BATCH_DEFAULTS.consumers, readsAtOnce),
  });
  const ms = performance.now() - started;
  return {
    lab: '02',
    setting: readsAtOnce,
    run,
    measured: (productIds.length * 1000) / ms,
    bound: readsBound(readsAtOnce, BATCH_DEFAULTS.readDelayMs),
    ms,
  };
}

/** Lesson 05: READS_PER_THREAD x T blocking reads through a ready pool of T threads. */
async function measureThreadPool(pool: BlockingIoPool, run: number): Promise<BoundMeasurement> {
  const productIds = Array.from({ length: READS_PER_THREAD * pool.threads }, (_, i) => i + 1);
  const started = performance.now();
  await exportAll(pool, productIds, { slices: SLICES, sliceMs: SLICE_MS });
  const ms = performance.now() - started;
  return {
    lab: '05',
    setting: pool.threads,
    run,
    measured: (productIds.length * 1000) / ms,
    bound: readsBound(pool.threads, SLICES * SLICE_MS),
    ms,
  };
}

/** Lesson 06: the pool's wall time on `rows`, against the serial run's of the same run. */
async function measureProcessPool(
  pool: ProcessPool,
  rows: readonly ExportRow[],
  rounds: number,
  serialMs: number,
  cores: number,
  run: number,
): Promise<BoundMeasurement> {
  const started = performance.now();
  await pool.scoreBatch(rows, { rounds });
  const ms = performance.now() - started;
  return {
    lab: '06',
    setting: pool.size,
    run,
    measured: serialMs / ms,
    bound: speedupBound(pool.size, cores),
    ms,
    serialMs,
  };
}

function serialRun(scorer: ScorerModule, rows: readonly ExportRow[], rounds: number): { ms: number; cpuShare: number } {
  const { ms, cpuShare } = measureCpu(() => scoreSerially(scorer, rows, rounds));
  return { ms, cpuShare };
}

export interface BoundsBenchOptions {
  quick?: boolean;
  log?: (line: string) => void;
}

export async function runBoundsBench(options: BoundsBenchOptions = {}): Promise<BoundsBenchResult> {
  const { runs, rows: rowCount } = options.quick ? QUICK : FULL;
  const log = options.log ?? console.log;
  const cores = availableParallelism();
  const rounds = 2000;
  const settings: BoundsSettings = {
    runs,
    cores,
    readDelayMs: BATCH_DEFAULTS.readDelayMs,
    readsPerSlot: READS_PER_SLOT,
    slices: SLICES,
    sliceMs: SLICE_MS,
    readsPerThread: READS_PER_THREAD,
    rows: rowCount,
    rounds,
  };
  const loadAtStart = loadavg()[0] ?? 0;
  const rows = exportRowsFor(firstProductIds(rowCount));
  const scorer = await loadScorer();
  return withResources(undefined, async (res) => {
    // Started once, before anything is timed (the lessons create their pools once, too).
    const threadPools = POOL_THREADS.map((threads) =>
      res.add(new BlockingIoPool({ threads, maxPending: threads }), (p) => p.close()),
    );
    await Promise.all(threadPools.map((p) => p.ready()));
    const processPools: ProcessPool[] = [];
    for (const size of POOL_PROCESSES)
      processPools.push(await res.add(new ProcessPool({ size }), (p) => p.close()).start());
    // One untimed pass of the scoring everywhere: each process (and this one) compiles the hot
    // loop on its first rows, and a pool of 4 would otherwise pay for it 4 times in its timing.
    serialRun(scorer, rows, rounds);
    for (const pool of processPools) await pool.scoreBatch(rows, { rounds });
    const measurements: BoundMeasurement[] = [];
    const cpuShares: number[] = [];
    const total = runs * (ASYNC_READS_AT_ONCE.length + POOL_THREADS.length + POOL_PROCESSES.length);
    const keep = (m: BoundMeasurement) => {
      measurements.push(m);
      log(describeBoundMeasurement(measurements.length, total, m));
    };
    for (let run = 1; run <= runs; run += 1) {
      for (const readsAtOnce of ASYNC_READS_AT_ONCE) keep(await measureBoundedAsync(readsAtOnce, run));
      for (const pool of threadPools) keep(await measureThreadPool(pool, run));
      // The serial baseline in the same run, just before the pools it is compared with.
      const serial = serialRun(scorer, rows, rounds);
      cpuShares.push(serial.cpuShare);
      for (const pool of processPools) keep(await measureProcessPool(pool, rows, rounds, serial.ms, cores, run));
    }
    return {
      settings,
      serialCpuShare: median(cpuShares),
      loadAverage: { start: loadAtStart, end: loadavg()[0] ?? 0 },
      measurements,
    };
  });
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const result = await runBoundsBench({ quick });
  console.log(
    `\nMedians (cores ${result.settings.cores}, serial scoring's CPU share ${result.serialCpuShare.toFixed(2)}, load average ${result.loadAverage.start.toFixed(1)} -> ${result.loadAverage.end.toFixed(1)}):`,
  );
  for (const m of boundMedians(result)) {
    console.log(
      `  ${BOUND_LAB_LABELS[m.lab]}, ${settingName(m.lab, m.setting)}: ${formatBoundValue(m.lab, m.measured)} of ${formatBoundValue(m.lab, m.bound)} (${m.ratio.toFixed(2)} of the bound)`,
    );
  }
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `bounds-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nEvery run: ${file}`);
}

runMain(import.meta.url, main);
