import { runVerify } from '@tasks-lab/lab-kit';
import { ensureInfra } from '@tasks-lab/infra';
import { buildChecks } from './checks.ts';

await ensureInfra({ services: ['redis'], log: (line) => console.log(`[infra] ${line}`) });
await runVerify({
  lesson: '08',
  title: 'Start a broker, a worker and a result cache',
  doc: 'docs/08-broker-worker.md',
  checks: buildChecks(),
});
