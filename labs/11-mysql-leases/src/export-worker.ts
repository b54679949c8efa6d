// What one wake-up does, in three steps, each with its own short transaction or none:
//
//   1. claim    (one short transaction: lock the row with SKIP LOCKED, conditional UPDATE)
//   2. write    the artifact `<job id>.<token>.json`, atomically, with NO transaction open
//   3. finish   (one statement: only the current token, a live lease, before the deadline)
//
// The message carries only the job id; the snapshot comes from the row the claim read.
// A claim that gets nothing (someone holds the lease, the backoff is not over, the job is
// done) is a normal outcome, not an error: BullMQ marks the wake-up "completed" either way,
// which is why "completed" in Bull Board means "delivered", not "succeeded".
//
// Fault points, for the drills (LAB_FAULTS):
//   after-claim     the lease is held, nothing written yet   crash: the lease expires unfinished
//   before-finish   the artifact is written, not published   delay-<ms> past the lease: a zombie
//
// startExportWorker runs it for every wake-up of a BullMQ worker (lab 08's startWorker), with one
// pool per process shared by every delivery; src/worker.ts is that worker as a process.
import type { RedisOptions } from 'ioredis';
import type { Pool } from 'mysql2/promise';
import { faultPoints, idempotent, SECOND, type FaultPoints } from '@tasks-lab/lab-kit';
import { EXPORT_JOB_NAME, startWorker, type QueueAddress } from '@tasks-lab/08-broker-worker';
import { writeArtifactAtomically } from './artifact.ts';
import { openJobsDatabase } from './database.ts';
import { artifactName, claim, finish } from './leases.ts';
import type { LeaseOptionValues, WorkerProcessOptionValues } from './options.ts';
import { exportsAddress, parseWakeUp, type DeliveryOutcome, type WakeUpWorker } from './queue.ts';

export const EXPORT_FAULT_POINTS = ['after-claim', 'before-finish'] as const;
export type ExportFaultPoint = (typeof EXPORT_FAULT_POINTS)[number];
export type ExportFaults = FaultPoints<ExportFaultPoint>;

/** Reads LAB_FAULTS once; a rule naming another point is refused at start-up. */
export const exportFaults = (env: NodeJS.ProcessEnv = process.env): ExportFaults =>
  faultPoints(EXPORT_FAULT_POINTS, env);

/** The steps a broken variant may swap (the can-fail fixtures); the lab always uses EXPORT_PARTS. */
export interface ExportParts {
  claim: typeof claim;
  finish: typeof finish;
  writeArtifact: typeof writeArtifactAtomically;
}

export const EXPORT_PARTS: ExportParts = { claim, finish, writeArtifact: writeArtifactAtomically };

export interface ExportContext {
  /** The process's one pool. */
  pool: Pool;
  leaseMs: number;
  maxAttempts: number;
  artifactsDir: string;
  faults: ExportFaults;
  parts?: Partial<ExportParts>;
}

/**
 * One delivery of a wake-up message: claim, write, finish. Returns what happened; the
 * row says what the user sees. An error (the database is down, the disk is full) leaves
 * the row running with its lease: the lease runs out, and lesson 15's recovery scan
 * requeues it. BullMQ does not retry it (attempts 1): retries belong to the row.
 */
export async function deliverExport(message: unknown, context: ExportContext): Promise<DeliveryOutcome> {
  const { job_id: jobId } = parseWakeUp(message);
  const parts = { ...EXPORT_PARTS, ...context.parts };
  const job = await parts.claim(context.pool, jobId, { leaseMs: context.leaseMs, maxAttempts: context.maxAttempts });
  if (!job) return { job_id: jobId, claimed: false, published: false };
  await context.faults.hit('after-claim');
  // The claim's transaction is committed: the file is written with no row locked.
  const fileName = artifactName(jobId, job.token);
  await parts.writeArtifact(context.artifactsDir, fileName, job.snapshot);
  await context.faults.hit('before-finish');
  // result_ref is the file's name in the artifacts folder; only a finish that still holds the lease sets it.
  const published = await parts.finish(context.pool, jobId, job.token, fileName);
  return { job_id: jobId, claimed: true, published };
}

/** A delivery is a claim, a small file and a finish: far below this. */
export const WORKER_SHUTDOWN_GRACE_MS = 10 * SECOND;

export interface RunningExportWorker {
  worker: WakeUpWorker;
  /** Stops taking wake-ups, waits for running deliveries, closes the pool. Idempotent. */
  close(): Promise<void>;
}

export interface StartExportWorkerOptions {
  process: WorkerProcessOptionValues;
  lease: LeaseOptionValues;
  faults?: ExportFaults;
  /** Steps to swap: the can-fail fixtures pass broken ones; lesson 13 its finish that also leaves the admission gate. */
  parts?: Partial<ExportParts>;
  /** Where the wake-ups live. @defaultValue lesson 11's: prefix tasks-lab11, queue settings.queueName (lesson 12 passes its own) */
  address?: QueueAddress;
  /** The Redis to take them from. @defaultValue the lab's (a drill passes a private one) */
  connection?: RedisOptions;
  /** Where connection trouble is reported. @defaultValue lab 08's (console.error) */
  onError?: (err: Error) => void;
}

export async function startExportWorker(options: StartExportWorkerOptions): Promise<RunningExportWorker> {
  const { process: settings, lease } = options;
  const faults = options.faults ?? exportFaults();
  const pool = await openJobsDatabase({ database: settings.database });
  const context = {
    pool,
    leaseMs: lease.leaseMs,
    maxAttempts: lease.maxAttempts,
    artifactsDir: settings.artifactsDir,
    faults,
    parts: options.parts,
  };
  const worker: WakeUpWorker = startWorker(
    options.address ?? exportsAddress(settings.queueName),
    { [EXPORT_JOB_NAME]: (job) => deliverExport(job.data, context) },
    { ...settings, connection: options.connection, onError: options.onError },
  );
  return { worker, close: await readyWithPool(worker, pool) };
}

/**
 * Waits until `worker` is connected; if it never is, closes it and `pool`, so a failed start
 * leaves nothing open. Returns the close for later: the worker (its running jobs finish), then
 * the pool they used. Idempotent. Lesson 14's fast worker uses it too.
 */
export async function readyWithPool(
  worker: { waitUntilReady(): Promise<unknown>; close(): Promise<void> },
  pool: Pool,
): Promise<() => Promise<void>> {
  try {
    await worker.waitUntilReady();
  } catch (err) {
    await worker.close().catch(() => {});
    await pool.end().catch(() => {});
    throw err;
  }
  return idempotent(async () => {
    await worker.close();
    await pool.end();
  });
}
