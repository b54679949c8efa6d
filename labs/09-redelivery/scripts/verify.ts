import { ensureInfra } from '@tasks-lab/infra';
import { runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

await ensureInfra({ services: ['redis'], log: (line) => console.log(line) });
await runVerify({ lesson: '09', title: 'Acknowledgement, redelivery and idempotent output', doc: 'docs/09-redelivery.md', checks: buildChecks() });
