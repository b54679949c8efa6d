// `pnpm earlier`: runs the verify scripts of labs 01-06, one after another, prints one
// line per lab and writes the outcome to .earlier-labs.json in this lab's folder.
// EARLIER_LAB_TIMEOUT_MS bounds each lab's run (3 minutes by default).
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMain } from '@tasks-lab/lab-kit';
import { formatRun, runEarlierLabs, writeEarlierLabsRecord } from '../src/earlier-labs.ts';
import { EARLIER_LABS_OPTIONS } from '../src/options.ts';

const labDir = fileURLToPath(new URL('..', import.meta.url));
const labsDir = fileURLToPath(new URL('../..', import.meta.url));

runMain(import.meta.url, async () => {
  const { labTimeoutMs } = EARLIER_LABS_OPTIONS.read();
  const record = await runEarlierLabs(labsDir, {
    timeoutMs: labTimeoutMs,
    onLab: (run) => console.log(formatRun(run)),
  });
  const file = writeEarlierLabsRecord(labDir, record);
  const passed = record.labs.filter((run) => run.status === 'passed').length;
  // Relative to where the command was typed (pnpm runs scripts in the lab folder; INIT_CWD is the
  // student's folder), so the line reads the same on every clone.
  const shown = relative(process.env.INIT_CWD ?? process.cwd(), file);
  console.log(
    `${passed} of ${record.labs.length} earlier labs passed in ${(record.totalMs / 1000).toFixed(1)} s; recorded in ${shown}`,
  );
  return passed === record.labs.length ? 0 : 1;
});
