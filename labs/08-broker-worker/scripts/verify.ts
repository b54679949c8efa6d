// `pnpm verify`: lesson 08's checks, one line each, against the lab's Redis.
import { ensureInfra } from '@tasks-lab/infra';
import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await ensureInfra({ services: ['redis'], log: (line) => console.log(`[infra] ${line}`) });
  await runVerify({
    lesson: '08',
    title: 'Start a broker, a worker and a result cache',
    doc: 'docs/08-broker-worker.md',
    checks: buildChecks(),
  });
});
