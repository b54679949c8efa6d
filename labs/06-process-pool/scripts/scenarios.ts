// Lesson 06's experiments. Each starts a real pool of worker processes, does one thing
// with it and returns what it saw, as typed evidence; the checks (checks.ts) judge it and
// the drill script prints it. Every pool is registered with the scope's resources, so a
// check that runs out of time closes its pool and no worker process is left behind.
import {
  errorCode,
  errorMessage,
  faultRule,
  isAlive,
  waitFor,
  withResources,
  type Resources,
} from '@tasks-lab/lab-kit';
import { MemoryJobStore, type ExportJob } from '@tasks-lab/01-state-machine';
import { findScoreDifference, firstProductIds, scoreSerially } from '../src/compare.ts';
import { runScoringExport } from '../src/export-job.ts';
import { PROCESS_POOL_OPTIONS, type ProcessPoolSettings } from '../src/options.ts';
import { ProcessPool, WorkerProcessLostError, type ProcessPoolOptions } from '../src/process-pool.ts';
import { DEFAULT_SCORER_URL, exportRowsFor, loadScorer, type ExportRow, type RowScore } from '../src/scoring.ts';

export interface ScenarioDeps {
  /** Builds the pool under test (not started). The can-fail tests pass deliberately broken pools. */
  createPool?: (options: ProcessPoolOptions) => ProcessPool;
  /** The scoring module, for the serial run and the workers alike. @defaultValue src/scoring.ts */
  scorerUrl?: string;
  /** Values that win over the environment (POOL_SIZE, SCORE_ROUNDS ...); checked the same way. */
  options?: Partial<ProcessPoolSettings>;
  /** Progress lines for the hand-run drill; silent in verify. */
  log?: (line: string) => void;
}

/** The try-it-yourself size: so little work that start-up and copying dominate. */
export const SMALL_ROUNDS = 10;

/** The fault the drill gives the pool's first worker: crash (SIGKILL itself) on its first row. */
export const DRILL_FAULT = faultRule('while-scoring', 'crash', 'once');

/** An error as evidence: what a student reads, and the stable code a judge may compare. */
export interface ErrorSeen {
  message: string;
  code?: string;
}

const seen = (err: unknown): ErrorSeen => ({ message: errorMessage(err), code: errorCode(err) });
const ms = (started: number) => Math.round(performance.now() - started);

interface Settings extends ProcessPoolSettings {
  createPool: (options: ProcessPoolOptions) => ProcessPool;
  scorerUrl: string;
  log: (line: string) => void;
}

function settings(deps: ScenarioDeps): Settings {
  return {
    ...PROCESS_POOL_OPTIONS.read({ overrides: deps.options }),
    createPool: deps.createPool ?? ((options) => new ProcessPool(options)),
    scorerUrl: deps.scorerUrl ?? DEFAULT_SCORER_URL,
    log: deps.log ?? (() => {}),
  };
}

/** A started pool owned by `res`: it is closed when the scenario ends, or at once if the check times out. */
async function openPool(res: Resources, s: Settings, extra: ProcessPoolOptions = {}): Promise<ProcessPool> {
  const pool = s.createPool({
    size: s.poolSize,
    scorerUrl: s.scorerUrl,
    startTimeoutMs: s.workerStartTimeoutMs,
    stopGraceMs: s.workerStopGraceMs,
    ...extra,
  });
  res.add(pool, (p) => p.close());
  return pool.start();
}

// ---------------------------------------------------------------- comparison

export interface Comparison {
  poolSize: number;
  rows: number;
  rounds: number;
  parentPid: number;
  startupMs: number;
  poolPids: number[];
  serial: RowScore[];
  serialMs: number;
  first: { scores: RowScore[]; workerPids: number[]; ms: number };
  /** The second batch is a second "request": it must land on the same processes. */
  second: { workerPids: number[] };
  poolPidsAfter: number[];
  small: { rounds: number; serialMs: number; poolMs: number; difference?: string };
}

/** Serial versus pool on the same rows; two batches on one pool; then the same at SMALL_ROUNDS. */
export function runComparison(deps: ScenarioDeps = {}, signal?: AbortSignal): Promise<Comparison> {
  return withResources(signal, async (res) => {
    const s = settings(deps);
    const scorer = await loadScorer(s.scorerUrl);
    const rows = exportRowsFor(firstProductIds(s.rows));

    let started = performance.now();
    const serial = scoreSerially(scorer, rows, s.rounds);
    const serialMs = ms(started);

    const pool = await openPool(res, s);
    const poolPids = pool.pids();
    started = performance.now();
    const first = await pool.scoreBatch(rows, { rounds: s.rounds });
    const firstMs = ms(started);
    const second = await pool.scoreBatch(rows, { rounds: s.rounds });

    started = performance.now();
    const smallSerial = scoreSerially(scorer, rows, SMALL_ROUNDS);
    const smallSerialMs = ms(started);
    started = performance.now();
    const smallPooled = await pool.scoreBatch(rows, { rounds: SMALL_ROUNDS });
    const small = {
      rounds: SMALL_ROUNDS,
      serialMs: smallSerialMs,
      poolMs: ms(started),
      difference: findScoreDifference(smallSerial, smallPooled.scores),
    };

    return {
      poolSize: s.poolSize,
      rows: s.rows,
      rounds: s.rounds,
      parentPid: process.pid,
      startupMs: pool.startupMs,
      poolPids,
      serial,
      serialMs,
      first: { ...first, ms: firstMs },
      second: { workerPids: second.workerPids },
      poolPidsAfter: pool.pids(),
      small,
    };
  });
}

// ------------------------------------------------------------ not sendable

/** A row carrying a function, the Node twin of submitting a local function to a Python pool. */
export function rowWithFunction(productId: number): ExportRow {
  const row = { ...exportRowsFor([productId])[0]!, normalise: (text: string) => text.trim() };
  return row as ExportRow;
}

export interface NotSendableRun {
  /** The batch's error; undefined when it (wrongly) succeeded. */
  error?: ErrorSeen;
  /** How many rows had been scored when the batch ended. */
  rowsScored: number;
  job: ExportJob;
  /** The trap the pool avoids: what a worker received over fork's default JSON channel. */
  jsonChannelKeys: string[];
}

/** An export of 4 rows whose third carries a function, run as a job; then the same row over a JSON channel. */
export function runNotSendable(deps: ScenarioDeps = {}, signal?: AbortSignal): Promise<NotSendableRun> {
  return withResources(signal, async (res) => {
    const s = settings(deps);
    const rows = [...exportRowsFor([1, 2]), rowWithFunction(3), ...exportRowsFor([4])];
    const store = new MemoryJobStore();
    const job = await store.create(rows.map((row) => row.productId));
    const pool = await openPool(res, s);
    let rowsScored = 0;
    let error: ErrorSeen | undefined;
    try {
      await runScoringExport({
        store,
        pool,
        jobId: job.id,
        rows,
        rounds: s.rounds,
        onProgress: (done) => (rowsScored = done),
      });
    } catch (err) {
      error = seen(err);
    }

    // Always the real pool here, on purpose with fork's default channel: the trap itself.
    const jsonPool = res.add(new ProcessPool({ size: 1, serialization: 'json' }), (p) => p.close());
    await jsonPool.start();
    const { keys } = await jsonPool.echo(rowWithFunction(3));
    return { error, rowsScored, job: await store.require(job.id), jsonChannelKeys: keys };
  });
}

// ---------------------------------------------------------------- crash drill

export interface CrashDrill {
  poolSize: number;
  rows: number;
  /** The worker started with LAB_FAULTS=`faults`; the others and every replacement start without. */
  faultyPid: number;
  faults: string;
  /** Rows scored when the batch ended. */
  rowsScored: number;
  /** What the batch gave back; undefined when it rejected, as it should. */
  returned?: { scores: number };
  error?: ErrorSeen & { pid?: number; signal?: string | null };
  job: ExportJob;
  pidsBefore: number[];
  pidsAfter: number[];
  faultyStillAlive: boolean;
  nextBatch?: { scores: number; workerPids: number[]; difference?: string };
  nextError?: ErrorSeen;
}

/**
 * The fault drill: an export job of DRILL_ROWS rows on a pool whose first worker is
 * started with LAB_FAULTS=while-scoring:crash:once, so it SIGKILLs itself holding its
 * first row. Then, on the same pool, a 4-row batch that must match serial scoring.
 */
export function runCrashDrill(deps: ScenarioDeps = {}, signal?: AbortSignal): Promise<CrashDrill> {
  return withResources(signal, async (res) => {
    const s = settings(deps);
    const store = new MemoryJobStore();
    const job = await store.create(firstProductIds(s.drillRows));
    const pool = await openPool(res, s, { firstWorkerFaults: DRILL_FAULT });
    const pidsBefore = pool.pids();
    const faultyPid = pidsBefore[0]!;
    s.log(
      `pool ready: worker processes ${list(pidsBefore)}; worker ${faultyPid} was started with LAB_FAULTS=${DRILL_FAULT}`,
    );
    s.log(`export job ${job.id}: ${s.drillRows} rows`);

    let rowsScored = 0;
    let returned: CrashDrill['returned'];
    let error: CrashDrill['error'];
    try {
      const outcome = await runScoringExport({
        store,
        pool,
        jobId: job.id,
        rounds: s.rounds,
        onProgress: (done) => (rowsScored = done),
      });
      returned = { scores: outcome.scores.length };
    } catch (err) {
      error =
        err instanceof WorkerProcessLostError ? { ...seen(err), pid: err.pid, signal: err.exit.signal } : seen(err);
    }
    s.log(
      error
        ? `batch failed after ${rowsScored} of ${s.drillRows} rows: ${error.message}`
        : `batch returned ${returned?.scores} scores`,
    );
    const after = await store.require(job.id);
    s.log(
      `job ${job.id}: ${after.state}, error ${JSON.stringify(after.error)}, result ${JSON.stringify(after.result)}`,
    );

    await pool.whenReady();
    const pidsAfter = pool.pids();
    const faultyStillAlive = await waitFor('the crashed worker to be gone', () => !isAlive(faultyPid), {
      timeoutMs: 5000,
    }).then(
      () => false,
      () => true,
    );
    s.log(`pool after the loss: worker processes ${list(pidsAfter)}`);

    let nextBatch: CrashDrill['nextBatch'];
    let nextError: ErrorSeen | undefined;
    try {
      nextBatch = await recoveryBatch(pool, s);
      s.log(
        `next batch: ${nextBatch.scores} scores from ${list(nextBatch.workerPids)}, ${nextBatch.difference ?? 'equal to serial'}`,
      );
    } catch (err) {
      nextError = seen(err);
      s.log(`next batch failed: ${nextError.message}`);
    }
    return {
      poolSize: s.poolSize,
      rows: s.drillRows,
      faultyPid,
      faults: DRILL_FAULT,
      rowsScored,
      returned,
      error,
      job: after,
      pidsBefore,
      pidsAfter,
      faultyStillAlive,
      nextBatch,
      nextError,
    };
  });
}

async function recoveryBatch(pool: ProcessPool, s: Settings) {
  const rows = exportRowsFor(firstProductIds(4));
  const serial = scoreSerially(await loadScorer(s.scorerUrl), rows, s.rounds);
  const { scores, workerPids } = await pool.scoreBatch(rows, { rounds: s.rounds });
  return { scores: scores.length, workerPids, difference: findScoreDifference(serial, scores) };
}

/** Pids in ascending order, for reading and for comparing two lists as sets. */
export const list = (pids: readonly number[]) => [...pids].sort((a, b) => a - b).join(', ');
