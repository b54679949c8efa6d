// A poison job by hand: `pnpm drill:poison [maxStalledCount]`. Every worker starts with
// LAB_FAULTS=after-rename:crash:always, so every delivery kills its worker; a supervisor
// starts a new worker each time, up to maxStalledCount + 3 of them. Every worker gets
// LOCK_DURATION_MS and STALLED_INTERVAL_MS from this shell: BullMQ's 30000 and 30000
// unless set (`LOCK_DURATION_MS=2000 STALLED_INTERVAL_MS=1000` ends in seconds).
import { runMain } from '@tasks-lab/lab-kit';
import { WORKER_OPTIONS } from '../src/options.ts';
import { ensureServices } from '../src/services.ts';
import { poisonJob, runByHand } from './scenarios.ts';

runMain(import.meta.url, async () => {
  // The argument stands for MAX_STALLED_COUNT and is checked the same way (a whole number within its bounds).
  const argument = process.argv[2];
  const { maxStalledCount, lockDurationMs, stalledIntervalMs } = WORKER_OPTIONS.read(
    argument === undefined ? {} : { env: { ...process.env, [WORKER_OPTIONS.specs.maxStalledCount.env]: argument } },
  );
  await ensureServices(['redis']);
  console.log(
    `lockDuration ${lockDurationMs} ms, stalledInterval ${stalledIntervalMs} ms (BullMQ's defaults: 30000 and 30000)`,
  );
  const e = await runByHand((signal) =>
    poisonJob(signal, {
      maxStalledCount,
      timings: { lockDurationMs, stalledIntervalMs },
      log: (line) => console.log(line),
    }),
  );
  console.log(`maxStalledCount ${e.maxStalledCount}: ${e.executions} executions, ${e.workersKilled} workers killed`);
  console.log(
    `final state ${e.finalState}${e.failedReason ? `: ${e.failedReason}` : ''} (attemptsStarted ${e.attemptsStarted})`,
  );
});
