import { runMain, runVerify } from '@tasks-lab/lab-kit';
import { ensureServices } from '../src/services.ts';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await ensureServices(['redis']);
  await runVerify({
    lesson: '09',
    title: 'Acknowledgement, redelivery and idempotent output',
    doc: 'docs/09-redelivery.md',
    checks: buildChecks(),
  });
});
