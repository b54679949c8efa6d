// `pnpm bench:claims` (from the root): the ordered claims, measured. Three claims, each at 1, 2,
// 4 and 8 concurrent claimers, each draining the same backlog of BACKLOG rows:
//
//   outbox   the publisher's database round: lesson 12's claimEvents (a batch of 10, the
//            `ORDER BY created_at, id LIMIT n FOR UPDATE SKIP LOCKED` claim), then lesson 15's
//            confirmAndRecordDispatch for each event, as lessons 15 and 16's publisher does
//            (without the send: the broker is not what is measured). Its rate is in events.
//   scan     the recovery scanner's queued-job pass (lesson 15's "queued to end": `ORDER BY
//            updated_at, id LIMIT 50 FOR UPDATE SKIP LOCKED`, then each job cancelled and out of
//            the gate), run alone through recoverBatchWith. Its rate is in jobs.
//   job      lesson 11's claim: the worker's primary-key claim of the one job its message names.
//
// The index finding (docs/mysql-and-mariadb.md): an ORDER BY the index cannot
// deliver makes the server sort every eligible row and LOCK them all before it returns the first
// n, so a second claimer finds nothing. The outbox and the scan are measured twice in the same
// run, on two scratch databases: one with the labs' indexes, one with the course's schema
// (lesson 12's USE_COURSE_CLAIM_INDEX, lesson 15's DROP_QUEUED_TO_END_INDEX), and compared as a
// ratio. The job claim reads one row by its primary key: no ORDER BY, no such index; it is
// measured once, on the labs' schema, as the yardstick beside them.
//
// What is held constant: the backlog (BACKLOG jobs admitted through lesson 16's admitTraced before
// each measurement, untimed; for the scan, each then asked to cancel with lesson 15's
// requestCancel), the course's timings (claim 30 s, batch 10; scan batch 50; lease 30 s), and
// the order: claimer counts in turn, and at each the two schemas one after the other, so a
// machine that slows down slows both alike. A claimer that got nothing while rows were left
// (an "empty claim": the finding's symptom) pauses EMPTY_PAUSE_MS and tries again, as a
// publisher waits for its next nudge, instead of spinning on the cores the holder needs. Each
// figure is the median of the runs; every run is kept in the JSON.
//
//   pnpm bench:claims                          3 runs, a backlog of 1000 (about 2 minutes)
//   pnpm bench:claims -- --quick               1 run, a backlog of 300: to try it, not to quote
//   pnpm bench:claims -- --runs 5 --backlog 3000   steadier figures, a deeper backlog
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { ensureInfra } from '@tasks-lab/infra';
import { median, runMain, sleep, withResources } from '@tasks-lab/lab-kit';
import { claim, type FreshDatabase } from '@tasks-lab/11-mysql-leases';
import { claimEvents, EXPLAIN_CLAIM, USE_COURSE_CLAIM_INDEX } from '@tasks-lab/12-outbox';
import {
  confirmAndRecordDispatch,
  DROP_QUEUED_TO_END_INDEX,
  EXPLAIN_QUEUED_TO_END,
  RECOVERY_PASSES,
  recoverBatchWith,
  recoveredCount,
  requestCancel,
} from '@tasks-lab/15-recovery';
import { admitTraced, COURSE_TIMINGS, freshDatabase } from '@tasks-lab/16-observability';

export const CLAIMERS = [1, 2, 4, 8] as const;
export const CLAIM_KINDS = ['outbox', 'scan', 'job'] as const;
export type ClaimKind = (typeof CLAIM_KINDS)[number];
/** The labs' indexes, or the course's schema (the index the lab added dropped or swapped). */
export const SCHEMAS = ['lab', 'course'] as const;
export type Schema = (typeof SCHEMAS)[number];

/** One measurement: `claimers` claimers draining `backlog` rows. */
export interface ClaimRun {
  kind: ClaimKind;
  schema: Schema;
  claimers: number;
  run: number;
  backlog: number;
  /** Rows taken: events (outbox) or jobs (scan, job). */
  taken: number;
  ms: number;
  perSecond: number;
  /** Claim statements run (transactions of claimEvents, passes, claims). */
  claims: number;
  /** Claims that got nothing while rows were still left: the claimer was locked out. */
  empty: number;
  /** The median duration of one claim transaction that took rows (claimEvents, the pass, claim), in ms. */
  claimMsP50: number;
}

/** What EXPLAIN said of a claim's locking SELECT on a schema: the index and the Extra column. */
export interface ClaimPlan {
  kind: Exclude<ClaimKind, 'job'>;
  schema: Schema;
  key: string;
  extra: string;
}

export interface ClaimsSettings {
  runs: number;
  backlog: number;
  claimers: readonly number[];
  outboxBatch: number;
  scanBatch: number;
}

export interface ClaimsBenchResult {
  settings: ClaimsSettings;
  plans: ClaimPlan[];
  runs: ClaimRun[];
}

/** The median of the runs of one kind, schema and claimer count. */
export interface ClaimMedian {
  kind: ClaimKind;
  schema: Schema;
  claimers: number;
  perSecond: number;
  claimMsP50: number;
  /** Empty claims, all runs together. */
  empty: number;
  runs: number;
}

const FULL = { runs: 3, backlog: 1000 } as const;
const QUICK = { runs: 1, backlog: 300 } as const;
/** The publisher's batch (OUTBOX_BATCH) and the scanner's (RECOVERY_BATCH): the course's values. */
const OUTBOX_BATCH = COURSE_TIMINGS.batch;
const SCAN_BATCH = COURSE_TIMINGS.recoveryBatch;
/** A claimer that got nothing waits this long before it tries again (see the header). */
const EMPTY_PAUSE_MS = 5;
/** Seeding and cancelling run this many at a time (untimed). */
const SEED_CONCURRENCY = 4;
/** A drain that takes longer than this is stuck, not slow: it stops with an error. */
const STALLED_AFTER_MS = 120_000;
const PRODUCTS = [1, 2, 3];
const RESULTS_DIR = fileURLToPath(new URL('../bench-results', import.meta.url));

// ---- the figures (pure) ---------------------------------------------------------------------

/** One median per kind, schema and claimer count that has runs, in CLAIM_KINDS x SCHEMAS x claimers order. */
export function claimMedians(result: Pick<ClaimsBenchResult, 'runs' | 'settings'>): ClaimMedian[] {
  const medians: ClaimMedian[] = [];
  for (const kind of CLAIM_KINDS) {
    for (const schema of SCHEMAS) {
      for (const claimers of result.settings.claimers) {
        const mine = result.runs.filter((r) => r.kind === kind && r.schema === schema && r.claimers === claimers);
        if (mine.length === 0) continue;
        medians.push({
          kind,
          schema,
          claimers,
          perSecond: median(mine.map((r) => r.perSecond)),
          claimMsP50: median(mine.map((r) => r.claimMsP50)),
          empty: mine.reduce((n, r) => n + r.empty, 0),
          runs: mine.length,
        });
      }
    }
  }
  return medians;
}

/** The median of one cell, or undefined when it was not measured. */
export function claimMedian(
  medians: readonly ClaimMedian[],
  kind: ClaimKind,
  schema: Schema,
  claimers: number,
): ClaimMedian | undefined {
  return medians.find((m) => m.kind === kind && m.schema === schema && m.claimers === claimers);
}

/** The labs' index over the course's, at one claimer count: how many times faster; NaN when either is missing. */
export function indexSpeedup(medians: readonly ClaimMedian[], kind: ClaimKind, claimers: number): number {
  const lab = claimMedian(medians, kind, 'lab', claimers)?.perSecond;
  const course = claimMedian(medians, kind, 'course', claimers)?.perSecond;
  return lab !== undefined && course !== undefined && course > 0 ? lab / course : Number.NaN;
}

const KIND_LABELS: Record<ClaimKind, string> = { outbox: 'outbox claim', scan: 'queued-job scan', job: 'job claim' };
const SCHEMA_LABELS: Record<Schema, string> = { lab: "the labs' index", course: "the course's schema" };

/** "[5/24] outbox claim, the course's schema, 4 claimers, run 1: 812 /s (37 empty claims, claim p50 4.1 ms)" */
export function describeClaimRun(step: number, total: number, run: ClaimRun): string {
  const who = run.kind === 'job' ? '' : `, ${SCHEMA_LABELS[run.schema]}`;
  return (
    `[${step}/${total}] ${KIND_LABELS[run.kind]}${who}, ${run.claimers} claimer${run.claimers > 1 ? 's' : ''}, run ${run.run}: ` +
    `${Math.round(run.perSecond)} /s (${run.taken} in ${Math.round(run.ms)} ms; ${run.empty} empty claims, claim p50 ${run.claimMsP50.toFixed(1)} ms)`
  );
}

// ---- draining a backlog ---------------------------------------------------------------------

/** One claim: the rows it took and how long its claim transaction took. */
interface Take {
  taken: number;
  ms: number;
}

interface Drained {
  taken: number;
  ms: number;
  claims: number;
  empty: number;
  claimMsP50: number;
}

/**
 * `claimers` claimers in a closed loop, each running `takeOnce` until `backlog` rows are taken
 * (or `takeOnce` says there is nothing left to try). The clock runs from the first claim to the
 * last one's end.
 */
async function drain(claimers: number, backlog: number, takeOnce: () => Promise<Take | undefined>): Promise<Drained> {
  let taken = 0;
  let claims = 0;
  let empty = 0;
  // The claims that took rows only: an empty claim returns early, and would make a locked-out claimer look fast.
  const durations: number[] = [];
  let exhausted = false;
  const started = performance.now();
  const claimer = async () => {
    while (taken < backlog && !exhausted) {
      if (performance.now() - started > STALLED_AFTER_MS)
        throw new Error(`stalled: ${taken} of ${backlog} taken after ${STALLED_AFTER_MS / 1000} s`);
      const take = await takeOnce();
      if (!take) {
        exhausted = true;
        return;
      }
      claims += 1;
      taken += take.taken;
      if (take.taken > 0) durations.push(take.ms);
      else if (taken < backlog) {
        empty += 1;
        await sleep(EMPTY_PAUSE_MS);
      }
    }
  };
  await Promise.all(Array.from({ length: claimers }, claimer));
  const ms = performance.now() - started;
  return { taken, ms, claims, empty, claimMsP50: median(durations) };
}

/** Runs one claim and times it. */
async function timedTake(work: () => Promise<number>): Promise<Take> {
  const started = performance.now();
  const taken = await work();
  return { taken, ms: performance.now() - started };
}

/** The publisher's database round: claim a batch, then confirm each event (the send left out). */
function outboxRound(pool: Pool): () => Promise<Take> {
  return async () => {
    const started = performance.now();
    const events = await claimEvents(pool, { batch: OUTBOX_BATCH, claimMs: COURSE_TIMINGS.claimMs });
    const take = { taken: events.length, ms: performance.now() - started };
    // Outside the claim's own clock (the same statement on either schema), inside the round's.
    for (const event of events) await confirmAndRecordDispatch(pool, event.eventId, event.token, event.jobId);
    return take;
  };
}

/** Lesson 15's scanner batch with its queued-to-end pass only. */
const queuedToEnd = RECOVERY_PASSES.filter((pass) => pass.name === 'queued to end');
if (queuedToEnd.length !== 1) throw new Error("lesson 15's RECOVERY_PASSES has no 'queued to end' pass");
const scanQueuedToEnd = recoverBatchWith(queuedToEnd);

function scanRound(pool: Pool): () => Promise<Take> {
  const options = {
    batch: SCAN_BATCH,
    retryBackoffMs: COURSE_TIMINGS.retryBackoffMs,
    unclaimedThresholdMs: COURSE_TIMINGS.unclaimedThresholdMs,
    maxAttempts: COURSE_TIMINGS.maxAttempts,
  };
  return () => timedTake(async () => recoveredCount(await scanQueuedToEnd(pool, options)));
}

/** Lesson 11's claim, one job id after the other from a shared list (each message names one job). */
function jobClaims(pool: Pool, jobIds: readonly string[]): () => Promise<Take | undefined> {
  let next = 0;
  return async () => {
    const jobId = jobIds[next++];
    if (jobId === undefined) return undefined;
    return timedTake(async () =>
      (await claim(pool, jobId, { leaseMs: COURSE_TIMINGS.leaseMs, maxAttempts: COURSE_TIMINGS.maxAttempts })) ? 1 : 0,
    );
  };
}

// ---- the backlog ----------------------------------------------------------------------------

/** Runs `work` for every item, `concurrency` at a time. */
async function forEachAtOnce<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** `count` jobs admitted the API's way (job, snapshot, outbox event, trace, the gate's counter). */
async function admitBacklog(pool: Pool, count: number): Promise<string[]> {
  const jobIds: string[] = [];
  const rules = { admissionLimit: 1_000_000 };
  await forEachAtOnce(
    Array.from({ length: count }, (_, i) => i),
    SEED_CONCURRENCY,
    async () => {
      jobIds.push((await admitTraced(pool, PRODUCTS, { rules, deadlineMs: COURSE_TIMINGS.deadlineMs })).jobId);
    },
  );
  return jobIds;
}

/** A scratch database of lab 16's chain; on the course's schema, the two indexes the labs added are swapped or dropped. */
async function scratchDatabase(schema: Schema, claimers: number): Promise<FreshDatabase> {
  const db = await freshDatabase(`claims${schema}`, { connectionLimit: Math.max(claimers, SEED_CONCURRENCY) * 2 });
  if (schema === 'course') {
    await db.pool.query(USE_COURSE_CLAIM_INDEX);
    await db.pool.query(DROP_QUEUED_TO_END_INDEX);
  }
  return db;
}

async function planOf(pool: Pool, kind: ClaimPlan['kind'], schema: Schema): Promise<ClaimPlan> {
  const [rows] =
    kind === 'outbox'
      ? await pool.query<RowDataPacket[]>(EXPLAIN_CLAIM, [OUTBOX_BATCH])
      : await pool.query<RowDataPacket[]>(EXPLAIN_QUEUED_TO_END, [COURSE_TIMINGS.maxAttempts, SCAN_BATCH]);
  const first = rows[0];
  return { kind, schema, key: String(first?.key ?? 'none (full scan)'), extra: String(first?.Extra ?? '') };
}

const toRun = (
  kind: ClaimKind,
  schema: Schema,
  claimers: number,
  run: number,
  backlog: number,
  drained: Drained,
): ClaimRun => ({
  kind,
  schema,
  claimers,
  run,
  backlog,
  taken: drained.taken,
  ms: drained.ms,
  perSecond: (drained.taken * 1000) / drained.ms,
  claims: drained.claims,
  empty: drained.empty,
  claimMsP50: drained.claimMsP50,
});

/**
 * The outbox and the scan on one schema, at one claimer count: a new backlog, drained by the
 * publisher's rounds; then every job asked to cancel, and drained by the scan. The plans are read
 * while the backlog is there (`plans` gets them once per schema).
 */
async function measureOrderedClaims(
  db: FreshDatabase,
  schema: Schema,
  claimers: number,
  run: number,
  backlog: number,
  plans: ClaimPlan[],
): Promise<ClaimRun[]> {
  const jobIds = await admitBacklog(db.pool, backlog);
  if (!plans.some((p) => p.schema === schema && p.kind === 'outbox'))
    plans.push(await planOf(db.pool, 'outbox', schema));
  const outbox = await drain(claimers, backlog, outboxRound(db.pool));
  await forEachAtOnce(jobIds, SEED_CONCURRENCY, (jobId) => requestCancel(db.pool, jobId));
  if (!plans.some((p) => p.schema === schema && p.kind === 'scan')) plans.push(await planOf(db.pool, 'scan', schema));
  const scan = await drain(claimers, backlog, scanRound(db.pool));
  return [toRun('outbox', schema, claimers, run, backlog, outbox), toRun('scan', schema, claimers, run, backlog, scan)];
}

async function measureJobClaims(db: FreshDatabase, claimers: number, run: number, backlog: number): Promise<ClaimRun> {
  const jobIds = await admitBacklog(db.pool, backlog);
  return toRun('job', 'lab', claimers, run, backlog, await drain(claimers, backlog, jobClaims(db.pool, jobIds)));
}

export interface ClaimsBenchOptions {
  /** 1 run, a backlog of 300 (unless `runs` or `backlog` say otherwise). */
  quick?: boolean;
  runs?: number;
  backlog?: number;
  log?: (line: string) => void;
}

/**
 * Every run: per run three scratch databases (the labs' schema and the course's for the ordered
 * claims, one more for the job claim), dropped at its end, also after an error.
 */
export async function runClaimsBench(options: ClaimsBenchOptions = {}): Promise<ClaimsBenchResult> {
  const defaults = options.quick ? QUICK : FULL;
  const runs = options.runs ?? defaults.runs;
  const backlog = options.backlog ?? defaults.backlog;
  const log = options.log ?? console.log;
  const settings: ClaimsSettings = {
    runs,
    backlog,
    claimers: [...CLAIMERS],
    outboxBatch: OUTBOX_BATCH,
    scanBatch: SCAN_BATCH,
  };
  const all: ClaimRun[] = [];
  const plans: ClaimPlan[] = [];
  const total = runs * CLAIMERS.length * (SCHEMAS.length * 2 + 1);
  const record = (measured: ClaimRun[]) => {
    for (const r of measured) {
      all.push(r);
      log(describeClaimRun(all.length, total, r));
    }
  };
  for (let run = 1; run <= runs; run += 1) {
    await withResources(undefined, async (res) => {
      const most = Math.max(...CLAIMERS);
      const open = async (schema: Schema) => res.add(await scratchDatabase(schema, most), (d) => d.drop());
      const databases = { lab: await open('lab'), course: await open('course') };
      // The job claim's own: its jobs' events stay unsent, and must not swell the outbox backlog of the others.
      const jobs = await open('lab');
      for (const claimers of CLAIMERS) {
        for (const schema of SCHEMAS)
          record(await measureOrderedClaims(databases[schema], schema, claimers, run, backlog, plans));
        record([await measureJobClaims(jobs, claimers, run, backlog)]);
      }
    });
  }
  return { settings, plans, runs: all };
}

/** `--quick`, `--runs N`, `--backlog N` (a `--` that pnpm passes through is dropped). */
export function parseClaimsArgs(args: readonly string[]): Omit<ClaimsBenchOptions, 'log'> {
  const { values } = parseArgs({
    args: args.filter((a) => a !== '--'),
    options: { quick: { type: 'boolean' }, runs: { type: 'string' }, backlog: { type: 'string' } },
    strict: true,
  });
  const whole = (name: string, text: string | undefined, max: number) => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1 || value > max)
      throw new Error(`--${name} takes a whole number from 1 to ${max}; got "${text}"`);
    return value;
  };
  return {
    quick: values.quick ?? false,
    runs: whole('runs', values.runs, 20),
    backlog: whole('backlog', values.backlog, 20_000),
  };
}

async function main(): Promise<void> {
  const options = parseClaimsArgs(process.argv.slice(2));
  await ensureInfra({ services: ['mysql'], log: (line) => console.log(`[infra] ${line}`) });
  const result = await runClaimsBench(options);
  console.log('\nPlans:');
  for (const plan of result.plans)
    console.log(`  ${KIND_LABELS[plan.kind]}, ${SCHEMA_LABELS[plan.schema]}: ${plan.key}; ${plan.extra}`);
  console.log('\nMedians (rows per second):');
  const medians = claimMedians(result);
  for (const claimers of result.settings.claimers) {
    const cell = (kind: ClaimKind, schema: Schema) =>
      Math.round(claimMedian(medians, kind, schema, claimers)?.perSecond ?? Number.NaN);
    console.log(
      `  ${claimers} claimer(s): outbox ${cell('outbox', 'lab')} vs ${cell('outbox', 'course')} (${indexSpeedup(medians, 'outbox', claimers).toFixed(2)}x), ` +
        `scan ${cell('scan', 'lab')} vs ${cell('scan', 'course')} (${indexSpeedup(medians, 'scan', claimers).toFixed(2)}x), job claim ${cell('job', 'lab')}`,
    );
  }
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `claims-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nEvery run: ${file}`);
}

runMain(import.meta.url, main);
