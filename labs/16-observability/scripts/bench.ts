// `pnpm bench` (from the root): every benchmark of the durable pipeline in one run, then
// docs/benchmarks.md and its charts (docs/benchmarks/*.svg) rewritten from the figures.
//
//   1. raw BullMQ on the same Redis          scripts/bench-bullmq.ts   (pnpm bench:bullmq alone)
//   2. the admission gate against a hot row  lab 13's bench-gate.ts    (pnpm bench:gate alone)
//   3. one export's transactions, each alone scripts/bench-transactions.ts (the database bound)
//   4. the ordered claims, two schemas       scripts/bench-claims.ts   (pnpm bench:claims alone)
//   5. the durable pipeline, end to end      scripts/bench-pipeline.ts (pnpm bench:pipeline alone)
//   6. labs 02, 05, 06 against their bounds  scripts/bench-bounds.ts   (pnpm bench:bounds alone)
//   7. recovery after a fault, two timings   scripts/bench-recovery.ts (pnpm bench:recovery alone)
//
// Not part of `pnpm test`: it takes several minutes and its figures depend on the machine.
// A section of the page between `<!-- notes:begin -->` and `<!-- notes:end -->` is kept across
// runs: what a person concluded from the figures stays beside the figures.
//
//   pnpm bench                 the full run (about 10 minutes: recovery at the course's timings
//                              waits for the real 30 s lease and 60 s threshold)
//   pnpm bench -- --quick      one short run of each, recovery at the short timings only (about
//                              3 minutes): to try it, not to quote
//   pnpm bench -- --from labs/16-observability/bench-results/bench-<time>.json
//                              measures nothing: renders the page and charts again from a saved run
//                              (after a change to the report, the figures stay the ones measured)
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureInfra } from '@tasks-lab/infra';
import { runMain } from '@tasks-lab/lab-kit';
import { runGateBench } from '@tasks-lab/13-admission/bench';
import { runBoundsBench } from './bench-bounds.ts';
import { runRawBullmq } from './bench-bullmq.ts';
import { runClaimsBench } from './bench-claims.ts';
import { CONFIGURATIONS, runPipelineBench } from './bench-pipeline.ts';
import { runRecoveryBench } from './bench-recovery.ts';
import { renderBenchmarks, type BenchResults } from './bench-report.ts';
import { measureTransactions, TRANSACTIONS } from './bench-transactions.ts';

const DOCS = fileURLToPath(new URL('../../../docs', import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL('../bench-results', import.meta.url));
const NOTES = /<!-- notes:begin -->[\s\S]*?<!-- notes:end -->/;

/** The page, with the notes block of the page it replaces (or an empty one). Pure. */
export function keepNotes(rendered: string, previous: string | undefined): string {
  const notes = previous?.match(NOTES)?.[0] ?? '<!-- notes:begin -->\n<!-- notes:end -->';
  return `${rendered.trimEnd()}\n\n## What the figures say\n\n${notes}\n`;
}

/** Writes docs/benchmarks.md (keeping its notes) and the charts from one run's figures. */
async function writePage(results: BenchResults): Promise<number> {
  const rendered = renderBenchmarks(results);
  const page = join(DOCS, 'benchmarks.md');
  const previous = existsSync(page) ? await readFile(page, 'utf8') : undefined;
  await mkdir(join(DOCS, 'benchmarks'), { recursive: true });
  for (const [name, svg] of Object.entries(rendered.charts)) await writeFile(join(DOCS, 'benchmarks', name), svg);
  await writeFile(page, keepNotes(rendered.markdown, previous));
  return Object.keys(rendered.charts).length;
}

async function main(): Promise<void> {
  const from = process.argv.indexOf('--from');
  if (from !== -1) {
    const file = process.argv[from + 1];
    if (!file) throw new Error('--from needs the path of a saved run (labs/16-observability/bench-results/bench-<time>.json)');
    const charts = await writePage(JSON.parse(await readFile(file, 'utf8')) as BenchResults);
    console.log(`Written from ${file}: docs/benchmarks.md and ${charts} charts in docs/benchmarks/ (nothing measured)`);
    return;
  }
  const quick = process.argv.includes('--quick');
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  const startedAt = new Date().toISOString();
  const command = quick ? 'pnpm bench -- --quick' : 'pnpm bench';

  const indent = (line: string) => console.log(`  ${line}`);
  console.log('1/7 raw BullMQ');
  const raw = await runRawBullmq({ runs: quick ? 1 : 3, jobs: quick ? 1000 : 3000 });

  console.log('2/7 the admission gate (lab 13)');
  const gate = await runGateBench({ ...(quick ? { runs: 1, seconds: 1 } : {}), command });

  console.log("3/7 one export's transactions, each alone");
  const transactions = await measureTransactions(quick ? 500 : 1500);
  console.log(`  ${TRANSACTIONS.map((name) => `${name} ${Math.round(transactions.perSecond[name])}/s`).join(', ')}; bound ${Math.round(transactions.boundPerSecond)} exports/s`);

  console.log("4/7 the ordered claims: the outbox, the recovery scan and the job, on the labs' schema and the course's");
  const claims = await runClaimsBench({ quick, log: indent });

  console.log('5/7 the durable pipeline');
  const pipeline = await runPipelineBench({ runs: quick ? 1 : 3, seconds: quick ? 3 : 5, log: indent });

  console.log('6/7 labs 02, 05 and 06 against their bounds');
  const bounds = await runBoundsBench({ quick, log: indent });

  console.log(`7/7 recovery after a worker kill and a lost dispatch${quick ? ' (short timings only)' : " (the course's timings wait for the real timers: about 2 minutes)"}`);
  const recovery = await runRecoveryBench({ quick, log: indent });

  const results: BenchResults = {
    startedAt,
    command,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '?', node: process.version, server: gate.machine.server, flushLogAtTrxCommit: gate.machine.flushLogAtTrxCommit },
    raw,
    pipeline,
    configurations: CONFIGURATIONS,
    gate,
    transactions,
    claims,
    recovery,
    bounds,
  };
  await mkdir(RESULTS_DIR, { recursive: true });
  const json = join(RESULTS_DIR, `bench-${startedAt.replace(/[:.]/g, '-')}.json`);
  await writeFile(json, `${JSON.stringify(results, null, 2)}\n`);

  const charts = await writePage(results);
  console.log(`\nWritten: docs/benchmarks.md, ${charts} charts in docs/benchmarks/, and every figure in ${json}`);
}

runMain(import.meta.url, main);
