import { runVerify } from '@tasks-lab/lab-kit';
import { buildChecks } from './checks.ts';

const title = 'Constrain async work with a group, a bounded queue and a timeout';
await runVerify({ lesson: '02', title, doc: 'docs/02-bounded-async.md', checks: buildChecks() });
