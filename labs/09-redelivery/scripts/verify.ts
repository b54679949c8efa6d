import { ensureInfra } from '@tasks-lab/infra';
import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await ensureInfra({ services: ['redis'], log: (line) => console.log(line) });
  await runVerify({ lesson: '09', title: 'Acknowledgement, redelivery and idempotent output', doc: 'docs/09-redelivery.md', checks: buildChecks() });
});
