// Step 2: wait 0.2 s for a 2 s read, try cancel(), then use the stop flag.
// The read and the wait are the course's (READ_SLICES, READ_SLICE_MS, READ_WAIT_TIMEOUT_MS: src/options.ts).
import { runMain } from '@tasks-lab/lab-kit';
import { BlockingIoPool } from '../src/io-pool.ts';
import { BLOCKING_READ_OPTIONS } from '../src/options.ts';
import { waitWithTimeout } from '../src/waiting.ts';

async function main(): Promise<void> {
  const { slices, sliceMs, waitTimeoutMs } = BLOCKING_READ_OPTIONS.read();
  const pool = new BlockingIoPool({ threads: 1 });
  await pool.ready();

  const task = pool.submit(1, { slices, sliceMs });
  const wait = await waitWithTimeout(task, waitTimeoutMs);
  if (wait.kind === 'finished') {
    console.log('read finished within the wait:', wait.outcome);
  } else {
    console.log(`wait timed out after ${wait.afterMs} ms; state: ${task.state}; cancel(): ${task.cancel()}`);
    task.requestStop();
    console.log('read result:', await task.result);
  }
  const exitCodes = await pool.close();
  console.log(`pool closed; thread exit codes: ${exitCodes.join(', ')}`);
}

runMain(import.meta.url, main);
