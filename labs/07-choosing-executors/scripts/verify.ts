import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await runVerify({
    lesson: '07',
    title: 'Choose coroutine, thread, process or task queue',
    doc: 'docs/07-choosing-executors.md',
    checks: buildChecks(),
  });
});
