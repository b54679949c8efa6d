import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await runVerify({
    lesson: '13',
    title: 'Admission limit and fast/bulk queues',
    doc: 'docs/13-admission.md',
    checks: buildChecks(),
  });
});
