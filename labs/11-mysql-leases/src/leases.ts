// Lesson 11's job record in MySQL: submit a frozen snapshot, claim a job with a lease and
// a token, publish its result only while still the holder. Every step is a short
// transaction with no I/O inside (the artifact is written between claim and finish, with
// no lock held), and every decision uses the server's clock, NOW(6).
//
//   submitSnapshot -> queued            claim -> running (attempts + 1, a new token, a lease)
//   finish(token)  -> succeeded          requeueExpiredLease -> queued again (the drill's manual step)
import { createHash, randomUUID } from 'node:crypto';
import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import {
  distinctProductIds,
  MAX_PRODUCTS_PER_EXPORT,
  statesThatMayMoveTo,
  type JobState,
} from '@tasks-lab/01-state-machine';
import { ER_DUP_ENTRY, errnoOf, withTransaction } from './mysql-pool.ts';
import {
  IdempotencyKeyReusedError,
  InvalidIdempotencyKeyError,
  InvalidProductIdsError,
  MissingProductsError,
} from './errors.ts';
import {
  CLAIM,
  FIND_BY_IDEMPOTENCY_KEY,
  FINISH,
  INSERT_JOB,
  LOCK_CLAIMABLE,
  READ_JOB,
  READ_PRODUCTS,
  REQUEUE_EXPIRED_LEASE,
} from './job-queries.ts';
import { COURSE_TIMINGS } from './options.ts';

/** One product as it was when the export was submitted. */
export interface Snapshot {
  id: number;
  name: string;
  description: string;
  is_active: boolean;
  price_cents: number;
}

/** What a submission answers. `created: false`: the same Idempotency-Key with the same request found the earlier job. */
export interface SubmitResult {
  jobId: string;
  created: boolean;
}

/** Anything that runs a query: the pool, or a connection inside a transaction. */
type Queryable = Pick<Pool | PoolConnection, 'query'>;

/** Milliseconds as whole microseconds: what TIMESTAMPADD(MICROSECOND, ?, NOW(6)) takes (every timing is in ms). */
export const microseconds = (ms: number): number => Math.round(ms * 1000);

// ---------------------------------------------------------------------------------
// Submission

/**
 * Freezes the products' current rows into a new queued job, in ONE short transaction:
 * read the snapshot, insert the job. Nothing is inserted when a product is missing.
 *
 * With an `idempotencyKey`, a retry of the same request (the client never saw the first
 * answer) finds the first job instead of creating a second; the same key with other
 * product ids is refused (IdempotencyKeyReusedError, 409).
 */
export async function submitSnapshot(
  pool: Pool,
  productIds: readonly number[],
  options: { idempotencyKey?: string; deadlineMs?: number } = {},
): Promise<SubmitResult> {
  const submission = checkSubmission(productIds, options);
  try {
    return await withTransaction(pool, (tx) => insertJobWith(tx, submission));
  } catch (err) {
    const earlier = await earlierAfterDuplicateKey(pool, submission, err);
    if (earlier) return earlier;
    throw err;
  }
}

/** A submission whose input was checked: the distinct ids, the key and its digest, the new job's id. */
export interface Submission {
  jobId: string;
  ids: number[];
  idempotencyKey: string | undefined;
  digest: string;
  deadlineMs: number;
  /** A snapshot frozen earlier, inserted as it is: the products are not read (lesson 15's replay copies the failed job's). */
  snapshot?: readonly Snapshot[];
}

/**
 * Checks a submission's input before any connection is borrowed (a bad request is a 4xx,
 * whatever the database's state). `jobId` picks the new job's id in advance (a fresh
 * UUID by default): a drill that must find the rows after a failure passes its own.
 */
export function checkSubmission(
  productIds: readonly number[],
  options: {
    idempotencyKey?: string;
    deadlineMs?: number;
    jobId?: string;
    /** Insert this snapshot instead of reading the products; it must hold exactly the submission's ids, in order. */
    snapshot?: readonly Snapshot[];
    /** What the key names, when it is not "these product ids" (lesson 15's replay: one failed job). @defaultValue requestDigest(ids) */
    requestDigest?: string;
  } = {},
): Submission {
  const ids = validProductIds(productIds);
  const key = options.idempotencyKey;
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) throw new InvalidIdempotencyKeyError();
  const jobId = options.jobId ?? randomUUID();
  if (!UUID.test(jobId)) throw new Error(`a job id is a UUID, got "${jobId.slice(0, 40)}"`);
  const snapshot = options.snapshot;
  if (snapshot && snapshot.map((product) => product.id).join(',') !== ids.join(','))
    throw new Error('a frozen snapshot must hold exactly the product ids submitted, in their order');
  const digest = options.requestDigest ?? requestDigest(ids);
  return {
    jobId,
    ids,
    idempotencyKey: key,
    digest,
    deadlineMs: options.deadlineMs ?? COURSE_TIMINGS.deadlineMs,
    snapshot,
  };
}

/** A step a later lesson runs inside the submission's transaction (lesson 13's admission gate). */
export interface InsertJobSteps {
  /** After the replay lookup and the snapshot read, before the INSERT: it may refuse the job by throwing. */
  beforeInsert?: (tx: PoolConnection) => Promise<void>;
}

/**
 * The submission's statements, inside the caller's transaction `tx`: find an earlier job
 * with the same Idempotency-Key, or read the snapshot and insert the job. Lesson 12 calls
 * it in the transaction that also writes the job's outbox event; submitSnapshot alone
 * runs it in a transaction of its own.
 */
export async function insertJobWith(
  tx: PoolConnection,
  submission: Submission,
  steps: InsertJobSteps = {},
): Promise<SubmitResult> {
  const { jobId, ids, idempotencyKey: key, digest, deadlineMs } = submission;
  const earlier = key === undefined ? undefined : await findByIdempotencyKey(tx, key, digest);
  if (earlier) return earlier;
  const snapshot = submission.snapshot ?? (await readSnapshot(tx, ids));
  await steps.beforeInsert?.(tx);
  const [inserted] = await tx.query<ResultSetHeader>(INSERT_JOB, [
    jobId,
    JSON.stringify(snapshot),
    microseconds(deadlineMs),
    key ?? null,
    key === undefined ? null : digest,
  ]);
  if (inserted.affectedRows !== 1)
    throw new Error(`inserting job ${jobId} affected ${inserted.affectedRows} rows, expected 1`);
  return { jobId, created: true };
}

/**
 * Two submissions with one key at the same moment: both saw no row, the second insert
 * waited for the first to commit and then hit the unique key. The first job is the
 * answer. `undefined` for any other error (the caller rethrows it).
 */
export async function earlierAfterDuplicateKey(
  pool: Pool,
  submission: Submission,
  err: unknown,
): Promise<SubmitResult | undefined> {
  if (submission.idempotencyKey === undefined || errnoOf(err) !== ER_DUP_ENTRY) return undefined;
  return findByIdempotencyKey(pool, submission.idempotencyKey, submission.digest);
}

/** Printable ASCII without spaces, 1 to 128 characters (a UUID fits; so does a client's own scheme). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,128}$/;

/** Each id once (first-seen order), 1 to 100 of them, each a positive whole number. */
function validProductIds(productIds: readonly number[]): number[] {
  if (!Array.isArray(productIds)) throw new InvalidProductIdsError('productIds must be an array of product ids');
  const bad = productIds.filter((id) => !Number.isSafeInteger(id) || id <= 0);
  if (bad.length > 0)
    throw new InvalidProductIdsError(
      `Product ids are positive whole numbers; got ${bad.slice(0, 5).map(String).join(', ')}`,
    );
  const ids = distinctProductIds(productIds);
  if (ids.length < 1 || ids.length > MAX_PRODUCTS_PER_EXPORT) {
    throw new InvalidProductIdsError(
      `An export holds 1 to ${MAX_PRODUCTS_PER_EXPORT} distinct products; got ${ids.length}`,
    );
  }
  return ids;
}

/** What "the same request" means for an Idempotency-Key: the same product ids, in the same order. */
export function requestDigest(ids: readonly number[]): string {
  return createHash('sha256')
    .update(JSON.stringify({ productIds: ids }))
    .digest('hex');
}

async function findByIdempotencyKey(db: Queryable, key: string, digest: string): Promise<SubmitResult | undefined> {
  const [rows] = await db.query<RowDataPacket[]>(FIND_BY_IDEMPOTENCY_KEY, [key]);
  const row = rows[0];
  if (!row) return undefined;
  if (row.request_digest !== digest) throw new IdempotencyKeyReusedError(key, String(row.id));
  return { jobId: String(row.id), created: false };
}

/** The products' current rows, in the order asked for; every missing id is named. */
export async function readSnapshot(db: Queryable, ids: readonly number[]): Promise<Snapshot[]> {
  const [rows] = await db.query<RowDataPacket[]>(READ_PRODUCTS, [ids]);
  const byId = new Map(rows.map((row) => [Number(row.id), toSnapshot(row)]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0) throw new MissingProductsError(missing);
  return ids.map((id) => byId.get(id)!);
}

function toSnapshot(row: Record<string, unknown>): Snapshot {
  return {
    id: Number(row.id),
    name: String(row.name),
    description: String(row.description),
    // BOOLEAN is TINYINT(1): it arrives as 0 or 1.
    is_active: Boolean(Number(row.is_active)),
    price_cents: Number(row.price_cents),
  };
}

// ---------------------------------------------------------------------------------
// Claim, finish, recovery

/** What a successful claim hands the worker: the token that proves it holds the job, and its input. */
export interface ClaimedJob {
  jobId: string;
  token: string;
  attempts: number;
  snapshot: Snapshot[];
  leaseUntil: Date;
  deadlineAt: Date;
}

/** The guards of claim and finish, read off lesson 01's ALLOWED_TRANSITIONS (never restated). */
const CLAIMABLE_STATES = statesThatMayMoveTo('running');
const FINISHABLE_STATES = statesThatMayMoveTo('succeeded');

/**
 * Claims the job `jobId` if it may be claimed now (queued, not cancelled, attempts left,
 * deadline ahead, next attempt due): locks its row with SKIP LOCKED, then the conditional
 * update. `undefined` means "nothing to claim now": another worker holds it or is claiming
 * it, it is finished, its next attempt is not due, or it does not exist. A duplicate
 * delivery of the wake-up message lands here and claims nothing.
 */
export async function claim(
  pool: Pool,
  jobId: string,
  options: { leaseMs?: number; maxAttempts?: number; claimStatement?: string } = {},
): Promise<ClaimedJob | undefined> {
  const leaseMs = options.leaseMs ?? COURSE_TIMINGS.leaseMs;
  const maxAttempts = options.maxAttempts ?? COURSE_TIMINGS.maxAttempts;
  const token = randomUUID();
  return withTransaction(pool, async (tx) => {
    const [locked] = await tx.query<RowDataPacket[]>(LOCK_CLAIMABLE, [jobId, CLAIMABLE_STATES, maxAttempts]);
    if (locked.length === 0) return undefined;
    // A later lesson may pass CLAIM with one more column set (lesson 16's first claim): same parameters.
    const [claimed] = await tx.query<ResultSetHeader>(options.claimStatement ?? CLAIM, [
      token,
      microseconds(leaseMs),
      jobId,
      CLAIMABLE_STATES,
      maxAttempts,
    ]);
    if (claimed.affectedRows !== 1) return undefined;
    const job = claimedJobFrom(await readJobWith(tx, jobId), jobId, token);
    // We hold the row lock: nobody else can have changed it since our update.
    if (!job) throw new Error(`job ${jobId}: the claim's row changed inside its own locked transaction`);
    return job;
  });
}

/** What a claimer needs from the row it just claimed; undefined when the row does not carry `token`. */
export function claimedJobFrom(row: JobRow | undefined, jobId: string, token: string): ClaimedJob | undefined {
  if (row?.leaseToken !== token || !row.leaseUntil) return undefined;
  return {
    jobId,
    token,
    attempts: row.attempts,
    snapshot: row.snapshot,
    leaseUntil: row.leaseUntil,
    deadlineAt: row.deadlineAt,
  };
}

/**
 * Publishes `resultRef` as the job's result, only if `token` still holds a live lease
 * before the deadline and nobody asked to cancel. `true` = published (succeeded);
 * `false` = this holder lost the job: its artifact is not the result.
 */
export async function finish(pool: Pool, jobId: string, token: string, resultRef: string): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    const [published] = await tx.query<ResultSetHeader>(FINISH, [resultRef, jobId, FINISHABLE_STATES, token]);
    return published.affectedRows === 1;
  });
}

/**
 * The course's drill step, by hand: a running job whose lease has passed goes back to
 * queued (token cleared, attempts kept), claimable after `backoffMs` (0 by default, as in
 * the drill, so the next claim can follow at once). Lesson 15 runs this as a scanner with
 * the retry backoff. `true` = requeued; `false` = not running, or its lease is still live.
 */
export async function requeueExpiredLease(
  pool: Pool,
  jobId: string,
  options: { backoffMs?: number } = {},
): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    const [requeued] = await tx.query<ResultSetHeader>(REQUEUE_EXPIRED_LEASE, [
      microseconds(options.backoffMs ?? 0),
      jobId,
    ]);
    return requeued.affectedRows === 1;
  });
}

/** The artifact's file name carries the token that wrote it, so two holders never write the same file. */
export function artifactName(jobId: string, token: string): string {
  if (!UUID.test(jobId) || !UUID.test(token))
    throw new Error(`artifact names are built from a job id and a token (UUIDs), got "${jobId}" and "${token}"`);
  return `${jobId}.${token}.json`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// ---------------------------------------------------------------------------------
// Reading the record

/** The job's row, as the table holds it: what GET /exports/:id answers from. */
export interface JobRow {
  id: string;
  status: JobState;
  attempts: number;
  leaseToken: string | null;
  leaseUntil: Date | null;
  nextAttemptAt: Date;
  deadlineAt: Date;
  resultRef: string | null;
  errorCode: string | null;
  snapshot: Snapshot[];
  createdAt: Date;
  updatedAt: Date;
  /** How many product rows the published artifact holds (null until published). */
  resultRows: number | null;
  /** A sentence about the failure, for people (errorCode is for programs). */
  errorMessage: string | null;
  cancelRequested: boolean;
}

/** The job's current row; undefined when there is none. A plain read: it takes no lock. */
export async function readJob(pool: Pool, jobId: string): Promise<JobRow | undefined> {
  return readJobWith(pool, jobId);
}

export async function readJobWith(db: Queryable, jobId: string): Promise<JobRow | undefined> {
  const [rows] = await db.query<RowDataPacket[]>(READ_JOB, [jobId]);
  const row = rows[0];
  return row && toJobRow(row);
}

function toJobRow(row: RowDataPacket): JobRow {
  return {
    id: String(row.id),
    status: row.status as JobState,
    attempts: Number(row.attempts),
    leaseToken: row.lease_token === null ? null : String(row.lease_token),
    leaseUntil: row.lease_until as Date | null,
    nextAttemptAt: row.next_attempt_at as Date,
    deadlineAt: row.deadline_at as Date,
    resultRef: row.result_ref === null ? null : String(row.result_ref),
    errorCode: row.error_code === null ? null : String(row.error_code),
    snapshot: decodeSnapshot(row.snapshot),
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
    resultRows: row.result_rows === null ? null : Number(row.result_rows),
    errorMessage: row.error_message === null ? null : String(row.error_message),
    cancelRequested: Boolean(Number(row.cancel_requested)),
  };
}

/**
 * The JSON column, decoded defensively: MySQL and recent mysql2 on MariaDB hand over the
 * parsed value, older combinations a string (MariaDB stores JSON as text).
 */
export function decodeSnapshot(raw: unknown): Snapshot[] {
  const value: unknown = typeof raw === 'string' || Buffer.isBuffer(raw) ? JSON.parse(String(raw)) : raw;
  if (!Array.isArray(value) || !value.every((item) => item !== null && typeof item === 'object')) {
    throw new Error('the stored snapshot is not an array of products');
  }
  return value.map((item) => toSnapshot(item as Record<string, unknown>));
}
