// `pnpm bench` (from the root): every benchmark of the durable pipeline in one run, then
// docs/benchmarks.md and its charts (docs/benchmarks/*.svg) rewritten from the figures.
//
//   1. raw BullMQ on the same Redis          scripts/bench-bullmq.ts   (pnpm bench:bullmq alone)
//   2. the admission gate against a hot row  scripts/bench-gate.ts     (pnpm bench:gate alone)
//   3. one export's transactions, each alone scripts/bench-transactions.ts (the database bound)
//   4. the ordered claims, two schemas       scripts/bench-claims.ts   (pnpm bench:claims alone)
//   5. the durable pipeline, end to end      scripts/bench-pipeline.ts (pnpm bench:pipeline alone)
//   6. labs 02, 05, 06 against their bounds  scripts/bench-bounds.ts   (pnpm bench:bounds alone)
//   7. recovery after a fault, two timings   scripts/bench-recovery.ts (pnpm bench:recovery alone)
//   8. flame graphs, a separate profiled run scripts/bench-profile.ts  (pnpm bench:profile alone)
//
// Not part of `pnpm test`: it takes several minutes and its figures depend on the machine.
// The page's prose is written by hand in docs/benchmarks.md; a run rewrites only the blocks
// between `<!-- bench:begin NAME -->` and `<!-- bench:end NAME -->` (the tables, the chart links
// and the lines that quote the run's own settings), so the explanation is edited as Markdown.
//
//   pnpm bench                 the full run (about 20 minutes: recovery at the course's timings
//                              waits for the real 30 s lease and 60 s threshold)
//   pnpm bench -- --quick      one short run of each, recovery at the short timings only (about
//                              6 minutes): to try it, not to quote
//   pnpm bench -- --from perf/bench-results/bench-<time>.json
//                              measures nothing: renders the page and charts again from a saved run
//                              (after a change to the report, the figures stay the ones measured)
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureInfra } from '@tasks-lab/infra';
import { missingBlocks, rewriteBlocks, runMain } from '@tasks-lab/lab-kit';
import { runGateBench } from './bench-gate.ts';
import { runBoundsBench } from './bench-bounds.ts';
import { runRawBullmq } from './bench-bullmq.ts';
import { runClaimsBench } from './bench-claims.ts';
import { bestConfiguration, CONFIGURATIONS, runPipelineBench } from './bench-pipeline.ts';
import { runProfileBench } from './bench-profile.ts';
import { runRecoveryBench } from './bench-recovery.ts';
import {
  BENCH_BLOCKS,
  BENCH_TAG,
  renderBenchmarks,
  type BenchResults,
  type RenderedBenchmarks,
} from './bench-report.ts';
import { measureTransactions, TRANSACTIONS } from './bench-transactions.ts';

const DOCS = fileURLToPath(new URL('../../docs', import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL('../bench-results', import.meta.url));
const PAGE = join(DOCS, 'benchmarks.md');

/** The page with every generated block replaced by this run's; the prose around them byte for byte. Pure. */
export function rewritePage(page: string, rendered: RenderedBenchmarks): string {
  return rewriteBlocks(page, BENCH_TAG, rendered.blocks);
}

/** Stops before measuring when the page lost a block's markers: the run would have nowhere to go. */
async function checkPage(): Promise<void> {
  const missing = missingBlocks(await readFile(PAGE, 'utf8'), BENCH_TAG, BENCH_BLOCKS);
  if (missing.length > 0)
    throw new Error(
      `docs/benchmarks.md has no block for ${missing.join(', ')}: put back its <!-- bench:begin NAME --> and <!-- bench:end NAME --> lines`,
    );
}

/** Rewrites docs/benchmarks.md's generated blocks and the charts from one run's figures. */
async function writePage(results: BenchResults): Promise<number> {
  const rendered = renderBenchmarks(results);
  const page = rewritePage(await readFile(PAGE, 'utf8'), rendered);
  await mkdir(join(DOCS, 'benchmarks'), { recursive: true });
  for (const [name, svg] of Object.entries(rendered.charts)) await writeFile(join(DOCS, 'benchmarks', name), svg);
  await writeFile(PAGE, page);
  return Object.keys(rendered.charts).length;
}

async function main(): Promise<void> {
  const from = process.argv.indexOf('--from');
  if (from !== -1) {
    const file = process.argv[from + 1];
    if (!file) throw new Error('--from needs the path of a saved run (perf/bench-results/bench-<time>.json)');
    const charts = await writePage(JSON.parse(await readFile(file, 'utf8')) as BenchResults);
    console.log(
      `Written from ${file}: docs/benchmarks.md's figures and ${charts} charts in docs/benchmarks/ (nothing measured)`,
    );
    return;
  }
  const quick = process.argv.includes('--quick');
  await checkPage();
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  const startedAt = new Date().toISOString();
  const command = quick ? 'pnpm bench -- --quick' : 'pnpm bench';

  const indent = (line: string) => console.log(`  ${line}`);
  console.log('1/8 raw BullMQ');
  const raw = await runRawBullmq({ runs: quick ? 1 : 3, jobs: quick ? 1000 : 3000 });

  console.log('2/8 the admission gate (lab 13)');
  const gate = await runGateBench({ ...(quick ? { runs: 1, seconds: 1 } : {}), command });

  console.log("3/8 one export's transactions, each alone");
  const transactions = await measureTransactions(quick ? 500 : 1500);
  console.log(
    `  ${TRANSACTIONS.map((name) => `${name} ${Math.round(transactions.perSecond[name])}/s`).join(', ')}; bound ${Math.round(transactions.boundPerSecond)} exports/s`,
  );

  console.log(
    "4/8 the ordered claims: the outbox, the recovery scan and the job, on the labs' schema and the course's",
  );
  const claims = await runClaimsBench({ quick, log: indent });

  console.log('5/8 the durable pipeline');
  const pipeline = await runPipelineBench({
    runs: quick ? 1 : 3,
    seconds: quick ? 3 : 5,
    warmupSeconds: quick ? 2 : 3,
    log: indent,
  });

  console.log('6/8 labs 02, 05 and 06 against their bounds');
  const bounds = await runBoundsBench({ quick, log: indent });

  console.log(
    `7/8 recovery after a worker kill and a lost dispatch${quick ? ' (short timings only)' : " (the course's timings wait for the real timers: about 2 minutes)"}`,
  );
  const recovery = await runRecoveryBench({ quick, log: indent });

  console.log('8/8 flame graphs: the best configuration again, profiled (a run of its own)');
  const profile = await runProfileBench({
    configuration: bestConfiguration(pipeline.saturation).configuration,
    seconds: quick ? 4 : 8,
    warmupSeconds: quick ? 2 : 3,
    log: indent,
  });

  const results: BenchResults = {
    startedAt,
    command,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? '?',
      node: process.version,
      server: gate.machine.server,
      flushLogAtTrxCommit: gate.machine.flushLogAtTrxCommit,
    },
    raw,
    pipeline: pipeline.saturation,
    openLoop: pipeline.openLoop,
    forms: pipeline.forms,
    profile,
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
  console.log(
    `\nWritten: docs/benchmarks.md's figures, ${charts} charts in docs/benchmarks/, and every figure in ${json}`,
  );
}

runMain(import.meta.url, main);
