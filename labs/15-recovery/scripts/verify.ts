import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await runVerify({
    lesson: '15',
    title: 'Graceful exit, cancellation, failure isolation and recovery',
    doc: 'docs/15-recovery.md',
    checks: buildChecks(),
  });
});
