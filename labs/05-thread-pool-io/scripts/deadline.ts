// Step 4: async code gives up after 0.2 s; its AbortSignal sets the read's stop flag.
import { runMain } from '@tasks-lab/lab-kit';
import { BlockingIoPool } from '../src/io-pool.ts';
import { BLOCKING_READ_OPTIONS } from '../src/options.ts';
import { readWithDeadline } from '../src/waiting.ts';

async function main(): Promise<void> {
  const { slices, sliceMs, waitTimeoutMs } = BLOCKING_READ_OPTIONS.read();
  const pool = new BlockingIoPool({ threads: 1 });
  await pool.ready();

  const result = await readWithDeadline(pool, 1, { slices, sliceMs, timeoutMs: waitTimeoutMs });
  if (result.kind === 'finished') {
    console.log('read finished before the deadline:', result.outcome);
  } else {
    console.log(`deadline passed after ${result.afterMs} ms; stop requested through the AbortSignal`);
    const outcome = await result.task.result;
    console.log(
      `the thread returned after ${outcome.slicesDone}/${outcome.totalSlices} slices (stopped: ${outcome.stopped})`,
    );
  }
  await pool.close();
}

runMain(import.meta.url, main);
