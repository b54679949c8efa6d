// The fault drill by hand: `pnpm drill:kill-worker`. Starts a pool of 2 worker
// processes, the first with LAB_FAULTS=while-scoring:crash:once (it SIGKILLs itself
// holding its first row), runs a 12-row export job on it, and prints what the batch,
// the job record and the pool do about the lost worker.
import { runMain } from '@tasks-lab/lab-kit';
import { runCrashDrill } from './scenarios.ts';

runMain(import.meta.url, async () => {
  const drill = await runCrashDrill({ log: (line) => console.log(line) });
  if (drill.returned) {
    console.log('UNEXPECTED: the batch returned scores after losing a worker');
    return 1;
  }
  console.log('the batch reported no scores: all or nothing');
  return 0;
});
