// The experiments behind lesson 11's lease checks. Each runs the real data layer
// against a real database and gathers evidence; the checks (lease-checks.ts) judge it.
// Every part a check may break is passed in (LeaseParts), so the can-fail tests run the
// same experiment with a broken claim, finish or requeue.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { barrier, errorMessage, sleep, waitFor, withResources, type Resources } from '@tasks-lab/lab-kit';
import { openJobsDatabase } from '../src/database.ts';
import { verifyDatabaseOnce as verifyLab11Database } from '../src/scratch-databases.ts';
import {
  artifactName,
  claim,
  finish,
  readJob,
  requeueExpiredLease,
  submitSnapshot,
  type ClaimedJob,
  type JobRow,
  type Snapshot,
} from '../src/leases.ts';
import { describeTimings, type LeaseOptionValues } from '../src/options.ts';

/** The data layer as the experiments use it; a can-fail test swaps in a broken one. */
export interface LeaseParts {
  submitSnapshot: typeof submitSnapshot;
  claim: typeof claim;
  finish: typeof finish;
  requeueExpiredLease: typeof requeueExpiredLease;
  readJob: typeof readJob;
}

export const REAL_LEASE_PARTS: LeaseParts = { submitSnapshot, claim, finish, requeueExpiredLease, readJob };

export interface LeaseContext {
  parts: LeaseParts;
  timings: LeaseOptionValues;
  /** The database to run in: made ready (created, migrated) before the first experiment. */
  database: () => Promise<string>;
}

/** Verify's database, dropped and recreated once per process (all checks of one run share it). */
export const verifyDatabaseOnce = (): Promise<string> => verifyLab11Database();

/** A pool on the context's database, owned by the scope (ended when the scenario ends or aborts). */
async function openPool(ctx: LeaseContext, res: Resources, connectionLimit = 5): Promise<Pool> {
  const pool = await openJobsDatabase({ database: await ctx.database(), settings: ctx.timings, connectionLimit });
  return res.add(pool, (p) => p.end());
}

/** A folder for artifacts, removed with the scope. */
async function artifactFolder(res: Resources): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'tasks-lab11-artifacts-'));
  res.defer(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

/** Writes the claimed job's snapshot to its own file (the name carries the token), outside any transaction. */
async function writeArtifact(folder: string, claimed: ClaimedJob): Promise<string> {
  const path = join(folder, artifactName(claimed.jobId, claimed.token));
  await writeFile(path, JSON.stringify(claimed.snapshot));
  return path;
}

/**
 * Waits until the SERVER says the job's lease has passed (its clock decides, not ours).
 * Parameters: [id]. Rows: 1 with passed = 1 once lease_until is behind NOW(6).
 */
const LEASE_HAS_PASSED = 'SELECT lease_until < NOW(6) AS passed FROM export_jobs WHERE id = ?';

async function waitForLeaseToPass(pool: Pool, jobId: string, ctx: LeaseContext, signal: AbortSignal): Promise<void> {
  await sleep(ctx.timings.leaseMs, signal);
  await waitFor(
    `the lease of job ${jobId} to pass`,
    async () => {
      const [rows] = await pool.query<RowDataPacket[]>(LEASE_HAS_PASSED, [jobId]);
      return Number(rows[0]?.passed) === 1;
    },
    { timeoutMs: ctx.timings.leaseMs + 5000, intervalMs: 50, signal },
  );
}

const FIRST_PRODUCT = [1];

// ---------------------------------------------------------------------------------
// The course's lease script, step by step

export interface LeaseScriptEvidence {
  timings: string;
  jobId: string;
  first?: ClaimedJob;
  afterFirst?: JobRow;
  secondClaim?: ClaimedJob;
  claimAfterExpiry?: ClaimedJob;
  oldFinishAfterExpiry?: boolean;
  requeued?: boolean;
  renewed?: ClaimedJob;
  oldFinishAfterNewClaim?: boolean;
  newArtifact?: string;
  newFinish?: boolean;
  final?: JobRow;
}

/**
 * One job through the course's script: claim; claim again during the lease; let the lease
 * pass and claim again; finish with the old token; requeue by hand; claim anew; finish
 * with the old token again; write the new holder's artifact and finish with the new token.
 * It stops at the first step that leaves nothing to continue with.
 */
export function leaseScript(ctx: LeaseContext, signal: AbortSignal): Promise<LeaseScriptEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openPool(ctx, res);
    const folder = await artifactFolder(res);
    const { parts, timings } = ctx;
    const lease = { leaseMs: timings.leaseMs, maxAttempts: timings.maxAttempts };
    const { jobId } = await parts.submitSnapshot(pool, FIRST_PRODUCT, { deadlineMs: timings.deadlineMs });
    const evidence: LeaseScriptEvidence = { timings: describeTimings(timings), jobId };

    evidence.first = await parts.claim(pool, jobId, lease);
    evidence.afterFirst = await parts.readJob(pool, jobId);
    if (!evidence.first) return evidence;
    evidence.secondClaim = await parts.claim(pool, jobId, lease);

    await waitForLeaseToPass(pool, jobId, ctx, res.signal);
    evidence.claimAfterExpiry = await parts.claim(pool, jobId, lease);
    evidence.oldFinishAfterExpiry = await parts.finish(pool, jobId, evidence.first.token, 'never-written');

    evidence.requeued = await parts.requeueExpiredLease(pool, jobId);
    evidence.renewed = await parts.claim(pool, jobId, lease);
    evidence.oldFinishAfterNewClaim = await parts.finish(pool, jobId, evidence.first.token, 'never-written');
    if (evidence.renewed) {
      evidence.newArtifact = await writeArtifact(folder, evidence.renewed);
      evidence.newFinish = await parts.finish(pool, jobId, evidence.renewed.token, evidence.newArtifact);
    }
    evidence.final = await parts.readJob(pool, jobId);
    return evidence;
  });
}

// ---------------------------------------------------------------------------------
// Races

/** One pool of ONE connection per claimer, opened and warmed before the race starts. */
async function claimerPools(ctx: LeaseContext, res: Resources, count: number): Promise<Pool[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const pool = await openPool(ctx, res, 1);
      await pool.query('SELECT 1'); // the connection exists (and has its session settings) before the barrier opens
      return pool;
    }),
  );
}

export interface OneJobRaceEvidence {
  timings: string;
  claimers: number;
  tokens: string[];
  failures: string[];
  row?: JobRow;
}

/** `claimers` workers, each on its own connection, claim ONE job at the same instant. */
export function raceForOneJob(ctx: LeaseContext, signal: AbortSignal, claimers = 20): Promise<OneJobRaceEvidence> {
  return withResources(signal, async (res) => {
    const setup = await openPool(ctx, res);
    const { jobId } = await ctx.parts.submitSnapshot(setup, FIRST_PRODUCT, { deadlineMs: ctx.timings.deadlineMs });
    const pools = await claimerPools(ctx, res, claimers);
    const start = barrier();
    const results = Promise.allSettled(
      pools.map(async (pool) => {
        await start.wait;
        return ctx.parts.claim(pool, jobId, { leaseMs: ctx.timings.leaseMs, maxAttempts: ctx.timings.maxAttempts });
      }),
    );
    start.open();
    const settled = await results;
    return {
      timings: describeTimings(ctx.timings),
      claimers,
      tokens: settled.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value.token] : [])),
      failures: settled.flatMap((r) => (r.status === 'rejected' ? [errorMessage(r.reason)] : [])),
      row: await ctx.parts.readJob(setup, jobId),
    };
  });
}

export interface ManyJobsEvidence {
  timings: string;
  jobs: number;
  claimers: number;
  /** How many claims succeeded for each job id. */
  claimsPerJob: Map<string, number>;
  failures: string[];
  /** attempts as the table holds it, per job. */
  attemptsPerJob: Map<string, number>;
}

/** How many times each job was claimed, as the table counts it. Rows: one per id. Parameters: [ids]. */
const ATTEMPTS_OF_JOBS = 'SELECT id, attempts FROM export_jobs WHERE id IN (?)';

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** `jobs` jobs and `claimers` claimers, each given every job id in its own shuffled order. */
export function claimManyJobs(
  ctx: LeaseContext,
  signal: AbortSignal,
  jobs = 200,
  claimers = 8,
): Promise<ManyJobsEvidence> {
  return withResources(signal, async (res) => {
    const setup = await openPool(ctx, res);
    const ids: string[] = [];
    for (let i = 0; i < jobs; i += 1) {
      ids.push((await ctx.parts.submitSnapshot(setup, FIRST_PRODUCT, { deadlineMs: ctx.timings.deadlineMs })).jobId);
    }
    // Long enough that no lease passes during the race: a claim that ignores leases would still claim twice.
    const lease = { leaseMs: Math.max(ctx.timings.leaseMs, 60_000), maxAttempts: ctx.timings.maxAttempts };
    const pools = await claimerPools(ctx, res, claimers);
    const claimsPerJob = new Map(ids.map((id) => [id, 0]));
    const failures: string[] = [];
    const start = barrier();
    const running = Promise.all(
      pools.map(async (pool) => {
        await start.wait;
        for (const id of shuffled(ids)) {
          res.throwIfAborted();
          try {
            if (await ctx.parts.claim(pool, id, lease)) claimsPerJob.set(id, (claimsPerJob.get(id) ?? 0) + 1);
          } catch (err) {
            failures.push(errorMessage(err));
          }
        }
      }),
    );
    start.open();
    await running;
    const [rows] = await setup.query<RowDataPacket[]>(ATTEMPTS_OF_JOBS, [ids]);
    return {
      timings: describeTimings(ctx.timings),
      jobs,
      claimers,
      claimsPerJob,
      failures,
      attemptsPerJob: new Map(rows.map((row) => [String(row.id), Number(row.attempts)])),
    };
  });
}

// ---------------------------------------------------------------------------------
// A zombie: a holder that was paused past its lease

export interface ZombieEvidence {
  timings: string;
  jobId: string;
  zombie?: ClaimedJob;
  successor?: ClaimedJob;
  beforeZombieFinish?: JobRow;
  zombieFinish?: boolean;
  afterZombieFinish?: JobRow;
  zombieArtifact?: string;
  successorArtifact?: string;
  successorFinish?: boolean;
  final?: JobRow;
}

/**
 * A holder claims, then stops (a long GC pause, a suspended VM: here, it sleeps) past its
 * lease. The job is requeued and claimed by a successor. The zombie wakes up while the
 * successor is still working, writes its artifact and tries to finish; then the
 * successor finishes.
 */
export function zombieHolder(ctx: LeaseContext, signal: AbortSignal): Promise<ZombieEvidence> {
  return withResources(signal, async (res) => {
    const zombiePool = await openPool(ctx, res, 1);
    const successorPool = await openPool(ctx, res, 1);
    const folder = await artifactFolder(res);
    const { parts, timings } = ctx;
    const lease = { leaseMs: timings.leaseMs, maxAttempts: timings.maxAttempts };
    const { jobId } = await parts.submitSnapshot(successorPool, FIRST_PRODUCT, { deadlineMs: timings.deadlineMs });
    const evidence: ZombieEvidence = { timings: describeTimings(timings), jobId };

    evidence.zombie = await parts.claim(zombiePool, jobId, lease);
    if (!evidence.zombie) return evidence;
    await waitForLeaseToPass(successorPool, jobId, ctx, res.signal); // the zombie is "paused" all this time
    await parts.requeueExpiredLease(successorPool, jobId);
    evidence.successor = await parts.claim(successorPool, jobId, lease);
    if (!evidence.successor) return evidence;

    // The zombie resumes where it stopped: it writes its artifact and tries to publish it.
    evidence.zombieArtifact = await writeArtifact(folder, evidence.zombie);
    evidence.beforeZombieFinish = await parts.readJob(successorPool, jobId);
    evidence.zombieFinish = await parts.finish(zombiePool, jobId, evidence.zombie.token, evidence.zombieArtifact);
    evidence.afterZombieFinish = await parts.readJob(successorPool, jobId);

    evidence.successorArtifact = await writeArtifact(folder, evidence.successor);
    evidence.successorFinish = await parts.finish(
      successorPool,
      jobId,
      evidence.successor.token,
      evidence.successorArtifact,
    );
    evidence.final = await parts.readJob(successorPool, jobId);
    return evidence;
  });
}

// ---------------------------------------------------------------------------------
// Duplicate deliveries before next_attempt_at

export interface EarlyDuplicatesEvidence {
  timings: string;
  jobId: string;
  requeued?: boolean;
  nextAttemptAt?: Date;
  /** Claims made before next_attempt_at, and how many of them got the job. */
  earlyDeliveries: number;
  earlyClaims: number;
  /** The first claim after next_attempt_at. */
  dueClaim?: ClaimedJob;
}

/**
 * A job whose lease passed is requeued with the retry backoff. The wake-up message is
 * delivered again and again (a redelivery, a duplicate) before the backoff is over: each
 * delivery tries to claim. After the backoff, one delivery claims it.
 */
export function earlyDuplicates(
  ctx: LeaseContext,
  signal: AbortSignal,
  deliveries = 5,
): Promise<EarlyDuplicatesEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openPool(ctx, res);
    const { parts, timings } = ctx;
    const lease = { leaseMs: timings.leaseMs, maxAttempts: timings.maxAttempts };
    const { jobId } = await parts.submitSnapshot(pool, FIRST_PRODUCT, { deadlineMs: timings.deadlineMs });
    const evidence: EarlyDuplicatesEvidence = {
      timings: describeTimings(timings),
      jobId,
      earlyDeliveries: 0,
      earlyClaims: 0,
    };
    const first = await parts.claim(pool, jobId, lease);
    if (!first) return evidence;
    await waitForLeaseToPass(pool, jobId, ctx, res.signal);
    evidence.requeued = await parts.requeueExpiredLease(pool, jobId, { backoffMs: timings.retryBackoffMs });
    evidence.nextAttemptAt = (await parts.readJob(pool, jobId))?.nextAttemptAt;
    const dueAt = evidence.nextAttemptAt?.getTime() ?? Date.now();
    // Spread the deliveries over the first half of the backoff, leaving a safe margin before it ends.
    for (let i = 0; i < deliveries && Date.now() < dueAt - 100; i += 1) {
      evidence.earlyDeliveries += 1;
      if (await parts.claim(pool, jobId, lease)) evidence.earlyClaims += 1;
      await sleep(Math.min(50, timings.retryBackoffMs / (2 * deliveries)), res.signal);
    }
    await sleep(Math.max(0, dueAt - Date.now()) + 50, res.signal);
    evidence.dueClaim = await waitFor('a claim after next_attempt_at', () => parts.claim(pool, jobId, lease), {
      timeoutMs: 5000,
      intervalMs: 50,
      signal: res.signal,
    }).catch(() => undefined);
    return evidence;
  });
}

// ---------------------------------------------------------------------------------
// The frozen snapshot

export interface FrozenSnapshotEvidence {
  timings: string;
  submitted: Snapshot;
  edited: Snapshot;
  /** What the worker gets to export (the claim's snapshot). */
  claimed?: Snapshot;
  /** What the table holds. */
  stored?: Snapshot;
}

/** Adds a product to the products table (for an experiment of its own). Affected rows: 1. Parameters: [name, description, price]. */
const ADD_PRODUCT = 'INSERT INTO products (name, description, is_active, price_cents) VALUES (?, ?, TRUE, ?)';
/** Edits a product the way the shop would (new name, price, inactive, version + 1). Affected rows: 1. Parameters: [name, price, id]. */
const EDIT_PRODUCT =
  'UPDATE products SET name = ?, price_cents = ?, is_active = FALSE, version = version + 1, updated_at = NOW(6) WHERE id = ?';

/** Submits an export of one product, edits the product, then claims the job and reads its row. */
export function frozenSnapshot(ctx: LeaseContext, signal: AbortSignal): Promise<FrozenSnapshotEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openPool(ctx, res);
    const [added] = await pool.query<ResultSetHeader>(ADD_PRODUCT, ['Snapshot lamp', 'Before the edit', 1999]);
    const productId = added.insertId;
    const { jobId } = await ctx.parts.submitSnapshot(pool, [productId], { deadlineMs: ctx.timings.deadlineMs });
    const [edited] = await pool.query<ResultSetHeader>(EDIT_PRODUCT, ['Snapshot lamp (renamed)', 2999, productId]);
    if (edited.affectedRows !== 1) throw new Error(`editing product ${productId} affected ${edited.affectedRows} rows`);
    const claimed = await ctx.parts.claim(pool, jobId, {
      leaseMs: ctx.timings.leaseMs,
      maxAttempts: ctx.timings.maxAttempts,
    });
    const stored = await ctx.parts.readJob(pool, jobId);
    return {
      timings: describeTimings(ctx.timings),
      submitted: {
        id: productId,
        name: 'Snapshot lamp',
        description: 'Before the edit',
        is_active: true,
        price_cents: 1999,
      },
      edited: {
        id: productId,
        name: 'Snapshot lamp (renamed)',
        description: 'Before the edit',
        is_active: false,
        price_cents: 2999,
      },
      claimed: claimed?.snapshot[0],
      stored: stored?.snapshot[0],
    };
  });
}
