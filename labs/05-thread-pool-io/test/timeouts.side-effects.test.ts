// The course's first troubleshooting entry, reproduced: the caller was told "timed out",
// and the export file appeared anyway. The mistake (only the wait gives up) shows the
// symptom; the fix (giving up also sets the stop flag) removes it.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BlockingIoPool } from '../src/io-pool.ts';
import { readWithDeadline, waitWithTimeout } from '../src/waiting.ts';

describe('a timeout and the export file it did not stop', () => {
  let pool: BlockingIoPool;
  const dirs: string[] = [];
  beforeAll(async () => {
    pool = new BlockingIoPool({ threads: 1 });
    await pool.ready();
  });
  afterAll(async () => {
    await pool.close();
  });
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function exportFiles() {
    const dir = mkdtempSync(join(tmpdir(), 'lab05-timeout-'));
    dirs.push(dir);
    return { tempFile: join(dir, 'export-1.csv.tmp'), finalFile: join(dir, 'export-1.csv') };
  }

  it('When only the wait times out, Then the read goes on and the export file appears after the caller gave up [test:timed-out-wait-still-writes-file]', async () => {
    const files = exportFiles();
    // Race prevented: a 400 ms read (20 x 20 ms) could finish while the main thread stalled, so the 40 ms
    // timer and the file both landed in one turn and "no file yet" failed. 10 x 200 ms = 2 s outlasts the 0.3-1 s stalls.
    const task = pool.submit(1, { slices: 10, sliceMs: 200, ...files });

    const wait = await waitWithTimeout(task, 40);

    expect(wait.kind).toBe('timed-out');
    expect(existsSync(files.finalFile)).toBe(false);
    await task.result;
    expect(existsSync(files.finalFile)).toBe(true);
    expect(pool.store.require(task.id).state).toBe('succeeded');
  });

  it('When giving up also sets the stop flag, Then the read stops, removes its temp file and no export file appears [test:deadline-stop-leaves-no-file]', async () => {
    const files = exportFiles();

    // Race prevented: a 200 ms read (10 x 20 ms) could finish before a stalled main thread fired the 40 ms
    // abort, answering 'finished'. 10 x 200 ms leaves ~1.8 s for the abort; the stop still comes at the next slice.
    const result = await readWithDeadline(pool, 1, { slices: 10, sliceMs: 200, timeoutMs: 40, ...files });

    expect(result.kind).toBe('timed-out');
    if (result.kind !== 'timed-out') return;
    const outcome = await result.task.result;
    expect(outcome.stopped).toBe(true);
    expect(existsSync(files.tempFile)).toBe(false);
    expect(existsSync(files.finalFile)).toBe(false);
    expect(pool.store.require(result.task.id).state).toBe('cancelled');
  });
});
