// `pnpm bench:profile` (from the root), and step 8 of `pnpm bench`: a flame graph of each kind of
// Node process of the pipeline under load, in a run of its own. Profiling slows what it
// profiles, so no figure of the other benchmarks comes from this run.
//
// The pipeline of bench-pipeline.ts (same settings, all-fast mix) with `--cpu-prof` on the API,
// the publisher, the worker(s) and the scanner, a warm-up, then the load; each process is then
// stopped gracefully, so that V8 writes its profile as it exits. The profiles of one kind of
// process are added up (flame-graph.ts) and drawn as docs/benchmarks/flame-<role>.svg (by the page's
// report in `pnpm bench`, here alone), with the folded stacks in perf/bench-results/ for other tools
// (speedscope, flamegraph.pl).
// MariaDB and Redis are not Node: their CPU is in the pipeline's CPU table, not here.
//
//   pnpm bench:profile                      1 worker, 1 publisher, 8 s of load
//   pnpm bench:profile -- --workers 2 --seconds 5
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureInfra } from '@tasks-lab/infra';
import { runMain } from '@tasks-lab/lab-kit';
import { CLIENTS, type Configuration, drain, runLoad, withWarmPipeline } from './bench-pipeline.ts';
import {
  type CpuProfile,
  flameTree,
  foldStacks,
  hottestFrames,
  renderFlameGraph,
  type SampleWindow,
} from './flame-graph.ts';
import type { PipelineRole } from './pipeline-processes.ts';

const DOCS_CHARTS = fileURLToPath(new URL('../../docs/benchmarks', import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL('../bench-results', import.meta.url));

/** The kinds of process profiled, in the order of an export's path. */
export const PROFILED_ROLES = ['api', 'publisher', 'worker', 'scanner'] as const satisfies readonly PipelineRole[];

/** One kind of process's profile, as the page reports it. */
export interface RoleProfile {
  role: PipelineRole;
  /** The SVG's file name under docs/benchmarks/. */
  chart: string;
  processes: number;
  /** Samples (about one per millisecond of CPU) over all its processes, idle left out. */
  samples: number;
  /** The frames with the most samples of their own: name -> share of the role's samples. */
  hottest: { frame: string; share: number }[];
  /** Its folded stacks ("a;b;c" -> samples), so a saved run can draw the graph again. */
  folded: [string, number][];
}

export interface ProfileResult {
  configuration: Configuration;
  seconds: number;
  accepted: number;
  roles: RoleProfile[];
}

/** A role's flame graph, drawn from its folded stacks. */
export function renderRoleFlameGraph(
  profile: RoleProfile,
  result: Pick<ProfileResult, 'configuration' | 'seconds'>,
): string {
  const c = result.configuration;
  return renderFlameGraph(
    flameTree(
      new Map(profile.folded),
      `${profile.role} (${profile.processes} process${profile.processes > 1 ? 'es' : ''})`,
    ),
    `Where the ${profile.role} spends its CPU under load`,
    `${c.workers} worker(s), ${c.publishers} publisher(s), all fast, ${CLIENTS} clients for ${result.seconds} s after a warm-up; ` +
      `${profile.samples} samples (about 1 ms of CPU each), idle left out; hover a frame for its share`,
  );
}

/** Runs the profiled pipeline and returns what each kind of process spent its CPU on (with its folded stacks). */
export async function runProfileBench(options: {
  configuration: Configuration;
  seconds: number;
  warmupSeconds: number;
  log?: (line: string) => void;
}): Promise<ProfileResult> {
  const log = options.log ?? console.log;
  const profiles = await mkdtemp(join(tmpdir(), 'tasks-lab-profiles-'));
  let window: SampleWindow | undefined;
  try {
    const profiled = new Set<string>(PROFILED_ROLES);
    const shape = { clients: CLIENTS };
    const nodeArgsFor = (role: string) =>
      profiled.has(role) ? ['--cpu-prof', `--cpu-prof-dir=${join(profiles, role)}`] : [];
    const accepted = await withWarmPipeline(
      options.configuration,
      { warmupSeconds: options.warmupSeconds, shape, nodeArgsFor },
      async ({ pool, url, launched }) => {
        // The graphs show the measured load only: V8 stamps its samples with this clock.
        const fromMicros = Number(process.hrtime.bigint() / 1000n);
        const load = await runLoad(url, options.seconds, shape, options.configuration);
        await drain(pool);
        window = { fromMicros, toMicros: Number(process.hrtime.bigint() / 1000n) };
        // A graceful stop: V8 writes the profile as the process exits (not when it is killed).
        await Promise.all(launched.map(({ proc }) => proc.stop()));
        return load.accepted;
      },
    );
    await mkdir(RESULTS_DIR, { recursive: true });
    const roles: RoleProfile[] = [];
    for (const role of PROFILED_ROLES) {
      const dir = join(profiles, role);
      const files = (await readdir(dir).catch(() => [])).filter((f) => f.endsWith('.cpuprofile'));
      if (files.length === 0) throw new Error(`no CPU profile was written for the ${role} (in ${dir})`);
      const folded = new Map<string, number>();
      // One file per thread (tsx's loader runs its own): CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile
      const pids = new Set(files.map((f) => f.split('.')[3]));
      for (const file of files)
        foldStacks(JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile, folded, window);
      const tree = flameTree(folded, role);
      await writeFile(
        join(RESULTS_DIR, `flame-${role}.folded`),
        [...folded].map(([stack, n]) => `${stack} ${n}`).join('\n'),
      );
      roles.push({
        role,
        chart: `flame-${role}.svg`,
        processes: pids.size,
        samples: tree.samples,
        hottest: hottestFrames(folded, 5),
        folded: [...folded],
      });
      log(
        `${role}: ${tree.samples} samples from ${pids.size} process(es); hottest ${roles
          .at(-1)!
          .hottest.slice(0, 3)
          .map((h) => `${h.frame} ${(h.share * 100).toFixed(1)} %`)
          .join(', ')}`,
      );
    }
    return { configuration: options.configuration, seconds: options.seconds, accepted, roles };
  } finally {
    await rm(profiles, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    // `pnpm bench:profile -- --workers 2` hands the script its own `--` first.
    args: process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--')),
    options: { workers: { type: 'string', default: '1' }, seconds: { type: 'string', default: '8' } },
  });
  const configuration = { workers: Number(values.workers), publishers: 1 };
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  const result = await runProfileBench({ configuration, seconds: Number(values.seconds), warmupSeconds: 3 });
  await mkdir(DOCS_CHARTS, { recursive: true });
  for (const role of result.roles) await writeFile(join(DOCS_CHARTS, role.chart), renderRoleFlameGraph(role, result));
  console.log(
    `\nWritten: ${result.roles.map((r) => `docs/benchmarks/${r.chart}`).join(', ')} (${result.accepted} exports profiled)`,
  );
}

runMain(import.meta.url, main);
