// The late-ack window by hand: `pnpm drill:late-ack [maxStalledCount]`. Workers run with
// EXPORT_LEDGER=on, a side effect that is not idempotent (one ledger line per delivery),
// next to the idempotent artifact. Worker A is killed after both, before BullMQ hears
// "completed"; worker B, without faults, gets the job back if maxStalledCount allows.
// Both workers get LOCK_DURATION_MS and STALLED_INTERVAL_MS from this shell: BullMQ's
// 30000 and 30000 unless set (`LOCK_DURATION_MS=2000 STALLED_INTERVAL_MS=1000` ends in seconds).
import { runMain } from '@tasks-lab/lab-kit';
import { WORKER_OPTIONS } from '../src/options.ts';
import { ensureServices } from '../src/services.ts';
import { lateAckWindow, runByHand } from './scenarios.ts';

runMain(import.meta.url, async () => {
  // The argument stands for MAX_STALLED_COUNT and is checked the same way (a whole number within its bounds).
  const argument = process.argv[2];
  const { maxStalledCount, lockDurationMs, stalledIntervalMs } = WORKER_OPTIONS.read(
    argument === undefined ? {} : { env: { ...process.env, [WORKER_OPTIONS.specs.maxStalledCount.env]: argument } },
  );
  await ensureServices(['redis']);
  console.log(
    `lockDuration ${lockDurationMs} ms, stalledInterval ${stalledIntervalMs} ms; the ledger gets one line per delivery`,
  );
  const e = await runByHand((signal) =>
    lateAckWindow(signal, {
      maxStalledCount,
      timings: { lockDurationMs, stalledIntervalMs },
      log: (line) => console.log(line),
    }),
  );
  const reason = e.failedReason ? `: ${e.failedReason}` : '';
  console.log(
    `final state ${e.finalState}${reason} after ${e.executions.length} execution(s) (attemptsStarted ${e.attemptsStarted})`,
  );
  console.log(
    `ledger (not idempotent): ${e.ledger.length} line(s), by pids ${e.ledger.map((line) => line.pid).join(', ')}`,
  );
  const same = e.finalDigest !== undefined && e.finalDigest === e.digestAfterCrash;
  console.log(
    `artifact (idempotent): ${e.artifactFiles.length} file(s), sha256 ${e.finalDigest?.slice(0, 16) ?? 'none'}… ${same ? 'both after the crash and at the end' : 'CHANGED after the crash'}`,
  );
  if (e.windowMs !== undefined)
    console.log(`the run that completed spent ${e.windowMs} ms between its side effects and BullMQ's "completed"`);
});
