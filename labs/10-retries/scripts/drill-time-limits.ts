// pnpm drill:time-limits — the two time-limit drills on their own: a cooperative crawl
// stopped by the soft limit, and a blocked child process killed by the hard limit.
import { runChecks } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

const drills = buildChecks().filter((check) => /time limit/.test(check.name));
const report = await runChecks(drills);
process.exitCode = report.failed > 0 ? 1 : 0;
