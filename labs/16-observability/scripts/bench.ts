// `pnpm bench` (from the root): every benchmark of the durable pipeline in one run, then
// docs/benchmarks.md and its charts (docs/benchmarks/*.svg) rewritten from the figures.
//
//   1. raw BullMQ on the same Redis          scripts/bench-bullmq.ts   (pnpm bench:bullmq alone)
//   2. the admission gate against a hot row  lab 13's bench-gate.ts    (pnpm bench:gate alone)
//   3. one export's transactions, each alone scripts/bench-transactions.ts (the database bound)
//   4. the durable pipeline, end to end      scripts/bench-pipeline.ts (pnpm bench:pipeline alone)
//
// Not part of `pnpm test`: it takes several minutes and its figures depend on the machine.
// A section of the page between `<!-- notes:begin -->` and `<!-- notes:end -->` is kept across
// runs: what a person concluded from the figures stays beside the figures.
//
//   pnpm bench                 the full run (about 5 minutes)
//   pnpm bench -- --quick      one short run of each (about 2 minutes): to try it, not to quote
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureInfra } from '@tasks-lab/infra';
import { runMain } from '@tasks-lab/lab-kit';
import { runGateBench } from '@tasks-lab/13-admission/bench';
import { runRawBullmq } from './bench-bullmq.ts';
import { CONFIGURATIONS, runPipelineBench } from './bench-pipeline.ts';
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

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  const startedAt = new Date().toISOString();
  const command = quick ? 'pnpm bench -- --quick' : 'pnpm bench';

  console.log('1/4 raw BullMQ');
  const raw = await runRawBullmq({ runs: quick ? 1 : 3, jobs: quick ? 1000 : 3000 });

  console.log('2/4 the admission gate (lab 13)');
  const gate = await runGateBench({ ...(quick ? { runs: 1, seconds: 1 } : {}), command });

  console.log("3/4 one export's transactions, each alone");
  const transactions = await measureTransactions(quick ? 500 : 1500);
  console.log(`  ${TRANSACTIONS.map((name) => `${name} ${Math.round(transactions.perSecond[name])}/s`).join(', ')}; bound ${Math.round(transactions.boundPerSecond)} exports/s`);

  console.log('4/4 the durable pipeline');
  const pipeline = await runPipelineBench({ runs: quick ? 1 : 3, seconds: quick ? 3 : 5, log: (line) => console.log(`  ${line}`) });

  const results: BenchResults = {
    startedAt,
    command,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '?', node: process.version, server: gate.machine.server, flushLogAtTrxCommit: gate.machine.flushLogAtTrxCommit },
    raw,
    pipeline,
    configurations: CONFIGURATIONS,
    gate,
    transactions,
  };
  await mkdir(RESULTS_DIR, { recursive: true });
  const json = join(RESULTS_DIR, `bench-${startedAt.replace(/[:.]/g, '-')}.json`);
  await writeFile(json, `${JSON.stringify(results, null, 2)}\n`);

  const rendered = renderBenchmarks(results);
  const page = join(DOCS, 'benchmarks.md');
  const previous = existsSync(page) ? await readFile(page, 'utf8') : undefined;
  await mkdir(join(DOCS, 'benchmarks'), { recursive: true });
  for (const [name, svg] of Object.entries(rendered.charts)) await writeFile(join(DOCS, 'benchmarks', name), svg);
  await writeFile(page, keepNotes(rendered.markdown, previous));
  console.log(`\nWritten: docs/benchmarks.md, ${Object.keys(rendered.charts).length} charts in docs/benchmarks/, and every figure in ${json}`);
}

runMain(import.meta.url, main);
