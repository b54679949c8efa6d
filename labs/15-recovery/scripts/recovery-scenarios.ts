// The experiments behind lesson 15's recovery checks. Each one runs on a fresh database of its
// own, with the real parts (lesson 13's admission, lesson 11's claim, lesson 15's scanner batch
// and replay), and gathers evidence; scripts/recovery-checks.ts judges it.
//
//   retryGate          the course's verify_retry_gate.py: next_attempt_at set ahead, two claims
//                      (two duplicate messages) get nothing, then one gets attempts 1; and the
//                      same gate made by the scanner: an expired lease requeued with its backoff,
//                      two claims inside the backoff get nothing, one after it gets attempts 2.
//   queuedRecovery     the course's verify_queued_recovery.py: an event confirmed "61 s ago",
//                      never claimed: a scan writes one new event, a second scan none, nor a
//                      third once the threshold has passed again with that event still unsent.
//   threeExpiries      the course's "try it yourself": a real claim, the lease expires (we wait
//                      the short lease), a scan; three times. Then a fourth claim.
//   replay             a job that failed (its deadline passed, the scan failed it) replayed.
//   replaySnapshot     two failed jobs replayed after the shop changed: one's product was
//                      repriced, the other's deleted; each replay's snapshot against its original.
//   keepsRoute         a fast and a bulk job with expired leases, and a fast job dispatched long
//                      ago and never claimed: where their recovery events go.
//
// Times are set with named UPDATEs on the experiment's own rows (the course's scripts do the
// same: "only modify this job's times"), or waited for where the check is about waiting
// (the lease, the backoff). The parts a check may break (RecoveryParts) are passed in, so the
// can-fail tests run the same experiments with broken ones.
import { isDeepStrictEqual } from 'node:util';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { sleep, withResources, type Resources } from '@tasks-lab/lab-kit';
import { claim, microseconds, readJob, type JobRow, type Snapshot } from '@tasks-lab/11-mysql-leases';
import { READ_EVENTS_OF_JOB } from '@tasks-lab/12-outbox';
import {
  admitExport,
  BULK_QUEUE,
  COURSE_RULES,
  FAST_QUEUE,
  readGateCounter,
  type RouteQueue,
} from '@tasks-lab/13-admission';
import { freshDatabase } from '../src/database.ts';
import type { RecoveryOptionValues } from '../src/options.ts';
import { readDeadLetter } from '../src/dead-letter.ts';
import {
  MARK_EVENTS_SENT_AGO,
  MARK_JOB_DISPATCHED_AGO,
  READ_REPLAY_OF,
  SET_NEXT_ATTEMPT_AHEAD,
} from '../src/recovery-queries.ts';
import { recoverBatch, type RecoveryOptions, type RecoveryReport } from '../src/recovery.ts';
import { replayJob } from '../src/replay.ts';

/** The parts a check may break; the lab's own are used otherwise. */
export interface RecoveryParts {
  /** One scanner batch. */
  recoverBatch: typeof recoverBatch;
  /** The claim a wake-up message leads to (lesson 11's, the course's: SKIP LOCKED, then a CAS). */
  claim: typeof claim;
  replayJob: typeof replayJob;
}

export const REAL_RECOVERY_PARTS: RecoveryParts = { recoverBatch, claim, replayJob };

export interface RecoveryContext {
  parts: RecoveryParts;
  /** The short timings: lease, backoff, threshold, attempts, the session's lock wait. */
  timings: RecoveryOptionValues;
}

/** Products the migration seeds: a 2-row export goes to exports.fast. */
export const PRODUCTS = [1, 2];

// Setting times on one experiment's own rows. Named, parameterised, by primary key or job id.
/** Unsent events of one job. Rows: 1. Parameters: [jobId]. */
export const COUNT_UNSENT_OF_JOB = `SELECT COUNT(*) AS n FROM export_outbox WHERE job_id = ? AND sent_at IS NULL`;
/** Dead letters of one job (the primary key says at most 1; a broken table could say more). Parameters: [jobId]. */
export const COUNT_DEAD_LETTERS_OF_JOB = `SELECT COUNT(*) AS n FROM export_dead_letters WHERE job_id = ?`;
/** Every event of every job, sent or not: the experiments count them. Parameters: none. */
const COUNT_EVENTS = `SELECT COUNT(*) AS n FROM export_outbox`;
/** Jobs that name `?` as the job they replay. Parameters: [jobId]. */
const REPLAYS_OF = `SELECT id FROM export_jobs WHERE replay_of = ? ORDER BY created_at, id`;
/** The shop changes a product's price after an export froze it. Affected rows: 1. Parameters: [addCents, productId]. */
export const REPRICE_PRODUCT = `UPDATE products SET price_cents = price_cents + ?, version = version + 1, updated_at = NOW(6) WHERE id = ?`;
/** The shop removes a product an export froze (no foreign key points at products). Affected rows: 1. Parameters: [productId]. */
export const DELETE_PRODUCT = `DELETE FROM products WHERE id = ?`;
/** A product's price as the shop holds it now. Rows: 0 (deleted) or 1. Parameters: [productId]. */
const PRICE_NOW = `SELECT price_cents FROM products WHERE id = ?`;

// ---------------------------------------------------------------------------------
// The pieces every experiment uses

/** A fresh database, dropped with the scope. */
async function openExperiment(ctx: RecoveryContext, res: Resources, label: string): Promise<Pool> {
  const db = await freshDatabase(label, { settings: ctx.timings });
  res.defer(() => db.drop());
  return db.pool;
}

/** The scanner batch's options, from the context's timings. */
export const batchOptions = (timings: RecoveryOptionValues): RecoveryOptions => ({
  batch: timings.recoveryBatch,
  retryBackoffMs: timings.retryBackoffMs,
  unclaimedThresholdMs: timings.unclaimedThresholdMs,
  maxAttempts: timings.maxAttempts,
});

/** A new admitted job (lesson 13: the gate counts it, its event names its route). */
async function submit(
  ctx: RecoveryContext,
  pool: Pool,
  options: { queueName?: RouteQueue; deadlineMs?: number } = {},
): Promise<string> {
  const admitted = await admitExport(pool, PRODUCTS, {
    rules: COURSE_RULES,
    deadlineMs: options.deadlineMs ?? ctx.timings.deadlineMs,
    queueName: options.queueName,
  });
  return admitted.jobId;
}

async function countOf(pool: Pool, sql: string, params: unknown[] = []): Promise<number> {
  const [rows] = await pool.query<RowDataPacket[]>(sql, params);
  return Number(rows[0]?.n ?? 0);
}

async function mustRead(pool: Pool, jobId: string): Promise<JobRow> {
  const job = await readJob(pool, jobId);
  if (!job) throw new Error(`job ${jobId} vanished`);
  return job;
}

/** The queue each event of a job names, oldest first. */
export async function queuesOfJob(pool: Pool, jobId: string): Promise<string[]> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_EVENTS_OF_JOB, [jobId]);
  return rows.map((row) => String(row.queue_name));
}

/** The job's row as the checks show it. */
export interface JobView {
  status: string;
  attempts: number;
  errorCode: string | null;
  leaseToken: string | null;
}

const viewOf = (job: JobRow): JobView => ({
  status: job.status,
  attempts: job.attempts,
  errorCode: job.errorCode,
  leaseToken: job.leaseToken,
});

/** What a claim got: its attempts, or nothing. */
export type ClaimSeen = { claimed: true; attempts: number } | { claimed: false };

async function tryClaim(ctx: RecoveryContext, pool: Pool, jobId: string): Promise<ClaimSeen> {
  const got = await ctx.parts.claim(pool, jobId, {
    leaseMs: ctx.timings.leaseMs,
    maxAttempts: ctx.timings.maxAttempts,
  });
  return got ? { claimed: true, attempts: got.attempts } : { claimed: false };
}

/** Waits until the job's lease has passed on the SERVER's clock (the short lease, really waited for). */
async function waitForLeaseToPass(pool: Pool, jobId: string, leaseMs: number, signal: AbortSignal): Promise<void> {
  await sleep(leaseMs, signal);
  for (let i = 0; i < 50; i += 1) {
    const job = await mustRead(pool, jobId);
    if (!job.leaseUntil || job.leaseUntil.getTime() < Date.now() - 5) return;
    await sleep(20, signal);
  }
}

/** A scan's report, reduced to what one job went through. */
export interface ScanSeen {
  /** requeued, redispatched, cancelled, failed, or untouched. */
  moved: string;
  reason?: string;
  eventQueue?: string;
}

/** A scan, with the batch's error kept as evidence (a broken batch may throw). */
async function runScan(
  ctx: RecoveryContext,
  pool: Pool,
  timings: RecoveryOptionValues = ctx.timings,
): Promise<RecoveryReport | Error> {
  return ctx.parts
    .recoverBatch(pool, batchOptions(timings))
    .catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
}

function seenIn(report: RecoveryReport | Error, jobId: string): ScanSeen {
  if (report instanceof Error) return { moved: `batch failed: ${report.message.slice(0, 160)}` };
  for (const kind of ['requeued', 'redispatched', 'cancelled', 'failed'] as const) {
    const job = report[kind].find((j) => j.jobId === jobId);
    if (job) return { moved: kind, reason: job.reason, eventQueue: job.queueName };
  }
  return { moved: 'untouched' };
}

// ---------------------------------------------------------------------------------
// 1. The retry gate holds duplicate messages (the course's step 5, and the scanner's backoff)

/**
 * The course's gate is 10 s ahead; ours, 5 s (still the course's, shortened, as the check says),
 * and moved to now instead of waited for: a 1 s gate could pass on a stalled machine before the
 * two early claims, and a long one costs no wait. The scanner half's backoff is as long, for the same reason.
 */
export const RETRY_GATE_MS = 5000;

export interface RetryGateEvidence {
  gateMs: number;
  /** The course's script: two claims before next_attempt_at, the attempts then, the claim after. */
  course: { early: ClaimSeen[]; attemptsBetween: number; late: ClaimSeen };
  /** The scanner's backoff: the first claim, the scan after its lease passed, two claims inside the backoff, the attempts then, the claim after. */
  scanner: {
    first: ClaimSeen;
    scan: ScanSeen;
    early: ClaimSeen[];
    attemptsBetween: number;
    late: ClaimSeen;
    backoffMs: number;
    waitedMs: number;
  };
}

export async function retryGate(ctx: RecoveryContext, signal: AbortSignal): Promise<RetryGateEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openExperiment(ctx, res, 'retrygate');
    // The course's script, with a shorter gate.
    const courseJob = await submit(ctx, pool);
    await pool.query(SET_NEXT_ATTEMPT_AHEAD, [microseconds(RETRY_GATE_MS), courseJob]);
    const early = [await tryClaim(ctx, pool, courseJob), await tryClaim(ctx, pool, courseJob)];
    const attemptsBetween = (await mustRead(pool, courseJob)).attempts;
    // The gate passed: next_attempt_at moved to now (the course's script waits its 10 s out).
    await pool.query(SET_NEXT_ATTEMPT_AHEAD, [0, courseJob]);
    const late = await tryClaim(ctx, pool, courseJob);
    // The same gate, made by the scanner after a real expiry.
    const scannerJob = await submit(ctx, pool);
    const first = await tryClaim(ctx, pool, scannerJob);
    await waitForLeaseToPass(pool, scannerJob, ctx.timings.leaseMs, res.signal);
    // This scan's backoff is the gate's length, not the short timings' 500 ms, which a stalled
    // machine could let pass before the two early claims; it is then moved to now, not slept out.
    const backoffMs = RETRY_GATE_MS;
    const scan = seenIn(await runScan(ctx, pool, { ...ctx.timings, retryBackoffMs: backoffMs }), scannerJob);
    const requeuedAt = Date.now();
    const scannerEarly = [await tryClaim(ctx, pool, scannerJob), await tryClaim(ctx, pool, scannerJob)];
    const scannerBetween = (await mustRead(pool, scannerJob)).attempts;
    const waitedMs = Date.now() - requeuedAt;
    await pool.query(SET_NEXT_ATTEMPT_AHEAD, [0, scannerJob]);
    const scannerLate = await tryClaim(ctx, pool, scannerJob);
    return {
      gateMs: RETRY_GATE_MS,
      course: { early, attemptsBetween, late },
      scanner: {
        first,
        scan,
        early: scannerEarly,
        attemptsBetween: scannerBetween,
        late: scannerLate,
        backoffMs,
        waitedMs,
      },
    };
  });
}

// ---------------------------------------------------------------------------------
// 2. A dispatched job nobody claimed gets ONE new event (the course's step 6)

/** The course's "61 seconds ago": past its 60 s threshold, and past the short one too. */
export const DISPATCHED_AGO_MS = 61_000;

export interface QueuedRecoveryEvidence {
  thresholdMs: number;
  before: { unsent: number; events: number };
  afterFirst: { unsent: number; events: number; scan: ScanSeen };
  afterSecond: { unsent: number; events: number; scan: ScanSeen };
  /** A third scan once the threshold has passed again, the new event still unsent (no publisher runs). */
  afterThreshold: { unsent: number; events: number; scan: ScanSeen };
  job: JobView;
}

export async function queuedRecovery(ctx: RecoveryContext, signal: AbortSignal): Promise<QueuedRecoveryEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openExperiment(ctx, res, 'queuedrec');
    const jobId = await submit(ctx, pool);
    // Its event was sent and confirmed 61 s ago; nobody claimed the job since.
    await pool.query(MARK_EVENTS_SENT_AGO, [microseconds(DISPATCHED_AGO_MS), jobId]);
    await pool.query(MARK_JOB_DISPATCHED_AGO, [
      microseconds(DISPATCHED_AGO_MS),
      microseconds(DISPATCHED_AGO_MS),
      microseconds(DISPATCHED_AGO_MS),
      jobId,
    ]);
    const counts = async () => ({
      unsent: await countOf(pool, COUNT_UNSENT_OF_JOB, [jobId]),
      events: await countOf(pool, COUNT_EVENTS),
    });
    const before = await counts();
    const first = seenIn(await runScan(ctx, pool), jobId);
    const afterFirst = { ...(await counts()), scan: first };
    const second = seenIn(await runScan(ctx, pool), jobId);
    const afterSecond = { ...(await counts()), scan: second };
    // The new event waits unsent (the publisher is down, say): however long, no second one.
    await sleep(ctx.timings.unclaimedThresholdMs + 200, res.signal);
    const third = seenIn(await runScan(ctx, pool), jobId);
    const afterThreshold = { ...(await counts()), scan: third };
    return {
      thresholdMs: ctx.timings.unclaimedThresholdMs,
      before,
      afterFirst,
      afterSecond,
      afterThreshold,
      job: viewOf(await mustRead(pool, jobId)),
    };
  });
}

// ---------------------------------------------------------------------------------
// 3. Three expiries: failed, one dead letter, no fourth claim (the course's "try it yourself")

export interface ExpiryRound {
  claim: ClaimSeen;
  scan: ScanSeen;
  job: JobView;
  deadLetters: number;
  gate: number;
}

export interface ThreeExpiriesEvidence {
  maxAttempts: number;
  leaseMs: number;
  gateBefore: number;
  rounds: ExpiryRound[];
  fourth: ClaimSeen;
  deadLetter: { reason: string } | undefined;
  job: JobView;
  ms: number;
}

export async function threeExpiries(ctx: RecoveryContext, signal: AbortSignal): Promise<ThreeExpiriesEvidence> {
  return withResources(signal, async (res) => {
    const started = Date.now();
    const pool = await openExperiment(ctx, res, 'threeexp');
    const jobId = await submit(ctx, pool);
    const gateBefore = await readGateCounter(pool);
    const rounds: ExpiryRound[] = [];
    for (let round = 1; round <= ctx.timings.maxAttempts; round += 1) {
      const claimed = await tryClaim(ctx, pool, jobId);
      if (claimed.claimed) await waitForLeaseToPass(pool, jobId, ctx.timings.leaseMs, res.signal);
      const scan = seenIn(await runScan(ctx, pool), jobId);
      const job = viewOf(await mustRead(pool, jobId));
      rounds.push({
        claim: claimed,
        scan,
        job,
        deadLetters: await countOf(pool, COUNT_DEAD_LETTERS_OF_JOB, [jobId]),
        gate: await readGateCounter(pool),
      });
      // The next claim after the backoff, as a redelivered message would.
      if (job.status === 'queued') await sleep(ctx.timings.retryBackoffMs + 50, res.signal);
    }
    const fourth = await tryClaim(ctx, pool, jobId);
    const letter = await readDeadLetter(pool, jobId);
    const deadLetter = letter ? { reason: letter.reason } : undefined;
    return {
      maxAttempts: ctx.timings.maxAttempts,
      leaseMs: ctx.timings.leaseMs,
      gateBefore,
      rounds,
      fourth,
      deadLetter,
      job: viewOf(await mustRead(pool, jobId)),
      ms: Date.now() - started,
    };
  });
}

// ---------------------------------------------------------------------------------
// 4. Replay: a new job linked to the failed one, the failure kept

/** A deadline this short passes before the first scan: the job fails as deadline_exceeded. */
const FAILING_DEADLINE_MS = 1;

export interface ReplayEvidence {
  failedId: string;
  /** The failed job before the replay, and after it. */
  before: JobView & { deadLetter: string | undefined };
  after: JobView & { deadLetter: string | undefined };
  /** The first event's queue of the failed job, and of the replay. */
  failedRoute: string | undefined;
  replay: { jobId: string; replayOf: string; created: boolean } | { error: string };
  /** The new job's row, its replay_of as stored, its events' queues. */
  newJob: (JobView & { replayOf: string | undefined; queues: string[] }) | undefined;
  replaysOfFailed: string[];
  gate: { before: number; after: number };
  /** A replay of a job that did not fail (a queued one): its refusal. */
  notFailed: { status: number | undefined; code: string | undefined };
}

async function deadLetterOf(pool: Pool, jobId: string): Promise<string | undefined> {
  return (await readDeadLetter(pool, jobId))?.reason;
}

export async function replay(ctx: RecoveryContext, signal: AbortSignal): Promise<ReplayEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openExperiment(ctx, res, 'replay');
    const failedId = await submit(ctx, pool, { deadlineMs: FAILING_DEADLINE_MS });
    await sleep(20, res.signal);
    // The REAL scanner fails it (whatever broken parts run elsewhere): the replay is what is judged.
    await recoverBatch(pool, batchOptions(ctx.timings));
    const before = { ...viewOf(await mustRead(pool, failedId)), deadLetter: await deadLetterOf(pool, failedId) };
    const gateBefore = await readGateCounter(pool);
    let replayed: ReplayEvidence['replay'];
    try {
      const result = await ctx.parts.replayJob(pool, failedId, { rules: COURSE_RULES });
      replayed = { jobId: result.jobId, replayOf: result.replayOf, created: result.created };
    } catch (err) {
      replayed = { error: err instanceof Error ? err.message : String(err) };
    }
    const newJob = 'jobId' in replayed ? await readNewJob(pool, replayed.jobId) : undefined;
    const gateAfter = await readGateCounter(pool);
    const queuedId = await submit(ctx, pool);
    const notFailed = await ctx.parts.replayJob(pool, queuedId, { rules: COURSE_RULES }).then(
      () => ({ status: 202, code: 'replayed' }),
      (err: unknown) => ({ status: (err as { status?: number }).status, code: (err as { code?: string }).code }),
    );
    const [replays] = await pool.query<RowDataPacket[]>(REPLAYS_OF, [failedId]);
    return {
      failedId,
      before,
      after: { ...viewOf(await mustRead(pool, failedId)), deadLetter: await deadLetterOf(pool, failedId) },
      failedRoute: (await queuesOfJob(pool, failedId))[0],
      replay: replayed,
      newJob,
      replaysOfFailed: replays.map((row) => String(row.id)),
      gate: { before: gateBefore, after: gateAfter },
      notFailed,
    };
  });
}

async function readNewJob(pool: Pool, jobId: string): Promise<ReplayEvidence['newJob']> {
  const job = await readJob(pool, jobId);
  if (!job) return undefined;
  const [rows] = await pool.query<RowDataPacket[]>(READ_REPLAY_OF, [jobId]);
  const replayOf = rows[0]?.replay_of;
  return {
    ...viewOf(job),
    replayOf: replayOf === null || replayOf === undefined ? undefined : String(replayOf),
    queues: await queuesOfJob(pool, jobId),
  };
}

// ---------------------------------------------------------------------------------
// 5. A replay keeps the failed job's snapshot, whatever the shop did since

/** How much the shop adds to the repriced product's price (in cents). */
export const PRICE_RISE_CENTS = 1000;

/** One failed job, a change to one of its products, and its replay. */
export interface SnapshotCase {
  name: 'repriced' | 'deleted';
  productId: number;
  /** The failed job's snapshot, as stored. */
  failedSnapshot: Snapshot[];
  /** The product's price in the failed job's snapshot, and in the shop after the change (undefined: deleted). */
  priceThen: number | undefined;
  priceNow: number | undefined;
  /** The replay's snapshot as stored, or why there is no replay. */
  replay: { jobId: string; snapshot: Snapshot[] } | { error: string };
  /** The two snapshots compared by value (every product, every field, in order). */
  equal: boolean;
}

export interface ReplaySnapshotEvidence {
  cases: SnapshotCase[];
}

export async function replaySnapshot(ctx: RecoveryContext, signal: AbortSignal): Promise<ReplaySnapshotEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openExperiment(ctx, res, 'replaysnap');
    // Two jobs that fail for real (their deadline passes, the REAL scanner fails them).
    const repricedJob = (await admitExport(pool, [1, 2], { rules: COURSE_RULES, deadlineMs: FAILING_DEADLINE_MS }))
      .jobId;
    const deletedJob = (await admitExport(pool, [3, 5], { rules: COURSE_RULES, deadlineMs: FAILING_DEADLINE_MS }))
      .jobId;
    await sleep(20, res.signal);
    await recoverBatch(pool, batchOptions(ctx.timings));
    // Then the shop changes: product 1 costs more, product 3 is gone.
    await pool.query(REPRICE_PRODUCT, [PRICE_RISE_CENTS, 1]);
    await pool.query(DELETE_PRODUCT, [3]);
    return {
      cases: [
        await replayCase(ctx, pool, 'repriced', repricedJob, 1),
        await replayCase(ctx, pool, 'deleted', deletedJob, 3),
      ],
    };
  });
}

async function replayCase(
  ctx: RecoveryContext,
  pool: Pool,
  name: SnapshotCase['name'],
  failedId: string,
  productId: number,
): Promise<SnapshotCase> {
  const failed = await mustRead(pool, failedId);
  if (failed.status !== 'failed')
    throw new Error(`job ${failedId} did not fail (${failed.status}): the experiment needs a failed job`);
  const [now] = await pool.query<RowDataPacket[]>(PRICE_NOW, [productId]);
  const priceNow = now[0] ? Number(now[0].price_cents) : undefined;
  const priceThen = failed.snapshot.find((product) => product.id === productId)?.price_cents;
  let replay: SnapshotCase['replay'];
  try {
    const made = await ctx.parts.replayJob(pool, failedId, { rules: COURSE_RULES });
    replay = { jobId: made.jobId, snapshot: (await mustRead(pool, made.jobId)).snapshot };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    replay = {
      error: `${typeof code === 'string' ? `${code}: ` : ''}${err instanceof Error ? err.message : String(err)}`,
    };
  }
  const equal = 'snapshot' in replay && isDeepStrictEqual(replay.snapshot, failed.snapshot);
  return { name, productId, failedSnapshot: failed.snapshot, priceThen, priceNow, replay, equal };
}

// ---------------------------------------------------------------------------------
// 6. A recovered job keeps its route

export interface RouteCase {
  name: string;
  /** The queue of its first event (its route, decided at admission). */
  route: string;
  scan: ScanSeen;
  /** Every event's queue, oldest first. */
  queues: string[];
}

export interface KeepsRouteEvidence {
  cases: RouteCase[];
}

export async function keepsRoute(ctx: RecoveryContext, signal: AbortSignal): Promise<KeepsRouteEvidence> {
  return withResources(signal, async (res) => {
    const pool = await openExperiment(ctx, res, 'route');
    // Two expired leases: a fast job (2 rows) and a bulk one (a scheduled export, lesson 14's route).
    const fastExpired = await submit(ctx, pool);
    const bulkExpired = await submit(ctx, pool, { queueName: BULK_QUEUE });
    // And a fast job dispatched long ago that no worker claimed.
    const fastUnclaimed = await submit(ctx, pool, { queueName: FAST_QUEUE });
    await pool.query(MARK_EVENTS_SENT_AGO, [microseconds(DISPATCHED_AGO_MS), fastUnclaimed]);
    await pool.query(MARK_JOB_DISPATCHED_AGO, [
      microseconds(DISPATCHED_AGO_MS),
      microseconds(DISPATCHED_AGO_MS),
      microseconds(DISPATCHED_AGO_MS),
      fastUnclaimed,
    ]);
    await tryClaim(ctx, pool, fastExpired);
    await tryClaim(ctx, pool, bulkExpired);
    await waitForLeaseToPass(pool, bulkExpired, ctx.timings.leaseMs, res.signal);
    const report = await runScan(ctx, pool);
    const caseOf = async (name: string, jobId: string): Promise<RouteCase> => {
      const queues = await queuesOfJob(pool, jobId);
      return { name, route: queues[0] ?? 'none', scan: seenIn(report, jobId), queues };
    };
    return {
      cases: [
        await caseOf('fast, lease expired', fastExpired),
        await caseOf('bulk, lease expired', bulkExpired),
        await caseOf('fast, dispatched and unclaimed', fastUnclaimed),
      ],
    };
  });
}
