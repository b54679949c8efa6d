import { runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

await runVerify({
  lesson: '01',
  title: 'Submit an export job, return 202 and a queryable status',
  doc: 'docs/01-state-machine.md',
  checks: buildChecks(),
});
