import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await runVerify({
    lesson: '02',
    title: 'Constrain async work with a group, a bounded queue and a timeout',
    doc: 'docs/02-bounded-async.md',
    checks: buildChecks(),
  });
});
