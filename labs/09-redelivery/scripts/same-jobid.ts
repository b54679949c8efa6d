// Step 4 by hand: `pnpm same-jobid`. One custom BullMQ jobId added twice, then removed
// and added a third time; a worker process of its own counts the executions.
import { ensureInfra } from '@tasks-lab/infra';
import { runMain } from '@tasks-lab/lab-kit';
import { repeatedJobId, runByHand } from './scenarios.ts';

runMain(import.meta.url, async () => {
  await ensureInfra({ services: ['redis'], log: (line) => console.log(line) });
  const e = await runByHand((signal) => repeatedJobId(signal));
  console.log(`add #1 and add #2 with jobId ${e.bullJobId}`);
  console.log(`add #2 returned job ${e.secondAddReturned} (${e.secondAddReturned === e.bullJobId ? 'the existing one' : 'a new one'})`);
  console.log(`jobs in the queue: ${e.jobsInQueue}; executions: ${e.executionsAfterTwoAdds}`);
  console.log(`after queue.remove() and add #3 with the same jobId: executions ${e.executionsAfterRemoveAndReAdd}`);
});
