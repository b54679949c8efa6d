// pnpm drill:time-limits — the two time-limit drills on their own: a cooperative crawl
// stopped by the soft limit, and a blocked child process killed by the hard limit.
import { findCheck, runChecks, runMain } from '@tasks-lab/lab-kit';
import { ensureServices } from '@tasks-lab/09-redelivery';
import { buildChecks } from './checks.ts';

runMain(import.meta.url, async () => {
  await ensureServices(['redis', 'mysql']);
  const checks = buildChecks();
  const report = await runChecks([
    findCheck(checks, 'soft-limit-stops-work'),
    findCheck(checks, 'hard-limit-kills-child'),
  ]);
  return report.failed > 0 ? 1 : 0;
});
