// Step 1: the same blocking read, first on the main thread, then in the pool.
// A 100 ms ticker shows whether the event loop could do anything meanwhile.
import { runMain, sleep } from '@tasks-lab/lab-kit';
import { controlFrom, createTaskCells, readSync } from '../src/blocking-read.ts';
import { BlockingIoPool } from '../src/io-pool.ts';

async function main(): Promise<void> {
  const read = { productId: 1, slices: 10, sliceMs: 100 };
  let ticks = 0;
  const ticker = setInterval(() => (ticks += 1), 100);

  // Let the ticker run once, so both measurements start from a live event loop.
  await sleep(150);

  ticks = 0;
  const onMain = readSync(read, controlFrom(createTaskCells()));
  console.log(`on the main thread: ${onMain.slicesDone} slices read, the ticker ticked ${ticks} times`);

  const pool = new BlockingIoPool({ threads: 1 });
  await pool.ready();
  ticks = 0;
  const inPool = await pool.submit(read.productId, read).result;
  console.log(`in a pool thread:   ${inPool.slicesDone} slices read, the ticker ticked ${ticks} times`);

  clearInterval(ticker);
  await pool.close();
}

runMain(import.meta.url, main);
