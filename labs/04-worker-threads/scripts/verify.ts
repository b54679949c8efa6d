import { runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

await runVerify({
  lesson: '04',
  title: 'Shared state between threads with a lock and a queue',
  doc: 'docs/04-worker-threads.md',
  checks: buildChecks(),
});
