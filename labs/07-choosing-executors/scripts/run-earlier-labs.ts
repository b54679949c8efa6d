// `pnpm earlier`: runs the verify scripts of labs 01-06, one after another, prints one
// line per lab and writes the outcome to .earlier-labs.json in this lab's folder.
import { fileURLToPath } from 'node:url';
import { formatRun, runEarlierLabs, writeEarlierLabsRecord } from '../src/earlier-labs.ts';

const labDir = fileURLToPath(new URL('..', import.meta.url));
const labsDir = fileURLToPath(new URL('../..', import.meta.url));

const record = await runEarlierLabs(labsDir, { onLab: (run) => console.log(formatRun(run)) });
const file = writeEarlierLabsRecord(labDir, record);
const passed = record.labs.filter((run) => run.status === 'passed').length;
console.log(`${passed} of ${record.labs.length} earlier labs passed in ${(record.totalMs / 1000).toFixed(1)} s; recorded in ${file}`);
process.exitCode = passed === record.labs.length ? 0 : 1;
