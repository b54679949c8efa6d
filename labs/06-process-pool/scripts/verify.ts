import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await runVerify({
    lesson: '06',
    title: 'CPU-bound export in a process pool',
    doc: 'docs/06-process-pool.md',
    checks: buildChecks(),
  });
});
