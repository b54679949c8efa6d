// readSync runs fine on the main thread too (Node allows Atomics.wait there), which
// makes its slice-and-check logic easy to test without a pool.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  controlFrom,
  createTaskCells,
  readSync,
  SLICES_DONE_CELL,
  STOP_CELL,
  type ReadControl,
} from '../src/blocking-read.ts';

/** A control that raises the stop flag once `afterSlices` slices are done. */
function stopAfter(afterSlices: number): ReadControl & { done: number } {
  const control = {
    done: 0,
    stopRequested: () => control.done >= afterSlices,
    sliceDone: () => void (control.done += 1),
  };
  return control;
}

describe('readSync', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('When nobody asks it to stop, Then it blocks through every slice and reports them all', () => {
    const cells = createTaskCells();
    const started = Date.now();
    const outcome = readSync({ productId: 3, slices: 4, sliceMs: 10 }, controlFrom(cells));

    expect(outcome).toEqual({ productId: 3, slicesDone: 4, totalSlices: 4, stopped: false, file: undefined });
    expect(Atomics.load(cells, SLICES_DONE_CELL)).toBe(4);
    // Each slice really blocked this thread (lower bound only: a busy machine may be slower).
    expect(Date.now() - started).toBeGreaterThanOrEqual(4 * 10 - 5);
  });

  it('When the stop flag is already set, Then it returns before the first slice', () => {
    const cells = createTaskCells();
    Atomics.store(cells, STOP_CELL, 1);

    const outcome = readSync({ productId: 3, slices: 20, sliceMs: 1000 }, controlFrom(cells));

    expect(outcome).toMatchObject({ slicesDone: 0, stopped: true });
  });

  it('When the flag goes up after 2 slices, Then it returns at the next check with 2 slices done [test:stop-at-slice-boundary]', () => {
    const outcome = readSync({ productId: 3, slices: 20, sliceMs: 5 }, stopAfter(2));

    expect(outcome).toMatchObject({ slicesDone: 2, totalSlices: 20, stopped: true });
  });

  it('When a file is written and the read finishes, Then the temp file is renamed into place with one line per slice', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lab05-read-'));
    dirs.push(dir);
    const plan = { productId: 9, slices: 3, sliceMs: 1, tempFile: join(dir, 'a.tmp'), finalFile: join(dir, 'a.csv') };

    const outcome = readSync(plan, stopAfter(99));

    expect(outcome.file).toBe(plan.finalFile);
    expect(existsSync(plan.tempFile)).toBe(false);
    expect(readFileSync(plan.finalFile, 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('When a file is written and the read is stopped, Then the read removes its temp file and no final file appears [test:stopped-read-removes-temp-file]', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lab05-read-'));
    dirs.push(dir);
    const plan = { productId: 9, slices: 10, sliceMs: 1, tempFile: join(dir, 'b.tmp'), finalFile: join(dir, 'b.csv') };

    const outcome = readSync(plan, stopAfter(2));

    expect(outcome.stopped).toBe(true);
    expect(existsSync(plan.tempFile)).toBe(false);
    expect(existsSync(plan.finalFile)).toBe(false);
  });
});
