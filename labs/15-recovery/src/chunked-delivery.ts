// Lesson 15's delivery of an export, in three steps (the worker runs it for each wake-up):
//
//   1. claim         (src/claim.ts: claimInOneUpdate, or claimOrWait with CLAIM_FORM=three-step)
//                    the claim WAITS for a locked row (one lock wait) instead of skipping it: a
//                    row locked by the publisher's confirmation is not "nothing to claim" (the
//                    lost wake-up). 'busy' (still locked after the wait): nothing was decided,
//                    and the worker puts the delivery back (src/recovery-worker.ts).
//   2. write         the artifact in chunks of EXPORT_CHUNK_ROWS (src/export-chunks.ts), asking
//                    canContinue (src/can-continue.ts: the lease is ours, nobody asked to cancel)
//                    and the abort signal before EACH chunk; a stop leaves no artifact.
//   3. finish        lesson 13's finish and exit from the gate (one statement by default,
//                    FINISH_FORM): its FINISH refuses a cancelled job, a lost lease
//                    and a passed deadline, and the success leaves the admission gate.
//
// Why not lesson 11's deliverExport with swapped parts (as lessons 13 and 14 do): its claim
// part returns "a job or nothing", so a claim that found the row BUSY could only look like
// "nothing to claim" (the very confusion lesson 15 fixes), and its writeArtifact part gets
// (dir, name, rows) with no token and no signal, so it cannot ask canContinue between chunks.
import type { Pool } from 'mysql2/promise';
import { faultPoints, type FaultPoints } from '@tasks-lab/lab-kit';
import {
  artifactName,
  EXPORT_FAULT_POINTS,
  parseWakeUp,
  type ClaimedJob,
  type DeliveryOutcome,
} from '@tasks-lab/11-mysql-leases';
import { finishAndLeaveInOneStatement, type finishAndLeave } from '@tasks-lab/13-admission';
import { canContinue } from './can-continue.ts';
import { claimInOneUpdate, type ClaimFn } from './claim.ts';
import { writeArtifactInChunks, type ChunkStopReason } from './export-chunks.ts';

// ---- fault points ----------------------------------------------------------------

/** Lesson 11's points, plus one before each chunk (a slow export, for the drills: `before-chunk:delay-500:always`). */
export const RECOVERY_FAULT_POINTS = [...EXPORT_FAULT_POINTS, 'before-chunk'] as const;
export type RecoveryFaultPoint = (typeof RECOVERY_FAULT_POINTS)[number];
export type RecoveryFaults = FaultPoints<RecoveryFaultPoint>;
export const recoveryFaults = (env: NodeJS.ProcessEnv = process.env): RecoveryFaults =>
  faultPoints(RECOVERY_FAULT_POINTS, env);

// ---- one delivery ----------------------------------------------------------------

/** The steps a broken variant may swap (the drills' can-fail fixtures); the lab always uses CHUNKED_PARTS. */
export interface ChunkedParts {
  /** The claim that waits for a locked row: claimInOneUpdate or claimOrWait (the worker picks it by CLAIM_FORM). */
  claimOrWait: ClaimFn;
  canContinue: typeof canContinue;
  finish: typeof finishAndLeave;
  writeChunks: typeof writeArtifactInChunks;
}

export const CHUNKED_PARTS: ChunkedParts = {
  claimOrWait: claimInOneUpdate,
  canContinue,
  finish: finishAndLeaveInOneStatement,
  writeChunks: writeArtifactInChunks,
};

export interface ChunkedContext {
  pool: Pool;
  leaseMs: number;
  maxAttempts: number;
  artifactsDir: string;
  chunkRows: number;
  faults: RecoveryFaults;
  parts?: Partial<ChunkedParts>;
  /** Aborted when the process must stop now: the export stops at its next chunk boundary. */
  signal?: AbortSignal;
  /** Told about each claim, before anything is written (the process prints a line: the drills read it). */
  onClaim?: (job: ClaimedJob) => void;
}

/** Lesson 11's outcome, plus what lesson 15 adds: a busy claim, the chunks, why it stopped. */
export interface ChunkedOutcome extends DeliveryOutcome {
  /** The row stayed locked past one lock wait: nothing was decided, the delivery goes back. */
  busy: boolean;
  attempt: number | null;
  chunksWritten: number;
  chunksTotal: number;
  stoppedBecause: ChunkStopReason | null;
}

const nothing = (jobId: string, busy: boolean): ChunkedOutcome => ({
  job_id: jobId,
  claimed: false,
  published: false,
  busy,
  attempt: null,
  chunksWritten: 0,
  chunksTotal: 0,
  stoppedBecause: null,
});

/**
 * One delivery of a wake-up message: claim (or wait, or hear "busy"), write in chunks with a
 * check before each, finish. An error (the database is down) leaves the row running with its
 * lease: the lease runs out and the recovery scanner requeues it.
 */
export async function deliverInChunks(message: unknown, context: ChunkedContext): Promise<ChunkedOutcome> {
  const { job_id: jobId } = parseWakeUp(message);
  const parts = { ...CHUNKED_PARTS, ...context.parts };
  const { pool } = context;
  const attempt = await parts.claimOrWait(pool, jobId, { leaseMs: context.leaseMs, maxAttempts: context.maxAttempts });
  if (attempt.outcome !== 'claimed') return nothing(jobId, attempt.outcome === 'busy');
  const job = attempt.job;
  context.onClaim?.(job);
  await context.faults.hit('after-claim');
  // The claim is committed: the chunks are written with no row locked, each one after a check.
  const fileName = artifactName(jobId, job.token);
  const written = await parts.writeChunks(context.artifactsDir, fileName, job.snapshot, {
    chunkRows: context.chunkRows,
    canContinue: () => parts.canContinue(pool, jobId, job.token),
    signal: context.signal,
    beforeChunk: () => context.faults.hit('before-chunk'),
  });
  const base = {
    job_id: jobId,
    claimed: true,
    busy: false,
    attempt: job.attempts,
    chunksWritten: written.chunksWritten,
    chunksTotal: written.chunksTotal,
  };
  // Stopped: no file, and no finish either (it would refuse; not asking keeps the row as the scanner expects it).
  if (!written.completed) return { ...base, published: false, stoppedBecause: written.stoppedBecause ?? null };
  await context.faults.hit('before-finish');
  const published = await parts.finish(pool, jobId, job.token, fileName);
  return { ...base, published, stoppedBecause: null };
}
