// The admission-gate benchmark's arithmetic and text, without a database: the medians of
// the runs (the median and the rate come from the lab kit), a ratio, the progress line, the table and the JSON file's shape.
// Pure functions, so test/bench-stats.test.ts can pin each one down; bench-gate.ts does
// the measuring and calls these to report it.
import { parseArgs } from 'node:util';
import { median, plural } from '@tasks-lab/lab-kit';

/** What is measured, in the order each concurrency runs them. */
export const BENCH_DESIGNS = ['hot-row', 'course', 'counter', 'grouped'] as const;
export type BenchDesign = (typeof BENCH_DESIGNS)[number];
/** The designs that admit jobs (the hot row only locks and adds). */
export const GATE_DESIGNS = ['course', 'counter', 'grouped'] as const;
export type GateDesignName = (typeof GATE_DESIGNS)[number];

export const DESIGN_LABELS: Readonly<Record<BenchDesign, string>> = {
  'hot-row': 'hot row',
  course: 'course gate',
  counter: 'counter gate',
  grouped: 'grouped counter gate',
};

/** The settings of one benchmark run (every one has a command-line option). */
export interface BenchSettings {
  /** Timed runs per design and concurrency; each figure is their median. */
  runs: number;
  /** Timed seconds per run (the sum of its rounds' busy windows). */
  seconds: number;
  /** Untimed seconds before each run: connections, caches and the lock's queue settle. */
  warmupSeconds: number;
  /** Clients running transactions at once, one measurement each. */
  concurrency: number[];
  /** Admissions started per round before the active set is reset (the gates only). */
  batch: number;
}

export const DEFAULT_SETTINGS: Readonly<BenchSettings> = {
  runs: 3,
  seconds: 1.5,
  warmupSeconds: 0.3,
  concurrency: [1, 4, 16, 32],
  batch: 100,
};

/** The most clients one measurement may use (each needs a connection of its own). */
export const MAX_CONCURRENCY = 128;

/** One timed run, as the JSON file keeps it. */
export interface RunRecord {
  design: BenchDesign;
  concurrency: number;
  /** 1-based, within its design and concurrency. */
  run: number;
  /** Transactions committed in the timed windows (admissions, for the gates). */
  committed: number;
  /** The timed windows' total, in milliseconds. */
  ms: number;
  /** committed per second. */
  perSecond: number;
  /** Busy windows the run was made of (the gates reset the active set between them). */
  rounds: number;
  /** Admissions answered 503 "busy" (lock-wait retries exhausted): not counted as committed. */
  busy: number;
  /** Lock-wait timeouts or deadlocks that admitExport retried. */
  retries: number;
  /**
   * How long one admission took from the call to its answer, ms (the gates; for the grouped gate this
   * includes the wait for the group ahead of it): the run's p50 and p99. Absent in files from before.
   */
  latencyMs?: { p50: number; p99: number };
  /** The grouped gate: admissions per committed transaction, on average (absent for the others). */
  groupSize?: number;
}

/** One line of the table: the medians at one concurrency. */
export interface MedianRow {
  concurrency: number;
  perSecond: Record<BenchDesign, number>;
  /** The medians of the runs' p50 and p99 admission latencies (NaN where not measured). */
  latencyMs?: Record<GateDesignName, { p50: number; p99: number }>;
  /** The grouped gate's median admissions per transaction. */
  groupSize?: number;
}

export interface MachineInfo {
  cpuCount: number;
  cpuModel: string;
  node: string;
  platform: string;
  /** SELECT VERSION() */
  server: string;
  /** 1 = every COMMIT waits for the redo log's flush: the floor under every figure here. */
  flushLogAtTrxCommit: string;
  /** The 1-minute load average when the benchmark started and when it ended: other work on the machine shows here. */
  loadAverage: { start: number; end: number };
}

/** The JSON file's shape, and what runGateBench returns. */
export interface GateBenchResult {
  kind: 'tasks-lab13-gate-bench';
  version: 1;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  command: string;
  machine: MachineInfo;
  settings: BenchSettings & {
    /** Queued jobs held in place through every timed run. */
    prefill: number;
    /** The gates' limit: high enough that no admission is ever refused as "full". */
    admissionLimit: number;
    productIds: number[];
    connectionLimit: number;
  };
  runs: RunRecord[];
  medians: MedianRow[];
}

/** A rate for people: a whole number ("512"); "–" when there is none. */
export function formatRate(perSecond: number): string {
  return Number.isFinite(perSecond) ? String(Math.round(perSecond)) : '–';
}

/** `value` as a multiple of `base`, two decimals ("0.48×"); "–" when the base is 0 or missing. */
export function formatRatio(value: number, base: number): string {
  if (!Number.isFinite(value) || !Number.isFinite(base) || base <= 0) return '–';
  return `${(value / base).toFixed(2)}×`;
}

/** "[3/36] course gate, 4 clients, run 2: 512 /s" */
export function progressLine(
  step: number,
  total: number,
  record: Pick<RunRecord, 'design' | 'concurrency' | 'run' | 'perSecond' | 'busy'>,
): string {
  const clients = plural(record.concurrency, 'client');
  const busy = record.busy > 0 ? ` (${record.busy} answered busy)` : '';
  return `[${step}/${total}] ${DESIGN_LABELS[record.design]}, ${clients}, run ${record.run}: ${formatRate(record.perSecond)} /s${busy}`;
}

/** The median rate of each design at each concurrency, in the order `concurrency` lists them. */
export function summarize(runs: readonly RunRecord[], concurrency: readonly number[]): MedianRow[] {
  return concurrency.map((clients) => {
    const mine = (design: BenchDesign) => runs.filter((r) => r.design === design && r.concurrency === clients);
    const of = (design: BenchDesign) => median(mine(design).map((r) => r.perSecond));
    const latencyOf = (design: GateDesignName) => ({
      p50: median(mine(design).flatMap((r) => (r.latencyMs ? [r.latencyMs.p50] : []))),
      p99: median(mine(design).flatMap((r) => (r.latencyMs ? [r.latencyMs.p99] : []))),
    });
    return {
      concurrency: clients,
      perSecond: { 'hot-row': of('hot-row'), course: of('course'), counter: of('counter'), grouped: of('grouped') },
      latencyMs: { course: latencyOf('course'), counter: latencyOf('counter'), grouped: latencyOf('grouped') },
      groupSize: median(mine('grouped').flatMap((r) => (r.groupSize === undefined ? [] : [r.groupSize]))),
    };
  });
}

export const TABLE_HEADER = [
  'concurrency',
  'hot row tx/s',
  'course gate /s (ratio)',
  'counter gate /s (ratio)',
  'grouped gate /s (ratio)',
  'counter ÷ course',
  'grouped ÷ counter',
  'per group',
  'counter p50 / p99 ms',
  'grouped p50 / p99 ms',
] as const;

/** "1.2 / 3.4" (ms); "–" where not measured. */
export function formatLatency(latency: { p50: number; p99: number } | undefined): string {
  const ms = (v: number | undefined) => (v !== undefined && Number.isFinite(v) ? v.toFixed(1) : '–');
  return `${ms(latency?.p50)} / ${ms(latency?.p99)}`;
}

/**
 * The medians as a Markdown table (it pastes into the lesson as it is). Each gate's ratio
 * is to the hot row at the same concurrency: the share of the single-row limit it reaches.
 */
export function formatTable(rows: readonly MedianRow[]): string {
  const cells = rows.map((row) => {
    const { 'hot-row': hot, course, counter, grouped } = row.perSecond;
    return [
      String(row.concurrency),
      formatRate(hot),
      `${formatRate(course)} (${formatRatio(course, hot)})`,
      `${formatRate(counter)} (${formatRatio(counter, hot)})`,
      `${formatRate(grouped)} (${formatRatio(grouped, hot)})`,
      formatRatio(counter, course),
      formatRatio(grouped, counter),
      row.groupSize !== undefined && Number.isFinite(row.groupSize) ? row.groupSize.toFixed(1) : '–',
      formatLatency(row.latencyMs?.counter),
      formatLatency(row.latencyMs?.grouped),
    ];
  });
  const widths = TABLE_HEADER.map((title, i) => Math.max(title.length, ...cells.map((line) => line[i]!.length)));
  const line = (values: readonly string[], pad: (text: string, width: number) => string) =>
    `| ${values.map((v, i) => pad(v, widths[i]!)).join(' | ')} |`;
  const rule = `|${widths.map((w) => `${'-'.repeat(w + 1)}:`).join('|')}|`;
  return [
    line(TABLE_HEADER, (t, w) => t.padEnd(w)),
    rule,
    ...cells.map((values) => line(values, (t, w) => t.padStart(w))),
  ].join('\n');
}

/**
 * The cells whose runs disagree: some run is more than `tolerance` (a fraction) away from
 * the median. Such a figure says more about the machine's other work than about the gate:
 * run again, with more runs. One line each: "counter gate at 16 clients: 677 to 1399 /s".
 */
export function unsteadyCells(runs: readonly RunRecord[], concurrency: readonly number[], tolerance = 0.25): string[] {
  const lines: string[] = [];
  for (const clients of concurrency) {
    for (const design of BENCH_DESIGNS) {
      const rates = runs.filter((r) => r.design === design && r.concurrency === clients).map((r) => r.perSecond);
      const middle = median(rates);
      if (!(middle > 0) || rates.every((r) => Math.abs(r - middle) <= tolerance * middle)) continue;
      lines.push(
        `${DESIGN_LABELS[design]} at ${plural(clients, 'client')}: ${formatRate(Math.min(...rates))} to ${formatRate(Math.max(...rates))} /s`,
      );
    }
  }
  return lines;
}

/** The machine in one line: "2 × Intel(R) Xeon(R) Processor, Node v20.20.2, linux 6.1, server 10.11.19-MariaDB (...), load 0.8 -> 1.5". */
export function describeMachine(machine: MachineInfo): string {
  const load = `load average ${machine.loadAverage.start.toFixed(1)} -> ${machine.loadAverage.end.toFixed(1)}`;
  return `${machine.cpuCount} × ${machine.cpuModel}, Node ${machine.node}, ${machine.platform}, server ${machine.server} (innodb_flush_log_at_trx_commit ${machine.flushLogAtTrxCommit}), ${load}`;
}

/** gate-2025-01-02T03-04-05-678Z.json: the ISO timestamp with ':' and '.' as '-' (a file name on every system). */
export function resultFileName(at: Date): string {
  return `gate-${at.toISOString().replace(/[:.]/g, '-')}.json`;
}

/** The JSON file's text: two-space indented, one trailing newline. */
export function resultJson(result: GateBenchResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

/** "1,4,16,32" -> [1, 4, 16, 32]; each a whole number from 1 to MAX_CONCURRENCY, none twice. */
export function parseConcurrencyList(text: string): number[] {
  const values = text.split(',').map((part) => part.trim());
  const numbers = values.map(Number);
  if (values.some((v) => !/^\d+$/.test(v)) || numbers.some((n) => n < 1 || n > MAX_CONCURRENCY)) {
    throw new Error(
      `--concurrency takes whole numbers from 1 to ${MAX_CONCURRENCY}, separated by commas; got "${text}"`,
    );
  }
  if (new Set(numbers).size !== numbers.length) throw new Error(`--concurrency lists a value twice: "${text}"`);
  return numbers;
}

function numberOption(
  name: string,
  text: string | undefined,
  fallback: number,
  { min, max, whole }: { min: number; max: number; whole: boolean },
): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (
    text.trim() === '' ||
    !Number.isFinite(value) ||
    value < min ||
    value > max ||
    (whole && !Number.isInteger(value))
  ) {
    throw new Error(`--${name} takes ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}; got "${text}"`);
  }
  return value;
}

/** The command line (`--runs N --seconds S --concurrency 1,4,16,32 --batch N --warmup S`) as settings. */
export function parseBenchArgs(args: readonly string[]): BenchSettings {
  // `pnpm bench:gate -- --runs 5` passes the `--` through; drop it.
  const rest = args[0] === '--' ? args.slice(1) : [...args];
  const { values } = parseArgs({
    args: rest,
    options: {
      runs: { type: 'string' },
      seconds: { type: 'string' },
      warmup: { type: 'string' },
      concurrency: { type: 'string' },
      batch: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const settings: BenchSettings = {
    runs: numberOption('runs', values.runs, DEFAULT_SETTINGS.runs, { min: 1, max: 50, whole: true }),
    seconds: numberOption('seconds', values.seconds, DEFAULT_SETTINGS.seconds, { min: 0.1, max: 600, whole: false }),
    warmupSeconds: numberOption('warmup', values.warmup, DEFAULT_SETTINGS.warmupSeconds, {
      min: 0,
      max: 60,
      whole: false,
    }),
    concurrency:
      values.concurrency === undefined ? [...DEFAULT_SETTINGS.concurrency] : parseConcurrencyList(values.concurrency),
    batch: numberOption('batch', values.batch, DEFAULT_SETTINGS.batch, { min: 2, max: 100_000, whole: true }),
  };
  checkBatch(settings);
  return settings;
}

/** A round must start more admissions than there are clients, or its busy window holds none. */
export function checkBatch(settings: Pick<BenchSettings, 'batch' | 'concurrency'>): void {
  const most = Math.max(...settings.concurrency);
  if (settings.batch <= most)
    throw new Error(`--batch (${settings.batch}) must be larger than the highest concurrency (${most})`);
}
