// The fault drill by hand: `pnpm drill:crash-after-rename`. Worker A (LAB_FAULTS=
// after-rename:crash:once) writes the file and kills itself before BullMQ hears about
// it; worker B, started without faults, picks the job up after the stall check.
// Both workers get LOCK_DURATION_MS and STALLED_INTERVAL_MS from this shell: BullMQ's
// 30000 and 30000 unless set (`LOCK_DURATION_MS=2000 STALLED_INTERVAL_MS=1000` ends in seconds).
import { runMain } from '@tasks-lab/lab-kit';
import { WORKER_OPTIONS } from '../src/options.ts';
import { ensureServices } from '../src/services.ts';
import { crashAfterRename, runByHand } from './scenarios.ts';

runMain(import.meta.url, async () => {
  const { lockDurationMs, stalledIntervalMs } = WORKER_OPTIONS.read(); // a bad value stops the drill here
  await ensureServices(['redis']);
  console.log(
    `lockDuration ${lockDurationMs} ms, stalledInterval ${stalledIntervalMs} ms (BullMQ's defaults: 30000 and 30000)`,
  );
  const e = await runByHand((signal) =>
    crashAfterRename(signal, { timings: { lockDurationMs, stalledIntervalMs }, log: (line) => console.log(line) }),
  );
  for (const [i, x] of e.executions.entries()) {
    console.log(
      `execution ${i + 1}: pid ${x.pid}, BullMQ job ${x.bullJobId}, attemptsStarted ${x.attemptsStarted}, attemptsMade ${x.attemptsMade}`,
    );
  }
  console.log(`final state ${e.finalState} by pid ${e.result?.pid}, ${e.recoveryMs} ms after the crash`);
  console.log(`sha256 after the crash ${e.digestAfterCrash}`);
  console.log(`sha256 at the end      ${e.finalDigest}`);
  console.log(
    e.finalDigest === e.digestAfterCrash
      ? 'same file: the second run rewrote identical bytes'
      : 'DIFFERENT file: the export is not idempotent',
  );
});
