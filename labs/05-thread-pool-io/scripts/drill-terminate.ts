// Fault drill: end a pool thread with worker.terminate() in the middle of an export
// that writes a temp file, then look at what it left behind.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { runMain, waitFor } from '@tasks-lab/lab-kit';
import { BlockingIoPool } from '../src/io-pool.ts';
import { BLOCKING_READ_OPTIONS, IO_POOL_OPTIONS } from '../src/options.ts';

async function main(): Promise<void> {
  const { slices, sliceMs } = BLOCKING_READ_OPTIONS.read();
  const dir = join(import.meta.dirname, '..', 'artifacts');
  mkdirSync(dir, { recursive: true });
  const tempFile = join(dir, 'export-7.csv.tmp');
  const finalFile = join(dir, 'export-7.csv');
  rmSync(tempFile, { force: true });
  rmSync(finalFile, { force: true });

  const pool = new BlockingIoPool(IO_POOL_OPTIONS.read());
  await pool.ready();
  console.log(`threads before: ${pool.snapshot().threadIds.join(', ')}`);

  const task = pool.submit(7, { slices, sliceMs, tempFile, finalFile });
  await waitFor('five chunks written', () => task.slicesDone >= 5);
  await pool.terminate(task);
  const error = await task.result.then(
    () => 'none',
    (err: Error) => err.message,
  );
  console.log(`terminated: task ${task.state} (${error}); job ${pool.store.require(task.id).state}`);

  const lines = existsSync(tempFile) ? readFileSync(tempFile, 'utf8').trim().split('\n').length : 0;
  console.log(
    `left behind: ${relative(process.cwd(), tempFile)} with ${lines} of ${slices} lines; final file ${existsSync(finalFile) ? 'exists' : 'absent'}`,
  );
  console.log(`shared progress counter still says ${task.slicesDone} slices`);

  await pool.ready();
  console.log(`threads after:  ${pool.snapshot().threadIds.join(', ')} (${pool.snapshot().liveThreads} alive)`);
  const next = await pool.submit(8, { slices: 2, sliceMs }).result;
  console.log(
    `next read after the replacement: ${next.slicesDone}/${next.totalSlices} slices, stopped: ${next.stopped}`,
  );
  await pool.close();
}

runMain(import.meta.url, main);
