import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await runVerify({
    lesson: '03',
    title: 'Background work after the response vs. self-started tasks',
    doc: 'docs/03-background-tasks.md',
    checks: buildChecks(),
  });
});
