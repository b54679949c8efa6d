import { runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

await runVerify({
  lesson: '05',
  title: 'Blocking I/O in a thread pool',
  doc: 'docs/05-thread-pool-io.md',
  checks: buildChecks(),
});
