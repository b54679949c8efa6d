import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await runVerify({ lesson: '12', title: 'Transactional outbox', doc: 'docs/12-outbox.md', checks: buildChecks() });
});
