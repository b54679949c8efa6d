// Lesson 06's learning checks and fault drill. Every check runs real worker
// processes (fork + tsx) and, in the drill, really kills one with SIGKILL.
// Two experiments feed several checks each, run once and shared:
//   comparison: serial vs pool on the same rows, two batches on one pool;
//   kill drill: SIGKILL a worker mid-batch, then run the next batch on the same pool.
import { isAlive, outcome, waitFor, type Check } from '@tasks-lab/lab-kit';
import { findScoreDifference, firstProductIds, scoreSerially } from '../src/compare.ts';
import { runScoringExport } from '../src/export-job.ts';
import { ProcessPool, type ScoreBatchOutcome, type ProcessPoolOptions } from '../src/process-pool.ts';
import { DEFAULT_ROUNDS, DEFAULT_SCORER_URL, exportRowsFor, loadScorer, type ExportRow, type RowScore } from '../src/scoring.ts';
import { JobStore, type ExportJob } from '../src/store.ts';

export interface CheckDeps {
  /** Builds the pool under test (not started). Tests pass deliberately broken pools. */
  createPool?: (options: ProcessPoolOptions) => ProcessPool;
  /** The scoring module, for the serial run and the workers alike. */
  scorerUrl?: string;
  /** Rows per batch in the comparison. @defaultValue 8 */
  rowCount?: number;
  /** Rows in the batch the drill kills a worker in. @defaultValue 12 */
  drillRowCount?: number;
  /** @defaultValue DEFAULT_ROUNDS (2000, the course's value) */
  rounds?: number;
  /** Progress lines for the hand-run drill; silent in verify. */
  log?: (line: string) => void;
}

const POOL_SIZE = 2;
/** The try-it-yourself size: so little work that start-up and copying dominate. */
const SMALL_ROUNDS = 10;

const ms = (started: number) => Math.round(performance.now() - started);
const list = (pids: readonly number[]) => [...pids].sort((a, b) => a - b).join(', ');
const sameSet = (a: readonly number[], b: readonly number[]) => list(a) === list(b);

function settings(deps: CheckDeps) {
  return {
    createPool: deps.createPool ?? ((options: ProcessPoolOptions) => new ProcessPool(options)),
    scorerUrl: deps.scorerUrl ?? DEFAULT_SCORER_URL,
    rowCount: deps.rowCount ?? 8,
    drillRowCount: deps.drillRowCount ?? 12,
    rounds: deps.rounds ?? DEFAULT_ROUNDS,
    log: deps.log ?? (() => {}),
  };
}

async function startPool(deps: CheckDeps, extra: ProcessPoolOptions = {}): Promise<ProcessPool> {
  const { createPool, scorerUrl } = settings(deps);
  return createPool({ size: POOL_SIZE, scorerUrl, ...extra }).start();
}

/** Runs `experiment` once, however many checks ask for it. */
function once<T>(experiment: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  return () => (running ??= experiment());
}

// ---------------------------------------------------------------- comparison

export interface Comparison {
  rows: number;
  rounds: number;
  parentPid: number;
  startupMs: number;
  poolPids: number[];
  serial: RowScore[];
  serialMs: number;
  first: ScoreBatchOutcome;
  firstMs: number;
  second: ScoreBatchOutcome;
  poolPidsAfter: number[];
  small: { serialMs: number; poolMs: number; difference?: string };
}

export async function runComparison(deps: CheckDeps = {}): Promise<Comparison> {
  const { scorerUrl, rowCount, rounds } = settings(deps);
  const scorer = await loadScorer(scorerUrl);
  const rows = exportRowsFor(firstProductIds(rowCount));

  let started = performance.now();
  const serial = scoreSerially(scorer, rows, rounds);
  const serialMs = ms(started);

  const pool = await startPool(deps);
  try {
    const poolPids = pool.pids();
    started = performance.now();
    const first = await pool.scoreBatch(rows, { rounds });
    const firstMs = ms(started);
    // The second batch is a second "request": it must land on the same processes.
    const second = await pool.scoreBatch(rows, { rounds });

    started = performance.now();
    const smallSerial = scoreSerially(scorer, rows, SMALL_ROUNDS);
    const smallSerialMs = ms(started);
    started = performance.now();
    const smallPooled = await pool.scoreBatch(rows, { rounds: SMALL_ROUNDS });
    const small = { serialMs: smallSerialMs, poolMs: ms(started), difference: findScoreDifference(smallSerial, smallPooled.scores) };

    return {
      rows: rowCount, rounds, parentPid: process.pid, startupMs: pool.startupMs, poolPids,
      serial, serialMs, first, firstMs, second, poolPidsAfter: pool.pids(), small,
    };
  } finally {
    await pool.close();
  }
}

function equalScoresCheck(comparison: () => Promise<Comparison>): Check {
  return {
    name: 'serial and pool scores are equal (same scores, same order)',
    async run() {
      const c = await comparison();
      const difference = findScoreDifference(c.serial, c.first.scores);
      const sample = c.serial[0] ? `product ${c.serial[0].productId} -> ${c.serial[0].score}` : 'none';
      return outcome(
        difference === undefined,
        difference
          ? `serial and pool differ: ${difference}`
          : `${c.rows} rows, ${c.first.scores.length} equal scores in the same order (first: ${sample})`,
      );
    },
  };
}

function timingsCheck(comparison: () => Promise<Comparison>): Check {
  return {
    name: 'both timings are reported; the pool is not assumed to be faster',
    async run() {
      const c = await comparison();
      const measured = [c.serialMs, c.firstMs, c.startupMs, c.small.serialMs, c.small.poolMs].every(Number.isFinite);
      // A timing is only worth reading once the results agree, at both sizes.
      const agree = findScoreDifference(c.serial, c.first.scores) === undefined && c.small.difference === undefined;
      const verdict = c.firstMs < c.serialMs ? 'the pool was faster this time' : 'the pool was not faster this time';
      return outcome(
        measured && agree && c.startupMs > 0,
        `${c.rows} rows x ${c.rounds} rounds: serial ${c.serialMs} ms, pool of ${POOL_SIZE} ${c.firstMs} ms (${verdict}); ` +
          `x ${SMALL_ROUNDS} rounds: serial ${c.small.serialMs} ms, pool ${c.small.poolMs} ms; ` +
          `starting ${POOL_SIZE} worker processes took ${c.startupMs} ms, once` +
          (agree ? '' : '; the scores did not agree, so these timings mean nothing'),
      );
    },
  };
}

function reuseCheck(comparison: () => Promise<Comparison>): Check {
  return {
    name: 'the pool is created once and reused: two batches, same worker pids',
    async run() {
      const c = await comparison();
      const ok =
        c.poolPids.length === POOL_SIZE &&
        !c.poolPids.includes(c.parentPid) &&
        sameSet(c.first.workerPids, c.poolPids) &&
        sameSet(c.second.workerPids, c.poolPids) &&
        sameSet(c.poolPidsAfter, c.poolPids);
      return outcome(
        ok,
        `pool started pids ${list(c.poolPids)} (parent ${c.parentPid}); batch 1 ran on ${list(c.first.workerPids)}, ` +
          `batch 2 on ${list(c.second.workerPids)}; pool pids afterwards ${list(c.poolPidsAfter)}`,
      );
    },
  };
}

// ------------------------------------------------------------ not sendable

/** A row carrying a function, the Node twin of submitting a local function to a Python pool. */
export function rowWithFunction(productId: number): ExportRow {
  const row = { ...exportRowsFor([productId])[0]!, normalise: (text: string) => text.trim() };
  return row as ExportRow;
}

function notSendableCheck(deps: CheckDeps): Check {
  return {
    name: 'a function in a row fails visibly before anything is sent',
    async run() {
      const { rounds } = settings(deps);
      const rows = [...exportRowsFor([1, 2]), rowWithFunction(3), ...exportRowsFor([4])];
      const store = new JobStore();
      const job = store.create(rows.map((row) => row.productId));
      const pool = await startPool(deps);
      let scored = 0;
      let error: Error | undefined;
      try {
        await runScoringExport({ store, pool, jobId: job.id, rows, rounds, onProgress: (done) => (scored = done) });
      } catch (err) {
        error = err as Error;
      } finally {
        await pool.close();
      }
      const after = store.require(job.id);
      const trap = await jsonTrap();
      const ok =
        /^row 2 cannot be sent to a worker process: .*could not be cloned/.test(error?.message ?? '') &&
        after.state === 'failed' && after.error === error?.message && after.result === null && scored === 0;
      return outcome(
        ok,
        (error ? `batch rejected: "${error.message}"` : `no error: the batch succeeded with ${scored} rows`) +
          `; job ${after.state}, result ${JSON.stringify(after.result)}, ${scored} rows scored; ` +
          `with Node's default JSON channel instead, the worker received keys [${trap.keys.join(', ')}] and no error: the function silently vanished`,
      );
    },
  };
}

/** The trap: fork's default JSON serialization drops a function without a word. */
async function jsonTrap(): Promise<{ keys: string[] }> {
  const pool = await new ProcessPool({ size: 1, serialization: 'json' }).start();
  try {
    const { keys } = await pool.echo(rowWithFunction(3));
    return { keys };
  } finally {
    await pool.close();
  }
}

// ---------------------------------------------------------------- kill drill

export interface KillDrill {
  rows: number;
  killedPid?: number;
  doneAtKill: number;
  /** What the batch gave back; undefined when it rejected, as it should. */
  returned?: ScoreBatchOutcome;
  error?: Error;
  job: ExportJob;
  pidsBefore: number[];
  pidsAfter: number[];
  killedStillAlive: boolean;
  nextBatch?: { scores: number; workerPids: number[]; difference?: string };
  nextError?: Error;
}

export async function runKillDrill(deps: CheckDeps = {}): Promise<KillDrill> {
  const { scorerUrl, drillRowCount, rounds, log } = settings(deps);
  const store = new JobStore();
  const job = store.create(firstProductIds(drillRowCount));
  const pool = await startPool(deps);
  const pidsBefore = pool.pids();
  log(`pool ready: worker processes ${list(pidsBefore)}; export job ${job.id} has ${drillRowCount} rows`);
  const drill: Partial<KillDrill> = { rows: drillRowCount, doneAtKill: 0, pidsBefore };
  try {
    try {
      drill.returned = await runScoringExport({
        store, pool, jobId: job.id, rounds,
        onProgress: (done, total) => {
          if (drill.killedPid !== undefined) return;
          // After the first row comes back, the batch is surely under way: kill a worker for real.
          drill.killedPid = pool.pids()[0]!;
          drill.doneAtKill = done;
          log(`${done}/${total} rows scored; sending SIGKILL to worker process ${drill.killedPid}`);
          process.kill(drill.killedPid, 'SIGKILL');
        },
      });
    } catch (err) {
      drill.error = err as Error;
    }
    log(drill.error ? `batch failed: ${drill.error.message}` : `batch returned ${drill.returned?.scores.length} scores`);
    drill.job = store.require(job.id);
    log(`job ${job.id}: ${drill.job.state}, error ${JSON.stringify(drill.job.error)}, result ${JSON.stringify(drill.job.result)}`);

    await pool.whenReady();
    drill.pidsAfter = pool.pids();
    drill.killedStillAlive = await waitFor('the killed worker to be gone', () => !isAlive(drill.killedPid ?? -1), { timeoutMs: 5000 })
      .then(() => false, () => true);
    log(`pool after the loss: worker processes ${list(drill.pidsAfter)}`);
    const next = await recoveryBatch(pool, scorerUrl, rounds).catch((err: Error) => err);
    if (next instanceof Error) drill.nextError = next;
    else drill.nextBatch = next;
    log(next instanceof Error ? `next batch failed: ${next.message}` : `next batch: ${next.scores} scores from ${list(next.workerPids)}`);
  } finally {
    await pool.close();
  }
  return drill as KillDrill;
}

async function recoveryBatch(pool: ProcessPool, scorerUrl: string, rounds: number) {
  const rows = exportRowsFor(firstProductIds(4));
  const serial = scoreSerially(await loadScorer(scorerUrl), rows, rounds);
  const { scores, workerPids } = await pool.scoreBatch(rows, { rounds });
  return { scores: scores.length, workerPids, difference: findScoreDifference(serial, scores) };
}

function killedWorkerCheck(drill: () => Promise<KillDrill>): Check {
  return {
    name: 'a worker killed mid-batch fails the whole batch: no scores, job failed, clear error',
    async run() {
      const d = await drill();
      const expected = `worker process ${d.killedPid} exited (SIGKILL) during batch`;
      const ok =
        d.killedPid !== undefined && d.doneAtKill < d.rows &&
        d.returned === undefined && d.error?.message === expected &&
        d.job.state === 'failed' && d.job.error === expected && d.job.result === null;
      const got = d.returned
        ? `the batch resolved with ${d.returned.scores.length} of ${d.rows} scores`
        : `the batch rejected: "${d.error?.message}", 0 scores returned`;
      return outcome(
        ok,
        `SIGKILL to worker ${d.killedPid ?? '(none: the batch ended before any row finished)'} after ${d.doneAtKill} of ${d.rows} rows; ` +
          `${got}; job ${d.job.state}, error ${JSON.stringify(d.job.error)}, result ${JSON.stringify(d.job.result)}`,
      );
    },
  };
}

function recoveryCheck(drill: () => Promise<KillDrill>): Check {
  return {
    name: 'after a lost worker the pool replaces it and the next batch succeeds',
    async run() {
      const d = await drill();
      const survivors = d.pidsBefore.filter((pid) => pid !== d.killedPid);
      const replacements = d.pidsAfter.filter((pid) => !d.pidsBefore.includes(pid));
      const ok =
        d.pidsAfter.length === POOL_SIZE && !d.pidsAfter.includes(d.killedPid ?? -1) && !d.killedStillAlive &&
        survivors.every((pid) => d.pidsAfter.includes(pid)) && replacements.length === 1 &&
        d.nextBatch !== undefined && d.nextBatch.difference === undefined;
      return outcome(
        ok,
        `pids before ${list(d.pidsBefore)}, after ${list(d.pidsAfter)} (killed ${d.killedPid} ${d.killedStillAlive ? 'still alive' : 'gone'}, ` +
          `replacement ${list(replacements) || 'none'}); ` +
          (d.nextBatch
            ? `next batch: ${d.nextBatch.scores} scores from ${list(d.nextBatch.workerPids)}, ${d.nextBatch.difference ?? 'equal to serial'}`
            : `next batch failed: ${d.nextError?.message}`),
      );
    },
  };
}

export function buildChecks(deps: CheckDeps = {}): Check[] {
  const comparison = once(() => runComparison(deps));
  const drill = once(() => runKillDrill(deps));
  return [
    equalScoresCheck(comparison),
    timingsCheck(comparison),
    reuseCheck(comparison),
    notSendableCheck(deps),
    killedWorkerCheck(drill),
    recoveryCheck(drill),
  ];
}
