import { runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

await runVerify({
  lesson: '07',
  title: 'Choose coroutine, thread, process or task queue',
  doc: 'docs/07-choosing-executors.md',
  checks: buildChecks(),
});
