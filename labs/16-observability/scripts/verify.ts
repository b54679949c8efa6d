import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await runVerify({
    lesson: '16',
    title: 'Fault injection and observability acceptance',
    doc: 'docs/16-observability.md',
    checks: buildChecks(),
  });
});
