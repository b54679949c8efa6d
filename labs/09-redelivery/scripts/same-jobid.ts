// Step 4 by hand: `pnpm same-jobid`. One custom BullMQ jobId added twice, then removed
// and added a third time; a worker process of its own counts the executions.
import { runMain } from '@tasks-lab/lab-kit';
import { ensureServices } from '../src/services.ts';
import { repeatedJobId, runByHand } from './scenarios.ts';

runMain(import.meta.url, async () => {
  await ensureServices(['redis']);
  const e = await runByHand((signal) => repeatedJobId(signal));
  console.log(`add #1 and add #2 with jobId ${e.bullJobId}`);
  console.log(
    `add #2 returned job ${e.secondAddReturned} (${e.secondAddReturned === e.bullJobId ? 'the existing one' : 'a new one'})`,
  );
  console.log(`jobs in the queue: ${e.jobsInQueue}; executions: ${e.executionsAfterTwoAdds}`);
  console.log(`after queue.remove() and add #3 with the same jobId: executions ${e.executionsAfterRemoveAndReAdd}`);
});
