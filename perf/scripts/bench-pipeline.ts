// `pnpm bench:pipeline` (from the root): the durable pipeline of lessons 11 to 16, end to end,
// measured. Not a test: a measurement, printed and written to bench-results/ (git-ignored).
//
//   load generator (its own process) --HTTP--> API (lab 16's server: the admission gate, the job
//   and its outbox event in one transaction) --> publisher(s) --> BullMQ exports.fast -->
//   worker process(es) (claim, artifact in chunks, finish) ; plus the recovery scanner
//
// Every part is a real process on the lab's own Redis and MariaDB, with the course's settings
// (admission limit 100, lease 30 s, scan every 5 s, unclaimed after 60 s) and worker concurrency
// 2, on a scratch database and BullMQ prefix made for each configuration and dropped after it.
// Two mixes. All fast: every export is products [1, 2, 3] (small jobs only reach the fast worker).
// Mixed: every BULK_EVERY-th request asks for products 1 to 40 instead (bulk: routed to
// exports.bulk and written in 4 chunks), and one bulk worker process runs beside the fast ones.
// Phase logs are at LOG_LEVEL=warn: the figures are the pipeline's, not the log pipe's.
//
// Per configuration (workers x publishers), RUNS runs of LOAD_SECONDS of closed-loop load from
// CLIENTS clients; then the pipeline drains and the database says, for every job that succeeded:
//   total     submit (created_at) -> succeeded (updated_at of the finish)
//   dispatch  submit -> its first event confirmed sent (sent_at)
//   claim     sent -> claimed (lease_until minus the lease: the start of the claim statement,
//             so a one-update claim that waited for the confirmation can read a little below 0)
//   work      claimed -> succeeded
// and the throughput: succeeded jobs over the time from the first submit to the last finish.
// "No wake-up lost": a job with more than one outbox event needed one the recovery scanner
// wrote; in a run without faults that count must be 0.
//
//   pnpm bench:pipeline                          workers 1, 2, 4 with 1 publisher; 4 workers with 2
//   pnpm bench:pipeline -- --quick               one run of 3 s per configuration
import { readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { ensureInfra, freePort, nativeMysqlPid, nativeRedisPid } from '@tasks-lab/infra';
import {
  type LabProcess,
  launchProcess,
  median,
  percentile,
  type Resources,
  runMain,
  startTsProcess,
  waitFor,
  withResources,
} from '@tasks-lab/lab-kit';
import { countActiveJobs, scratchQueuePrefix } from '@tasks-lab/13-admission';
import { seedProducts } from '@tasks-lab/11-mysql-leases';
import { COURSE_TIMINGS, freshDatabase } from '@tasks-lab/16-observability';
import type { LoadReport } from './bench-load.ts';
import { PIPELINE_PROCESSES, type PipelineRole } from './pipeline-processes.ts';

const script = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const LOAD = script('./bench-load.ts');
const RESULTS_DIR = script('../bench-results');

const PRODUCTS = '1,2,3';
const CLIENTS = 16;
const WORKER_CONCURRENCY = 2;

export interface Configuration {
  /** Fast worker processes. */
  workers: number;
  publishers: number;
  /** 'mixed': one request in BULK_EVERY is a bulk export, and one bulk worker process runs too. @defaultValue 'fast' */
  mix?: 'fast' | 'mixed';
}

/** In the mixed runs, one request in this many is a bulk export (40 products). */
export const BULK_EVERY = 10;
/** Enough products for a bulk export of 40 (the migration seeds fewer). */
const BENCH_PRODUCTS = 45;

export const CONFIGURATIONS: readonly Configuration[] = [
  { workers: 1, publishers: 1 },
  { workers: 2, publishers: 1 },
  { workers: 4, publishers: 1 },
  { workers: 4, publishers: 2 },
  { workers: 2, publishers: 1, mix: 'mixed' },
];

export interface Percentiles {
  p50: number;
  p99: number;
}

export interface PipelineRun {
  configuration: Configuration;
  load: LoadReport;
  succeeded: number;
  notFinished: number;
  exportsPerSecond: number;
  /** Milliseconds. */
  totalMs: Percentiles;
  dispatchMs: Percentiles;
  claimMs: Percentiles;
  workMs: Percentiles;
  /** Jobs that needed an event the recovery scanner wrote (a lost wake-up, without faults). */
  jobsWithRecoveryEvent: number;
  /**
   * CPU milliseconds each kind of process spent per succeeded export, from the load's start to
   * the drain's end (/proc/<pid>/stat; Linux only, empty elsewhere): where the two cores went.
   */
  cpuMsPerExport: Record<string, number>;
}

/** A process of the run and its role (api, publisher, worker, scanner, mariadb, redis, load). */
interface Roled {
  role: string;
  pid: number;
}

/** utime + stime of a process, in milliseconds; undefined when /proc cannot tell. */
export function cpuMsOf(pid: number): number | undefined {
  try {
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these (100 on every common kernel). */
const CLOCK_TICKS = 100;

function cpuByRole(processes: readonly Roled[]): Map<string, number> {
  const byRole = new Map<string, number>();
  for (const { role, pid } of processes) byRole.set(role, (byRole.get(role) ?? 0) + (cpuMsOf(pid) ?? 0));
  return byRole;
}

const percentiles = (values: number[]): Percentiles => {
  const sorted = [...values].sort((a, b) => a - b);
  // NaN for no jobs, as the medians: the report's tables print it as "–".
  return { p50: percentile(sorted, 0.5) ?? Number.NaN, p99: percentile(sorted, 0.99) ?? Number.NaN };
};

/**
 * Every succeeded job's stages, in microseconds, from the database's own clock. The first event
 * is the submit's (the earliest created). Rows returned: one per succeeded job. Parameters: [leaseMicros].
 */
export const READ_STAGES = `
  SELECT TIMESTAMPDIFF(MICROSECOND, j.created_at, j.updated_at) AS total_us,
         TIMESTAMPDIFF(MICROSECOND, j.created_at, first.sent_at) AS dispatch_us,
         TIMESTAMPDIFF(MICROSECOND, first.sent_at, TIMESTAMPADD(MICROSECOND, -?, j.lease_until)) AS claim_us,
         TIMESTAMPDIFF(MICROSECOND, TIMESTAMPADD(MICROSECOND, -?, j.lease_until), j.updated_at) AS work_us,
         (SELECT COUNT(*) FROM export_outbox AS o WHERE o.job_id = j.id) AS events
  FROM export_jobs AS j
  JOIN export_outbox AS first ON first.id = (
    SELECT o.id FROM export_outbox AS o WHERE o.job_id = j.id ORDER BY o.created_at, o.id LIMIT 1)
  WHERE j.status = 'succeeded'`;

/** The first submit and the last finish: the window the throughput is measured over. Rows: one. */
export const READ_WINDOW = `
  SELECT TIMESTAMPDIFF(MICROSECOND, MIN(created_at), MAX(updated_at)) AS window_us, COUNT(*) AS succeeded
  FROM export_jobs WHERE status = 'succeeded'`;

async function startPipeline(
  res: Resources,
  configuration: Configuration,
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; processes: Roled[] }> {
  const port = await freePort();
  const start = async (role: PipelineRole, more: { args?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<Roled> => {
    const { script: path, ready } = PIPELINE_PROCESSES[role];
    const proc: LabProcess = await launchProcess(path, {
      ready,
      resources: res,
      args: more.args,
      env: { ...env, ...more.env },
    });
    return { role, pid: proc.pid };
  };
  const starts: Promise<Roled>[] = [start('api', { env: { PORT: String(port) } }), start('scanner')];
  for (let i = 0; i < configuration.publishers; i += 1) starts.push(start('publisher'));
  for (let i = 0; i < configuration.workers; i += 1) starts.push(start('worker', { args: ['fast'] }));
  if (configuration.mix === 'mixed') starts.push(start('worker', { args: ['bulk'] }));
  const processes = await Promise.all(starts);
  for (const [role, pid] of [
    ['mariadb', nativeMysqlPid()],
    ['redis', nativeRedisPid()],
  ] as const)
    if (pid !== undefined) processes.push({ role, pid });
  return { url: `http://127.0.0.1:${port}`, processes };
}

async function runLoad(url: string, seconds: number, configuration: Configuration): Promise<LoadReport> {
  const bulkEvery = configuration.mix === 'mixed' ? BULK_EVERY : 0;
  const load = startTsProcess(LOAD, { args: [url, String(CLIENTS), String(seconds), PRODUCTS, String(bulkEvery)] });
  const exit = await load.exited;
  const line = /LOAD (\{.*\})/.exec(load.output());
  if (!line)
    throw new Error(
      `the load generator printed no report (exit ${JSON.stringify(exit)}): ${load.output().slice(-300)}`,
    );
  return JSON.parse(line[1]!) as LoadReport;
}

async function measure(
  pool: Pool,
  configuration: Configuration,
  load: LoadReport,
  cpuBefore: Map<string, number>,
  processes: readonly Roled[],
  loadCpuMs: number,
): Promise<PipelineRun> {
  // Drain: every accepted job finishes (or the bound passes, and the run says how many did not).
  const open = () => countActiveJobs(pool);
  await waitFor('every accepted job finished', async () => (await open()) === 0, {
    timeoutMs: 60_000,
    intervalMs: 100,
  }).catch(() => undefined);
  const cpuAfter = cpuByRole(processes);
  const leaseMicros = COURSE_TIMINGS.leaseMs * 1000;
  const [stages] = await pool.query<RowDataPacket[]>(READ_STAGES, [leaseMicros, leaseMicros]);
  const [[window]] = (await pool.query<RowDataPacket[]>(READ_WINDOW)) as unknown as [[RowDataPacket]];
  const ms = (column: string) => stages.map((row) => Number(row[column]) / 1000);
  const succeeded = Number(window.succeeded);
  return {
    configuration,
    load,
    succeeded,
    notFinished: await open(),
    exportsPerSecond: succeeded / (Number(window.window_us) / 1e6),
    totalMs: percentiles(ms('total_us')),
    dispatchMs: percentiles(ms('dispatch_us')),
    claimMs: percentiles(ms('claim_us')),
    workMs: percentiles(ms('work_us')),
    jobsWithRecoveryEvent: stages.filter((row) => Number(row.events) > 1).length,
    cpuMsPerExport: Object.fromEntries(
      [...cpuAfter.entries(), ['load', loadCpuMs] as const].map(([role, ms]) => [
        role,
        (ms - (cpuBefore.get(role) ?? 0)) / Math.max(1, succeeded),
      ]),
    ),
  };
}

/** One configuration, one run: a scratch database, prefix and artifacts folder, all processes, the load, the drain. */
export async function runPipelineOnce(configuration: Configuration, seconds: number): Promise<PipelineRun> {
  return withResources(undefined, async (res) => {
    const db = res.add(await freshDatabase('bench'), (d) => d.drop());
    await seedProducts(db.pool, BENCH_PRODUCTS);
    const prefix = scratchQueuePrefix(res, 'tasks-lab16-bench');
    const artifactsDir = await mkdtemp(join(tmpdir(), 'tasks-lab16-bench-'));
    res.defer(() => rm(artifactsDir, { recursive: true, force: true }));
    const env = {
      JOBS_DATABASE: db.name,
      BULLMQ_PREFIX: prefix,
      ARTIFACTS_DIR: artifactsDir,
      OUTBOX_NUDGE_CHANNEL: `${prefix}:outbox-nudge`,
      WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
      LOG_LEVEL: 'warn',
      LAB_FAULTS: '',
    };
    const { url, processes } = await startPipeline(res, configuration, env);
    const cpuBefore = cpuByRole(processes);
    const load = await runLoad(url, seconds, configuration);
    return measure(db.pool, configuration, load, cpuBefore, processes, load.cpuCores * seconds * 1000);
  });
}

const fmt = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

export function describeRun(run: PipelineRun): string {
  const c = run.configuration;
  return (
    `workers ${c.workers}${c.mix === 'mixed' ? ` + 1 bulk (1 in ${BULK_EVERY} bulk)` : ''}, publishers ${c.publishers}: ${fmt(run.exportsPerSecond, 1)} exports/s (${run.succeeded} succeeded, ${run.notFinished} not finished; ` +
    `202 ${run.load.accepted}, 503 ${run.load.refused}, errors ${run.load.failed}); total p50 ${fmt(run.totalMs.p50)} ms, p99 ${fmt(run.totalMs.p99)} ms ` +
    `(dispatch p50 ${fmt(run.dispatchMs.p50)}, claim p50 ${fmt(run.claimMs.p50)}, work p50 ${fmt(run.workMs.p50)}); ` +
    `lost wake-ups ${run.jobsWithRecoveryEvent}; load generator ${fmt(run.load.cpuCores * 100)} % of a core; ` +
    `CPU ms per export: ${Object.entries(run.cpuMsPerExport)
      .map(([role, ms]) => `${role} ${ms.toFixed(1)}`)
      .join(', ')}`
  );
}

/** Every configuration, `runs` runs of `seconds` each, one line per run as it ends. */
export async function runPipelineBench(options: {
  runs: number;
  seconds: number;
  log?: (line: string) => void;
}): Promise<PipelineRun[]> {
  const log = options.log ?? console.log;
  const all: PipelineRun[] = [];
  for (const configuration of CONFIGURATIONS) {
    for (let i = 1; i <= options.runs; i += 1) {
      const run = await runPipelineOnce(configuration, options.seconds);
      all.push(run);
      log(
        `[${configuration.workers}w/${configuration.publishers}p${configuration.mix === 'mixed' ? ' mixed' : ''} run ${i}/${options.runs}] ${describeRun(run)}`,
      );
    }
  }
  return all;
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const runs = quick ? 1 : 3;
  const seconds = quick ? 3 : 5;
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  console.log(
    `Pipeline benchmark: ${CONFIGURATIONS.length} configurations x ${runs} run(s) of ${seconds} s, ${CLIENTS} clients, products [${PRODUCTS}], worker concurrency ${WORKER_CONCURRENCY}`,
  );
  console.log(
    `machine: ${cpus().length} x ${cpus()[0]?.model ?? '?'}, Node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const all = await runPipelineBench({ runs, seconds });
  console.log('\nMedians:');
  for (const configuration of CONFIGURATIONS) {
    const mine = all.filter((r) => r.configuration === configuration);
    console.log(
      `  workers ${configuration.workers}${configuration.mix === 'mixed' ? ' + 1 bulk (mixed)' : ''}, publishers ${configuration.publishers}: ${fmt(median(mine.map((r) => r.exportsPerSecond)), 1)} exports/s, ` +
        `total p50 ${fmt(median(mine.map((r) => r.totalMs.p50)))} ms, p99 ${fmt(median(mine.map((r) => r.totalMs.p99)))} ms, lost wake-ups ${mine.reduce((n, r) => n + r.jobsWithRecoveryEvent, 0)}`,
    );
  }
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `pipeline-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify({ startedAt: new Date().toISOString(), runs: all }, null, 2)}\n`);
  console.log(`\nEvery run: ${file}`);
}

runMain(import.meta.url, main);
