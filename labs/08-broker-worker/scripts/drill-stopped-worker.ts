// `pnpm drill:stopped-worker`: the lesson's fault drill on its own. It starts a worker,
// kills it (SIGKILL), runs `pnpm submit --timeout-s 2` against the empty queue, then
// starts a new worker and watches the same job id complete.
import { ensureInfra } from '@tasks-lab/infra';
import { runChecks } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

await ensureInfra({ services: ['redis'], log: (line) => console.log(`[infra] ${line}`) });
const drill = buildChecks().filter((check) => check.name.startsWith('drill:'));
const report = await runChecks(drill);
process.exitCode = report.failed > 0 ? 1 : 0;
