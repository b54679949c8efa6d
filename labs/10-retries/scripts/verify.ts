import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { ensureServices } from '@tasks-lab/09-redelivery';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await ensureServices(['redis', 'mysql']);
  await runVerify({
    lesson: '10',
    title: 'Retries with backoff, jitter and a total budget',
    doc: 'docs/10-retries.md',
    checks: buildChecks(),
  });
});
