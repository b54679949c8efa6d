import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await runVerify({
    lesson: '11',
    title: 'Job state and leases in MySQL',
    doc: 'docs/11-mysql-leases.md',
    checks: buildChecks(),
  });
});
