// The parts of lesson 16's system that the failure matrix runs, by name: each row runs the
// lab's real ones; the can-fail tests (test/matrix-checks.can-fail.test.ts) swap ONE for a
// broken variant (test/fixtures/broken-matrix.ts) and see the row's judge fail.
//
// What is NOT a part: the database, Redis and the worker process itself (always real), and
// the faults (each row injects its own, through the fault points or an action).
import { fileURLToPath } from 'node:url';
import type { Express } from 'express';
import type { Pool } from 'mysql2/promise';
import type { PublisherParts } from '@tasks-lab/12-outbox';
import { finishAndLeaveInOneStatement, type finishAndLeave } from '@tasks-lab/13-admission';
import { handleTick, scheduleOnce } from '@tasks-lab/14-schedule-slots';
import {
  claimInOneUpdate,
  recoverBatch,
  type ChunkedParts,
  type ClaimFn,
  type RecoverBatch,
} from '@tasks-lab/15-recovery';
import { createApp } from '../app.ts';
import { admitTraced } from '../trace-context.ts';

/** A process to start: a script and its arguments. */
export interface ProcessCommand {
  script: string;
  args: string[];
}

/**
 * The worker PROCESS the row worker-killed-holding-lease SIGKILLs: lesson 16's observed bulk
 * worker (`pnpm worker:bulk`). The one place that names it.
 */
export const KILLED_WORKER: ProcessCommand = {
  script: fileURLToPath(new URL('../worker.ts', import.meta.url)),
  args: ['bulk'],
};

export interface MatrixParts {
  /** Every submission (the atomic submit, the admission gate): lesson 16's admitTraced. */
  admit: typeof admitTraced;
  /**
   * Changes to the in-process publisher's steps, on top of lesson 16's traced parts (claim,
   * send with the trace, lesson 15's dispatch-recording confirmation). @defaultValue none
   */
  publisherParts: (pool: Pool) => Partial<PublisherParts>;
  /** The in-process workers' steps (claim, canContinue, finish, the chunked write). @defaultValue lesson 15's */
  workerParts: Partial<ChunkedParts>;
  /** The worker process a row kills. */
  killedWorker: ProcessCommand;
  /** One recovery scanner batch (the in-process scanner's, and the direct scans). */
  recoverBatch: RecoverBatch;
  /** A direct claim of one job (a duplicate message's): lesson 15's claimInOneUpdate, the lab's default. */
  claim: ClaimFn;
  /** A direct finish (an old holder's, a cancelled holder's): lesson 13's, in one statement (the default FINISH_FORM). */
  finish: typeof finishAndLeave;
  /** Scheduling a slot: lesson 14's scheduleOnce. */
  scheduleOnce: typeof scheduleOnce;
  /** Handling a periodic signal: lesson 14's handleTick. */
  handleTick: typeof handleTick;
  /** The HTTP API: lesson 16's createApp (its `queuePrefixes[0]` is the row's BullMQ prefix). */
  createApp: (options: Parameters<typeof createApp>[0]) => Express;
}

export const MATRIX_PARTS: MatrixParts = {
  admit: admitTraced,
  publisherParts: () => ({}),
  workerParts: {},
  killedWorker: KILLED_WORKER,
  recoverBatch,
  claim: claimInOneUpdate,
  finish: finishAndLeaveInOneStatement,
  scheduleOnce,
  handleTick,
  createApp,
};
