// `pnpm matrix`: runs the course's failure matrix (step 4) for real, one row at a time, and
// writes the evidence (step 5): evidence/<case>.json, evidence/<case>.svg, evidence/summary.md.
// One progress line per row, then "N passed, N failed, N not_run"; exit 1 if any row failed.
//
//   pnpm matrix                                   every row, then the fault-free regression
//   pnpm matrix --only cancel,queue-full          these rows; the others are not_run in this run
//   pnpm matrix --list                            the rows, and what each one does
//
// The evidence folder holds one run: the files a run writes are removed before its first row.
// The short timings are used (a 1.5 s lease, a 1 s unclaimed threshold) whatever the
// environment says (matrixTimings), so that the recovery times of two runs compare.
import { errorMessage, runMain } from '@tasks-lab/lab-kit';
import { describeTimings, EVIDENCE_DIR } from '../src/options.ts';
import { MATRIX_CASES } from '../src/matrix/catalogue.ts';
import { matrixTimings, recoveryText, runMatrix, SUMMARY_FILE } from '../src/matrix/run-matrix.ts';
import { displayPath } from '../src/display-path.ts';
import { formatTotals, summaryTotals } from '../src/matrix/summary.ts';

/** `--only a,b` (or `--only=a,b`) to the ids; `--list`; anything else is refused with the usage. */
export function parseMatrixArgs(args: readonly string[]): { only?: string[]; list: boolean } {
  let only: string[] | undefined;
  let list = false;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--list') list = true;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const value = arg === '--only' ? args[(i += 1)] : arg.slice('--only='.length);
      if (!value) throw new Error('--only needs the row ids, separated by commas (pnpm matrix --list shows them)');
      only = [
        ...(only ?? []),
        ...value
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      ];
    } else throw new Error(`unknown argument ${JSON.stringify(arg)}; usage: pnpm matrix [--only id,id] [--list]`);
  }
  return { only, list };
}

async function main(): Promise<number> {
  const { only, list } = parseMatrixArgs(process.argv.slice(2));
  if (list) {
    for (const c of MATRIX_CASES) console.log(`${c.id.padEnd(28)} ${c.kind.padEnd(11)} ${c.fault}`);
    return 0;
  }
  const timings = matrixTimings();
  const interrupted = new AbortController();
  process.once('SIGINT', () => {
    console.log('SIGINT: stopping the running row and cleaning up');
    interrupted.abort(new Error('interrupted'));
  });
  console.log(`Failure matrix: evidence in ${displayPath(EVIDENCE_DIR)}; ${describeTimings(timings)}`);
  const records = await runMatrix({
    only,
    timings,
    signal: interrupted.signal,
    onStart: (row, i, n) => process.stdout.write(`[${i}/${n}] ${row.id} ... `),
    onRow: (record, files, i, n) => {
      console.log(
        `${record.result}: ${recoveryText(record)}${record.job_id ? `, job ${record.job_id.slice(0, 8)}` : ''} (${displayPath(files.json)})`,
      );
      if (record.result !== 'pass') console.log(`        ${record.observed.slice(0, 600)}`);
      if (i === n) console.log('');
    },
  });
  const totals = summaryTotals(records);
  console.log(`Summary: ${displayPath(`${EVIDENCE_DIR}/${SUMMARY_FILE}`)}`);
  console.log(formatTotals(totals));
  return totals.failed > 0 ? 1 : 0;
}

runMain(import.meta.url, () =>
  main().catch((err: unknown) => {
    console.error(`matrix: ${errorMessage(err)}`);
    return 1;
  }),
);
