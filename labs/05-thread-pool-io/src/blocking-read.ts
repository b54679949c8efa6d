// The "blocking read" of this lesson: a synchronous export read that holds its thread
// the whole time, like a storage SDK that only has a sync API. It blocks in slices
// (Atomics.wait really parks the thread, no event loop runs meanwhile) and checks a
// stop flag between slices, so a cooperative stop ends it at the next slice boundary
// and never in the middle of one.
import { appendFileSync, renameSync, rmSync } from 'node:fs';

/** One read. The course's is 20 slices of 0.1 s, about 2 s in all (BLOCKING_READ_OPTIONS). */
export interface ReadPlan {
  productId: number;
  /** How many slices the read has; it stops checking after the last one. */
  slices: number;
  /** How long one slice blocks the thread. */
  sliceMs: number;
  /** When set, each slice appends one line here, and a finished read renames it to `finalFile`. */
  tempFile?: string;
  finalFile?: string;
}

export interface ReadOutcome {
  productId: number;
  slicesDone: number;
  totalSlices: number;
  /** True when the read saw the stop flag and returned early. */
  stopped: boolean;
  /** The finished export file, when the plan wrote one. */
  file?: string;
}

// The two shared Int32 cells every task gets, readable and writable from both threads.
export const STOP_CELL = 0;
export const SLICES_DONE_CELL = 1;
export const TASK_CELLS = 2;

/** A task's shared memory: the stop flag the caller sets and the progress the thread writes. */
export function createTaskCells(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(TASK_CELLS * Int32Array.BYTES_PER_ELEMENT));
}

/** What the read needs from the shared cells; the lesson's tests swap it to break the stop path. */
export interface ReadControl {
  stopRequested(): boolean;
  sliceDone(): void;
}

export function controlFrom(cells: Int32Array): ReadControl {
  return {
    stopRequested: () => Atomics.load(cells, STOP_CELL) === 1,
    sliceDone: () => void Atomics.add(cells, SLICES_DONE_CELL, 1),
  };
}

// Nobody ever notifies this cell, so every wait on it runs for its full timeout.
const neverNotified = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));

/** Blocks the calling thread for `ms`, the way a synchronous network call would. */
export function blockThread(ms: number): void {
  Atomics.wait(neverNotified, 0, 0, ms);
}

export function readSync(plan: ReadPlan, control: ReadControl): ReadOutcome {
  let slicesDone = 0;
  for (let slice = 0; slice < plan.slices; slice += 1) {
    // The only places where the read can end early: between two slices.
    if (control.stopRequested()) {
      // A cooperative stop can still clean up after itself: no half-written file stays behind.
      if (plan.tempFile) rmSync(plan.tempFile, { force: true });
      return { productId: plan.productId, slicesDone, totalSlices: plan.slices, stopped: true };
    }
    blockThread(plan.sliceMs);
    if (plan.tempFile) appendFileSync(plan.tempFile, `product ${plan.productId} chunk ${slice + 1}\n`);
    slicesDone += 1;
    control.sliceDone();
  }
  if (plan.tempFile && plan.finalFile) renameSync(plan.tempFile, plan.finalFile);
  return { productId: plan.productId, slicesDone, totalSlices: plan.slices, stopped: false, file: plan.finalFile };
}
