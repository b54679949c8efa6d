// `pnpm bench:gate`: measure the admission gate before deciding anything about it. One run
// measures three things side by side, on a scratch database made for it and dropped at the
// end (also after an error or Ctrl-C):
//
//   hot row       lock the gate row, add one, COMMIT (LOCK_GATE, ENTER_GATE). Every admission
//                 of either design does at least this on the one row, one after another, so
//                 its rate is the ceiling of ANY single-row gate on this machine.
//   course gate   admitExport with the course's design: read the snapshot, lock the gate,
//                 COUNT the queued and running jobs, insert the job and its event, name the
//                 client, add one, COMMIT. The lock is held across five statements.
//   counter gate  admitExport with the lab's design, each admission alone
//                 (ADMISSION_GROUP_MAX=1): the snapshot and the inserts first, then lock, read
//                 the counter, add one, COMMIT: the lock is held for what the hot row holds it for.
//   grouped gate  the counter gate with group commit (the lab's default): the admissions that
//                 arrive while a group commits form the next one, one transaction and one update
//                 of the gate row for all of them. Its rate is admissions, not transactions, so
//                 it may pass the hot row; what it costs is the wait for the group ahead, which
//                 is why every gate's admissions are also timed (p50 and p99, call to answer).
//
// Each at 1, 4, 16 and 32 clients: a closed loop, each client starts its next transaction
// as soon as the last one returns, on a pool with a connection per client. Each figure is
// the median of 3 timed runs of 1.5 s, each after an untimed warm-up of 0.3 s (and one
// untimed pass of everything before the first); the designs take turns run by run, so a
// machine that slows down (another process, a growing table) slows all three alike. Runs
// that disagree with their median by more than 25% are named under the table.
//
// What is held constant, and why:
//   - The active set. The course's COUNT reads one index entry per queued or running job,
//     under the lock: the more there are, the slower it is. Its limit (100) means it never
//     counts more than 100 in service. So 50 jobs are admitted once, before any
//     measurement, and stay queued throughout; a gate's run is made of ROUNDS of at most
//     `--batch` (100) admissions, and between rounds (untimed) every other active job is
//     moved to succeeded and the counter is set to the count again. The COUNT therefore
//     sees 50 to 150 jobs, 100 on average: the course's capacity. Without the rounds, a gate
//     admitting 1000 /s would be counting 1500 jobs by the end of a 1.5 s run, and the
//     course's gate would look slower than it is in service.
//   - What is timed. A round's clock stops when the first client finds the round's quota
//     (or the time box) used up: from then on fewer than all its clients are busy, and that
//     tail (the last transactions in flight) is not counted. A run's rate is the admissions
//     committed in its rounds' busy windows over the windows' total time, `--seconds` in all.
//     (Each round also starts cold: a millisecond or two passes before its first COMMIT. With
//     rounds of 100 that costs the gates a few percent at most, the same for both.)
//   - The request: products [1, 2] (exports.fast), no Idempotency-Key, client 'anonymous',
//     limit 1,000,000 (the gate is never "full": the refusal is not what is measured).
//   - The database: the lab's session settings (READ COMMITTED, 1 s lock wait); the server's
//     own durability setting is printed with the machine, since every COMMIT waits for it.
// The hot row creates no jobs, so it runs as one round per run; the counter is put back
// (to the counted active jobs) after it, as after every gate run.
//
//   pnpm bench:gate                                   the defaults above (about 80 s)
//   pnpm bench:gate -- --runs 5 --seconds 3           longer, steadier figures
//   pnpm bench:gate -- --concurrency 1,8 --batch 50   other loads, smaller rounds
// It prints a line per measurement, then the table, and writes every run and the medians
// to bench-results/gate-<timestamp>.json (git-ignored; the lesson keeps the figures it uses).
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, platform, release } from 'node:os';
import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Histogram } from 'hdr-histogram-js';
import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { ensureInfra } from '@tasks-lab/infra';
import { errorMessage, plural, rate, runMain, withResources } from '@tasks-lab/lab-kit';
import { withTransaction } from '@tasks-lab/11-mysql-leases';
import {
  ACTIVE_STATES,
  AdmissionBusyError,
  admitExport,
  COURSE_RULES,
  countActiveJobs,
  ENTER_GATE,
  freshDatabase,
  LOCK_GATE,
} from '@tasks-lab/13-admission';
import {
  BENCH_DESIGNS,
  checkBatch,
  DEFAULT_SETTINGS,
  describeMachine,
  formatTable,
  parseBenchArgs,
  progressLine,
  resultFileName,
  resultJson,
  summarize,
  type BenchDesign,
  type BenchSettings,
  type GateBenchResult,
  type MachineInfo,
  type RunRecord,
  unsteadyCells,
} from './bench-stats.ts';
import { latencyHistogram, recordMs, summarizeLatency } from './bench-latency.ts';

/**
 * The reset between rounds: every active job except the pre-filled ones is done. Only the
 * benchmark does this (a real job gets there through a worker's finish). Affected rows:
 * the jobs admitted since the last reset. Parameters: [ACTIVE_STATES, pre-filled job ids].
 */
const FINISH_ACTIVE_EXCEPT = `
  UPDATE export_jobs
  SET status = 'succeeded', updated_at = NOW(6)
  WHERE status IN (?) AND id NOT IN (?)`;

/**
 * The counter set to what the table says (after the reset, and after the hot row's
 * thousands of +1s). Run with no admission in flight. Affected rows: 1 (0 if it already
 * had that value). Parameters: [active job count].
 */
const SET_GATE_COUNTER = `
  UPDATE export_admission_gate
  SET active_jobs = ?
  WHERE id = 1`;

/** The server and its durability: every COMMIT of every design waits for the redo log's flush when it is 1. Rows: 1. Parameters: none. */
const READ_SERVER = 'SELECT VERSION() AS version, @@innodb_flush_log_at_trx_commit AS flush_at_commit';

/** Queued jobs held in place through every run (the course's gate counts them). */
const PREFILL = 50;
/** High enough that no admission is refused as "full": the gate's cost is measured, not its answer. */
const NO_LIMIT = 1_000_000;
/** Two products: a small export, routed to exports.fast. */
const PRODUCT_IDS = [1, 2];
/** The pool `freshDatabase` is asked for: at least one connection per client. */
const MIN_CONNECTIONS = 32;

export interface GateBenchOptions extends Partial<BenchSettings> {
  /** Stops the benchmark (the scratch database is dropped all the same). */
  signal?: AbortSignal;
  /** Where the progress lines go. @defaultValue console.log */
  log?: (line: string) => void;
  /** Kept in the result: how the run was started. */
  command?: string;
}

/** What one transaction came to: committed, or answered 503 "busy" (its admission did not happen). */
type Outcome = 'committed' | 'busy';

interface Counters {
  retries: number;
  /** Admission latencies in MICROSECONDS (the timed runs only). */
  latency?: Histogram;
  /** Groups committed (the first member of each reports it). */
  groups: number;
}

/**
 * Runs the benchmark on a scratch database and returns every run and the medians (the
 * shape of the JSON file). Exported so that a later benchmark can run it again. MariaDB
 * must be up (main calls ensureInfra first); nothing is written to disk here.
 */
export type { GateBenchResult };

export async function runGateBench(options: GateBenchOptions = {}): Promise<GateBenchResult> {
  const settings: BenchSettings = {
    runs: options.runs ?? DEFAULT_SETTINGS.runs,
    seconds: options.seconds ?? DEFAULT_SETTINGS.seconds,
    warmupSeconds: options.warmupSeconds ?? DEFAULT_SETTINGS.warmupSeconds,
    concurrency: [...(options.concurrency ?? DEFAULT_SETTINGS.concurrency)],
    batch: options.batch ?? DEFAULT_SETTINGS.batch,
  };
  checkBatch(settings);
  const log = options.log ?? ((line: string) => console.log(line));
  const connectionLimit = Math.max(MIN_CONNECTIONS, ...settings.concurrency);
  const started = new Date();
  const loadAtStart = loadavg()[0] ?? 0;
  return withResources(options.signal, async (res) => {
    const db = res.add(await freshDatabase('bench', { connectionLimit }), (d) => d.drop());
    res.throwIfAborted();
    const pool = db.pool;
    const machine = await readMachine(pool, loadAtStart);
    await openConnections(pool, connectionLimit);
    const keep = await prefill(pool, PREFILL);
    log(`scratch database ${db.name}: ${PREFILL} queued jobs held in place, rounds of ${settings.batch} admissions`);

    // Once, before anything is timed: every design at every concurrency, untimed, so the
    // first measurement does not also pay for Node's compiler and the server's cold pages.
    for (const concurrency of settings.concurrency) {
      for (const design of BENCH_DESIGNS) await warmUp(pool, design, concurrency, settings, keep, res.signal);
    }

    const runs: RunRecord[] = [];
    const total = settings.concurrency.length * settings.runs * BENCH_DESIGNS.length;
    // Concurrency, then run, then design: the designs take turns, so drift hits them alike.
    for (const concurrency of settings.concurrency) {
      for (let run = 1; run <= settings.runs; run += 1) {
        for (const design of BENCH_DESIGNS) {
          res.throwIfAborted();
          const record = await measure(pool, design, concurrency, run, settings, keep, res.signal);
          runs.push(record);
          log(progressLine(runs.length, total, record));
        }
      }
    }
    const finished = new Date();
    return {
      kind: 'tasks-lab13-gate-bench',
      version: 1,
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
      durationMs: finished.getTime() - started.getTime(),
      command: options.command ?? 'runGateBench()',
      machine: { ...machine, loadAverage: { start: loadAtStart, end: loadavg()[0] ?? 0 } },
      settings: { ...settings, prefill: PREFILL, admissionLimit: NO_LIMIT, productIds: PRODUCT_IDS, connectionLimit },
      runs,
      medians: summarize(runs, settings.concurrency),
    };
  });
}

/** One timed run of `design` at `concurrency`, after its warm-up; the active set is reset after it too. */
async function measure(
  pool: Pool,
  design: BenchDesign,
  concurrency: number,
  run: number,
  settings: BenchSettings,
  keep: string[],
  signal: AbortSignal,
): Promise<RunRecord> {
  await warmUp(pool, design, concurrency, settings, keep, signal);
  const counters: Counters = { retries: 0, groups: 0, latency: design === 'hot-row' ? undefined : latencyHistogram() };
  const timed = await runRounds(
    pool,
    transactionOf(design, pool, counters),
    concurrency,
    quotaOf(design, settings),
    settings.seconds,
    keep,
    signal,
  );
  await resetActiveSet(pool, keep);
  // Rounded for the JSON file: a microsecond and a tenth of a transaction per second are below the noise.
  const ms = Math.round(timed.ms * 1000) / 1000;
  const perSecond = Math.round(rate(timed.committed, timed.ms) * 10) / 10;
  return {
    design,
    concurrency,
    run,
    committed: timed.committed,
    ms,
    perSecond,
    rounds: timed.rounds,
    busy: timed.busy,
    retries: counters.retries,
    ...(counters.latency && { latencyMs: latencyFigures(counters.latency) }),
    ...(design === 'grouped' &&
      counters.groups > 0 && { groupSize: Math.round((timed.committed / counters.groups) * 10) / 10 }),
  };
}

/** p50 and p99 in ms, rounded to a microsecond for the JSON file. */
function latencyFigures(histogram: Histogram): { p50: number; p99: number } {
  const { p50, p99 } = summarizeLatency(histogram);
  return { p50: Math.round(p50 * 1000) / 1000, p99: Math.round(p99 * 1000) / 1000 };
}

/** Untimed: the same loop for `warmupSeconds`, its result thrown away. */
async function warmUp(
  pool: Pool,
  design: BenchDesign,
  concurrency: number,
  settings: BenchSettings,
  keep: string[],
  signal: AbortSignal,
): Promise<void> {
  await runRounds(
    pool,
    transactionOf(design, pool, { retries: 0, groups: 0 }),
    concurrency,
    quotaOf(design, settings),
    settings.warmupSeconds,
    keep,
    signal,
  );
}

/** Transactions per round: the gates' batch; the hot row adds no jobs, so one round per run. */
function quotaOf(design: BenchDesign, settings: BenchSettings): number {
  return design === 'hot-row' ? Number.POSITIVE_INFINITY : settings.batch;
}

/** The rules each gate design admits with: the course's gate, the counter gate alone, and in groups (the lab's default). */
const RULES_OF = {
  course: { admissionGate: 'count', admissionLimit: NO_LIMIT, admissionGroupMax: 1 },
  counter: { admissionGate: 'counter', admissionLimit: NO_LIMIT, admissionGroupMax: 1 },
  grouped: { admissionGate: 'counter', admissionLimit: NO_LIMIT, admissionGroupMax: COURSE_RULES.admissionGroupMax },
} as const;

function transactionOf(design: BenchDesign, pool: Pool, counters: Counters): () => Promise<Outcome> {
  if (design === 'hot-row') return () => hotRow(pool);
  const rules = RULES_OF[design];
  return async () => {
    const started = performance.now();
    try {
      const admitted = await admitExport(pool, PRODUCT_IDS, { rules, onRetry: () => (counters.retries += 1) });
      if (counters.latency) recordMs(counters.latency, performance.now() - started);
      if (admitted.admission?.group?.position === 1) counters.groups += 1;
      return 'committed';
    } catch (err) {
      // The gate stayed locked through every retry: a 503 a client would see. Counted, not fatal.
      if (err instanceof AdmissionBusyError) return 'busy';
      throw err;
    }
  };
}

/** The physical limit: the gate row's lock and +1, and nothing else, per transaction. */
async function hotRow(pool: Pool): Promise<Outcome> {
  await withTransaction(pool, async (tx) => {
    await tx.query<RowDataPacket[]>(LOCK_GATE);
    await tx.query<ResultSetHeader>(ENTER_GATE);
  });
  return 'committed';
}

interface Timed {
  committed: number;
  ms: number;
  rounds: number;
  busy: number;
}

/** Rounds, each from a reset active set, until their busy windows add up to `seconds`. */
async function runRounds(
  pool: Pool,
  transaction: () => Promise<Outcome>,
  concurrency: number,
  quota: number,
  seconds: number,
  keep: string[],
  signal: AbortSignal,
): Promise<Timed> {
  const timed: Timed = { committed: 0, ms: 0, rounds: 0, busy: 0 };
  const budgetMs = seconds * 1000;
  while (timed.ms < budgetMs) {
    signal.throwIfAborted();
    await resetActiveSet(pool, keep);
    const round = await runRound(transaction, concurrency, quota, budgetMs - timed.ms, signal);
    timed.committed += round.committed;
    timed.ms += round.ms;
    timed.busy += round.busy;
    timed.rounds += 1;
  }
  return timed;
}

/**
 * `concurrency` clients in a closed loop until `quota` transactions were started or
 * `budgetMs` passed. The window ends when the first client stops: until then every client
 * was busy. Transactions still in flight then finish (their admissions join the active
 * set) but are not counted. The first error stops every client and is rethrown.
 */
async function runRound(
  transaction: () => Promise<Outcome>,
  concurrency: number,
  quota: number,
  budgetMs: number,
  signal: AbortSignal,
): Promise<Timed> {
  const start = performance.now();
  const stopAt = start + budgetMs;
  let startedCount = 0;
  let committed = 0;
  let busy = 0;
  let window: { ms: number; committed: number; busy: number } | undefined;
  let failure: { err: unknown } | undefined;
  const mayStart = () => failure === undefined && !signal.aborted && startedCount < quota && performance.now() < stopAt;
  const client = async () => {
    while (mayStart()) {
      startedCount += 1;
      try {
        if ((await transaction()) === 'committed') committed += 1;
        else busy += 1;
      } catch (err) {
        failure ??= { err };
      }
    }
    window ??= { ms: performance.now() - start, committed, busy };
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  signal.throwIfAborted();
  if (failure) throw failure.err;
  return { committed: window?.committed ?? 0, ms: window?.ms ?? 0, busy: window?.busy ?? 0, rounds: 1 };
}

/** Back to the held state: the pre-filled jobs queued, no other job active, the counter equal to the count. */
async function resetActiveSet(pool: Pool, keep: string[]): Promise<void> {
  await pool.query<ResultSetHeader>(FINISH_ACTIVE_EXCEPT, [ACTIVE_STATES, keep]);
  await pool.query<ResultSetHeader>(SET_GATE_COUNTER, [await countActiveJobs(pool)]);
}

/** Admits `count` jobs through the lab's gate (eight at a time) and returns their ids. */
async function prefill(pool: Pool, count: number): Promise<string[]> {
  const ids: string[] = [];
  let remaining = count;
  const admitSome = async (): Promise<void> => {
    while (remaining > 0) {
      remaining -= 1;
      const { jobId } = await admitExport(pool, PRODUCT_IDS, {
        rules: { admissionGate: 'counter', admissionLimit: NO_LIMIT },
      });
      ids.push(jobId);
    }
  };
  await Promise.all(Array.from({ length: 8 }, admitSome));
  return ids;
}

/** Borrows `count` connections at once and gives them back: no measurement pays for opening one. */
async function openConnections(pool: Pool, count: number): Promise<void> {
  const connections = await Promise.all(Array.from({ length: count }, () => pool.getConnection()));
  for (const connection of connections) connection.release();
}

async function readMachine(pool: Pool, loadAtStart: number): Promise<MachineInfo> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_SERVER);
  const cores = cpus();
  return {
    cpuCount: cores.length,
    cpuModel: cores[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${platform()} ${release()}`,
    server: String(rows[0]?.version ?? 'unknown'),
    flushLogAtTrxCommit: String(rows[0]?.flush_at_commit ?? 'unknown'),
    loadAverage: { start: loadAtStart, end: loadAtStart },
  };
}

const RESULTS_DIR = fileURLToPath(new URL('../bench-results/', import.meta.url));

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const settings = parseBenchArgs(args);
  const given = args.filter((a, i) => !(i === 0 && a === '--'));
  const command = ['pnpm bench:gate', ...(given.length > 0 ? ['--', ...given] : [])].join(' ');
  await ensureInfra({ services: ['mysql'], log: (line) => console.log(`[infra] ${line}`) });

  // Ctrl-C or SIGTERM: stop measuring; withResources drops the scratch database either way.
  const interrupt = new AbortController();
  const stop = (signal: NodeJS.Signals) => interrupt.abort(new Error(`${signal}: the benchmark was stopped`));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const result = await runGateBench({ ...settings, command, signal: interrupt.signal });
    console.log('');
    console.log(formatTable(result.medians));
    console.log('');
    console.log(
      `ratio: the gate's admissions per second over the hot row's transactions per second, at the same concurrency`,
    );
    console.log(
      `each figure: the median of ${plural(settings.runs, 'run')} of ${settings.seconds} s (after ${settings.warmupSeconds} s of warm-up); ${PREFILL} queued jobs held, reset every ${settings.batch} admissions`,
    );
    console.log(`machine: ${describeMachine(result.machine)}`);
    console.log(`command: ${command}`);
    const unsteady = unsteadyCells(result.runs, settings.concurrency);
    if (unsteady.length > 0) {
      console.log(
        `unsteady: these runs differ by more than 25% from their median (other work on the machine?); run again, or with more --runs:`,
      );
      for (const line of unsteady) console.log(`  ${line}`);
    }
    const busy = result.runs.reduce((sum, r) => sum + r.busy, 0);
    if (busy > 0)
      console.log(
        `note: ${busy} admissions were answered "busy" (503) after their lock-wait retries; they are not counted`,
      );
    await mkdir(RESULTS_DIR, { recursive: true });
    const file = `${RESULTS_DIR}${resultFileName(new Date(result.startedAt))}`;
    await writeFile(file, resultJson(result));
    console.log(`took ${(result.durationMs / 1000).toFixed(1)} s; every run: ${relative(process.cwd(), file) || file}`);
    return 0;
  } catch (err) {
    if (!interrupt.signal.aborted) throw err;
    console.error(`${errorMessage(interrupt.signal.reason)}; the scratch database was dropped`);
    return 130;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

runMain(import.meta.url, main);
