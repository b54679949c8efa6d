// The fault drill by hand: `pnpm drill:crash-after-rename`. Worker A (LAB_FAULTS=
// after-rename:crash:once) writes the file and kills itself before BullMQ hears about
// it; worker B, started without faults, picks the job up after the stall check.
import { runMain } from '@tasks-lab/lab-kit';
import { ensureServices } from '../src/services.ts';
import { crashAfterRename, DRILL_TIMINGS, runByHand } from './scenarios.ts';

runMain(import.meta.url, async () => {
  await ensureServices(['redis']);
  console.log(`lockDuration ${DRILL_TIMINGS.lockDurationMs} ms, stalledInterval ${DRILL_TIMINGS.stalledIntervalMs} ms (BullMQ's defaults: 30000 and 30000)`);
  const e = await runByHand((signal) => crashAfterRename(signal, { log: (line) => console.log(line) }));
  for (const [i, x] of e.executions.entries()) {
    console.log(`execution ${i + 1}: pid ${x.pid}, BullMQ job ${x.bullJobId}, attemptsStarted ${x.attemptsStarted}, attemptsMade ${x.attemptsMade}`);
  }
  console.log(`final state ${e.finalState} by pid ${e.result?.pid}, ${e.recoveryMs} ms after the crash`);
  console.log(`sha256 after the crash ${e.digestAfterCrash}`);
  console.log(`sha256 at the end      ${e.finalDigest}`);
  console.log(e.finalDigest === e.digestAfterCrash ? 'same file: the second run rewrote identical bytes' : 'DIFFERENT file: the export is not idempotent');
});
