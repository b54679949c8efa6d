// A poison job by hand: `pnpm drill:poison [maxStalledCount]`. Every worker starts with
// LAB_FAULTS=after-rename:crash:always, so every delivery kills its worker; a supervisor
// starts a new worker each time, up to maxStalledCount + 3 of them.
import { runMain } from '@tasks-lab/lab-kit';
import { WORKER_OPTIONS } from '../src/options.ts';
import { ensureServices } from '../src/services.ts';
import { poisonJob, runByHand } from './scenarios.ts';

runMain(import.meta.url, async () => {
  // The argument stands for MAX_STALLED_COUNT and is checked the same way (a whole number within its bounds).
  const argument = process.argv[2];
  const { maxStalledCount } = WORKER_OPTIONS.read(argument === undefined ? {} : { env: { [WORKER_OPTIONS.specs.maxStalledCount.env]: argument } });
  await ensureServices(['redis']);
  const e = await runByHand((signal) => poisonJob(signal, { maxStalledCount, log: (line) => console.log(line) }));
  console.log(`maxStalledCount ${e.maxStalledCount}: ${e.executions} executions, ${e.workersKilled} workers killed`);
  console.log(`final state ${e.finalState}${e.failedReason ? `: ${e.failedReason}` : ''} (attemptsStarted ${e.attemptsStarted})`);
});
