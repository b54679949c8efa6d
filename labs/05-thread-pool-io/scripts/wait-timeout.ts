// Step 2: wait 0.2 s for a 2 s read, try cancel(), then use the stop flag.
import { BlockingIoPool } from '../src/io-pool.ts';
import { waitWithTimeout } from '../src/waiting.ts';

const pool = new BlockingIoPool({ threads: 1 });
await pool.ready();

const task = pool.submit(1);
const wait = await waitWithTimeout(task, 200);
if (wait.kind === 'finished') {
  console.log('read finished within the wait:', wait.outcome);
} else {
  console.log(`wait timed out after ${wait.afterMs} ms; state: ${task.state}; cancel(): ${task.cancel()}`);
  task.requestStop();
  console.log('read result:', await task.result);
}
const exitCodes = await pool.close();
console.log(`pool closed; thread exit codes: ${exitCodes.join(', ')}`);
