// A poison job by hand: `pnpm drill:poison [maxStalledCount]`. Every delivery kills its
// worker; a supervisor starts a new worker each time, up to maxStalledCount + 3 of them.
import { ensureInfra } from '@tasks-lab/infra';
import { poisonJob } from './scenarios.ts';

await ensureInfra({ services: ['redis'], log: (line) => console.log(line) });
const maxStalledCount = Number(process.argv[2] ?? 1);
const e = await poisonJob({ maxStalledCount, log: (line) => console.log(line) });
console.log(`maxStalledCount ${e.maxStalledCount}: ${e.executions} executions, ${e.workersKilled} workers killed`);
console.log(`final state ${e.finalState}${e.failedReason ? `: ${e.failedReason}` : ''} (attemptsStarted ${e.attemptsStarted})`);
