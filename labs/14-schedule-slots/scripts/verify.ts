import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await runVerify({
    lesson: '14',
    title: 'Durable time slots for periodic runs',
    doc: 'docs/14-schedule-slots.md',
    checks: buildChecks(),
  });
});
