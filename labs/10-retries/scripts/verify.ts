import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await runVerify({ lesson: '10', title: 'Retries with backoff, jitter and a total budget', doc: 'docs/10-retries.md', checks: buildChecks() });
});
