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
// Measured as the field measures a service:
//   warm-up     each run first loads the pipeline for WARMUP seconds and lets it drain, untimed:
//               every process compiles its hot paths and opens its connections before the clock
//               starts (processes that live a few seconds otherwise spend a tenth of their CPU
//               compiling). Only jobs submitted after the warm-up count.
//   saturation  per configuration (workers x publishers), RUNS runs of LOAD_SECONDS of closed-loop
//               load from CLIENTS clients: what the pipeline sustains. A 503 is counted, not retried.
//   open loop   the best all-fast configuration at 50 % and 80 % of the capacity it just measured:
//               requests sent at a fixed rate, whatever the answers; the latency a job sees when
//               the pipeline is not saturated, from HDR histograms (bench-latency.ts).
//   forms       the same best configuration with each of the faster forms of lessons 11 to 15
//               turned back to the course's (one at a time, then all together), run A/B in turn:
//               what each change is worth, in this run.
// Then the database says, for every job submitted after the warm-up that succeeded:
//   total     submit (created_at) -> succeeded (updated_at of the finish)
//   dispatch  submit -> its first event confirmed sent (sent_at)
//   claim     sent -> claimed (lease_until minus the lease: the start of the claim statement,
//             so a one-update claim that waited for the confirmation can read a little below 0)
//   work      claimed -> succeeded
// and the throughput: succeeded jobs over the time from the first submit to the last finish.
// Per export, over the measured window: CPU by kind of process (/proc/<pid>/stat), SQL statements
// and transactions (MariaDB's global status counters; the harness's own reads subtracted) and Redis
// commands (INFO stats: a script's own commands count, and so do the idle workers' blocking reads
// while the pipeline drains) with the script calls among them (INFO commandstats).
// "No wake-up lost": a job with more than one outbox event needed one the recovery scanner
// wrote; in a run without faults that count must be 0.
//
//   pnpm bench:pipeline                          everything above: 3 runs of 5 s per configuration
//   pnpm bench:pipeline -- --quick               one run of 3 s each (to try, not to quote)
import { readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { ensureInfra, freePort, nativeMysqlPid, nativeRedisPid } from '@tasks-lab/infra';
import {
  type LabProcess,
  launchProcess,
  median,
  type Resources,
  runMain,
  startTsProcess,
  waitFor,
  withResources,
} from '@tasks-lab/lab-kit';
import { brokerConnection } from '@tasks-lab/08-broker-worker';
import { countActiveJobs, scratchQueuePrefix } from '@tasks-lab/13-admission';
import { seedProducts } from '@tasks-lab/11-mysql-leases';
import { COURSE_TIMINGS, freshDatabase } from '@tasks-lab/16-observability';
import { latencyOf, type LatencySummary } from './bench-latency.ts';
import type { LoadReport } from './bench-load.ts';
import { PIPELINE_PROCESSES, type PipelineRole } from './pipeline-processes.ts';

const script = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const LOAD = script('./bench-load.ts');
const RESULTS_DIR = script('../bench-results');

const PRODUCTS = '1,2,3';
export const CLIENTS = 16;
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

/** The open loop's offered rates, as fractions of the capacity the saturation runs measured. */
export const OPEN_LOOP_FRACTIONS = [0.5, 0.8] as const;

/**
 * The faster forms lessons 11 to 15 made their defaults, each with the setting that turns it back
 * to the course's form. The forms pass runs the defaults, each of these alone, and all together.
 */
export const FORM_CHANGES = [
  { name: 'query stack traces on', env: { DB_QUERY_STACK_TRACES: 'on' } },
  { name: 'no early refusal', env: { ADMISSION_EARLY_REFUSAL: 'off' } },
  { name: 'finish in a transaction', env: { FINISH_FORM: 'transaction' } },
  { name: 'three-step claim', env: { CLAIM_FORM: 'three-step' } },
  { name: 'confirmation per event', env: { OUTBOX_CONFIRM_FORM: 'per-event' } },
  { name: 'no admission groups', env: { ADMISSION_GROUP_MAX: '1' } },
] as const;

export const DEFAULT_FORMS = 'the defaults';
export const COURSE_FORMS = "all the course's forms";

/** The forms pass's variants, name -> the settings it changes (formsInRound gives each round's order). */
export function formVariants(): { name: string; env: Record<string, string> }[] {
  return [
    { name: DEFAULT_FORMS, env: {} },
    ...FORM_CHANGES.map((change) => ({ name: change.name, env: { ...change.env } })),
    { name: COURSE_FORMS, env: Object.assign({}, ...FORM_CHANGES.map((change) => change.env)) },
  ];
}

/**
 * The variants in the order round `round` (1-based) runs them: in order, then reversed, then in
 * order again (ABBA). A variant's place in a round matters on this machine (the first of a round
 * ran 10-15 % below the next in every pass before this order): alternating it spreads each
 * place's cost, and a steady drift's, over every variant alike.
 */
export function formsInRound(round: number): ReturnType<typeof formVariants> {
  const variants = formVariants();
  return round % 2 === 1 ? variants : variants.reverse();
}

/** A latency distribution in milliseconds: p50, p90, p99, p99.9, max (from an HDR histogram). */
export type Percentiles = LatencySummary;

/** What one export cost in round trips, over the measured window. */
export interface RoundTrips {
  /** SQL statements the server ran (BEGIN and COMMIT included). */
  statements: number;
  /** Explicit transactions (START TRANSACTION); every other statement is its own. */
  transactions: number;
  /** Transactions rolled back (a refused admission, a lost claim). */
  rollbacks: number;
  /** Commands Redis ran, as it counts them: a BullMQ script's own commands each count (Redis's total_commands_processed). */
  redisCommands: number;
  /** Of the commands clients sent, the scripts (EVALSHA, EVAL): BullMQ does most of its work in them. */
  redisScripts: number;
}

export interface PipelineRun {
  configuration: Configuration;
  /** The forms pass only: which variant (see formVariants). */
  forms?: string;
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
  /** Per succeeded export (absent in runs saved before it was counted). */
  perExport?: RoundTrips;
  /**
   * Open loop only: submit -> succeeded from the client's side, from when each request was due
   * to the finish (the database's stamp, on the same host's clock). It includes the wait before
   * the API reads the request, which created_at (stamped by the admission's INSERT) does not.
   */
  clientTotalMs?: Percentiles;
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

/**
 * The server's counters of what its clients sent, summed over every connection since it started.
 * Rows returned: one per counter (Variable_name, Value).
 */
export const READ_STATEMENT_COUNTERS = `
  SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions', 'Com_begin', 'Com_rollback')`;

/** total_commands_processed from INFO stats' text. */
export function redisCommandsOf(infoStats: string): number {
  const match = /^total_commands_processed:(\d+)/m.exec(infoStats);
  if (!match) throw new Error('INFO stats has no total_commands_processed');
  return Number(match[1]);
}

/** The script calls (EVALSHA and EVAL) in INFO commandstats' text. */
export function redisScriptsOf(commandStats: string): number {
  let calls = 0;
  for (const match of commandStats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)) calls += Number(match[1]);
  return calls;
}

async function readCounters(pool: Pool, redis: Redis): Promise<RoundTrips> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_STATEMENT_COUNTERS);
  const value = (name: string) => Number(rows.find((row) => row.Variable_name === name)?.Value ?? Number.NaN);
  return {
    statements: value('Questions'),
    transactions: value('Com_begin'),
    rollbacks: value('Com_rollback'),
    redisCommands: redisCommandsOf(await redis.info('stats')),
    redisScripts: redisScriptsOf(await redis.info('commandstats')),
  };
}

/**
 * Per export, between two readings. `own`: what the harness itself sent in between (its drain polls
 * and the second reading's statement; the second reading's two INFO commands), taken off.
 */
export function roundTripsPerExport(
  before: RoundTrips,
  after: RoundTrips,
  exports: number,
  own: { statements: number; redisCommands: number },
): RoundTrips {
  const per = (n: number) => n / Math.max(1, exports);
  return {
    statements: per(after.statements - before.statements - own.statements),
    transactions: per(after.transactions - before.transactions),
    rollbacks: per(after.rollbacks - before.rollbacks),
    redisCommands: per(after.redisCommands - before.redisCommands - own.redisCommands),
    redisScripts: per(after.redisScripts - before.redisScripts),
  };
}

/**
 * Every succeeded job's stages, in microseconds, from the database's own clock, for the jobs
 * submitted from the measurement's start on. The first event is the submit's (the earliest
 * created). Rows returned: one per succeeded job. Parameters: [leaseMicros, leaseMicros, from].
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
  WHERE j.status = 'succeeded' AND j.created_at >= ?`;

/**
 * The first submit and the last finish of the measured jobs: the window the throughput is
 * measured over. Rows: one. Parameters: [from].
 */
export const READ_WINDOW = `
  SELECT TIMESTAMPDIFF(MICROSECOND, MIN(created_at), MAX(updated_at)) AS window_us, COUNT(*) AS succeeded
  FROM export_jobs WHERE status = 'succeeded' AND created_at >= ?`;

/** When each job succeeded, in ms since the epoch. Rows: one per succeeded job among [ids]. */
export const READ_FINISHED_AT = `
  SELECT id, UNIX_TIMESTAMP(updated_at) * 1000 AS finished_ms FROM export_jobs
  WHERE status = 'succeeded' AND id IN (?)`;

/** Submit -> succeeded from the client's clock: each job's due time against its finish. */
async function clientTotals(pool: Pool, dueAt: readonly [string, number][]): Promise<Percentiles> {
  const due = new Map(dueAt);
  const finished: number[] = [];
  for (let i = 0; i < dueAt.length; i += 1000) {
    const ids = dueAt.slice(i, i + 1000).map(([id]) => id);
    const [rows] = await pool.query<RowDataPacket[]>(READ_FINISHED_AT, [ids]);
    for (const row of rows) finished.push(Number(row.finished_ms) - due.get(String(row.id))!);
  }
  return latencyOf(finished);
}

/** The server's clock now, as text with microseconds (compared with created_at as the server's own time). */
const READ_NOW = 'SELECT CAST(NOW(6) AS CHAR) AS now';

/** A process of the pipeline with its role, as launched (the profiling run stops them gracefully). */
export interface LaunchedProcess {
  role: PipelineRole;
  proc: LabProcess;
}

/** The pipeline's processes, started and ready, in the order they started. */
async function startPipeline(
  res: Resources,
  configuration: Configuration,
  env: NodeJS.ProcessEnv,
  nodeArgsFor: (role: PipelineRole) => string[],
): Promise<{ url: string; launched: LaunchedProcess[] }> {
  const port = await freePort();
  const start = async (
    role: PipelineRole,
    more: { args?: string[]; env?: NodeJS.ProcessEnv } = {},
  ): Promise<LaunchedProcess> => {
    const { script: path, ready } = PIPELINE_PROCESSES[role];
    const proc = await launchProcess(path, {
      ready,
      resources: res,
      args: more.args,
      env: { ...env, ...more.env },
      nodeArgs: nodeArgsFor(role),
    });
    return { role, proc };
  };
  const starts = [start('api', { env: { PORT: String(port) } }), start('scanner')];
  for (let i = 0; i < configuration.publishers; i += 1) starts.push(start('publisher'));
  for (let i = 0; i < configuration.workers; i += 1) starts.push(start('worker', { args: ['fast'] }));
  if (configuration.mix === 'mixed') starts.push(start('worker', { args: ['bulk'] }));
  return { url: `http://127.0.0.1:${port}`, launched: await Promise.all(starts) };
}

/** Every process whose CPU a run counts: the pipeline's, and MariaDB and Redis when they run here. */
function measuredProcesses(launched: readonly LaunchedProcess[]): Roled[] {
  const processes: Roled[] = launched.map(({ role, proc }) => ({ role, pid: proc.pid }));
  for (const [role, pid] of [
    ['mariadb', nativeMysqlPid()],
    ['redis', nativeRedisPid()],
  ] as const)
    if (pid !== undefined) processes.push({ role, pid });
  return processes;
}

/** How a run loads the API: closed loop from a number of clients, or open loop at a rate. */
export type LoadShape = { clients: number } | { perSecond: number };

export async function runLoad(
  url: string,
  seconds: number,
  shape: LoadShape,
  configuration: Configuration,
): Promise<LoadReport> {
  const bulkEvery = configuration.mix === 'mixed' ? BULK_EVERY : 0;
  const args = ['--url', url, '--seconds', String(seconds), '--products', PRODUCTS, '--bulk-every', String(bulkEvery)];
  args.push(...('clients' in shape ? ['--clients', String(shape.clients)] : ['--rate', String(shape.perSecond)]));
  const load = startTsProcess(LOAD, { args });
  const exit = await load.exited;
  const line = /LOAD (\{.*\})/.exec(load.output());
  if (!line)
    throw new Error(
      `the load generator printed no report (exit ${JSON.stringify(exit)}): ${load.output().slice(-300)}`,
    );
  return JSON.parse(line[1]!) as LoadReport;
}

/** Waits until no job is active (or 60 s passed); returns the statements it sent to find out. */
export async function drain(pool: Pool): Promise<number> {
  let polls = 0;
  await waitFor(
    'every accepted job finished',
    async () => {
      polls += 1;
      return (await countActiveJobs(pool)) === 0;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  ).catch(() => undefined);
  return polls;
}

async function stagesSince(pool: Pool, from: string) {
  const leaseMicros = COURSE_TIMINGS.leaseMs * 1000;
  const [stages] = await pool.query<RowDataPacket[]>(READ_STAGES, [leaseMicros, leaseMicros, from]);
  const [[window]] = (await pool.query<RowDataPacket[]>(READ_WINDOW, [from])) as unknown as [[RowDataPacket]];
  const ms = (column: string) => latencyOf(stages.map((row) => Number(row[column]) / 1000));
  const succeeded = Number(window.succeeded);
  return {
    succeeded,
    exportsPerSecond: succeeded / (Number(window.window_us) / 1e6),
    totalMs: ms('total_us'),
    dispatchMs: ms('dispatch_us'),
    claimMs: ms('claim_us'),
    workMs: ms('work_us'),
    jobsWithRecoveryEvent: stages.filter((row) => Number(row.events) > 1).length,
  };
}

/**
 * A scratch BullMQ prefix and artifacts folder (dropped with `res`), and the settings every
 * process of a run gets: those, the scratch database, concurrency 2, quiet phase logs, no faults.
 */
async function scratchPipeline(res: Resources, database: string): Promise<Record<string, string>> {
  const prefix = scratchQueuePrefix(res, 'tasks-lab16-bench');
  const artifactsDir = await mkdtemp(join(tmpdir(), 'tasks-lab16-bench-'));
  res.defer(() => rm(artifactsDir, { recursive: true, force: true }));
  return {
    JOBS_DATABASE: database,
    BULLMQ_PREFIX: prefix,
    ARTIFACTS_DIR: artifactsDir,
    OUTBOX_NUDGE_CHANNEL: `${prefix}:outbox-nudge`,
    WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
    LOG_LEVEL: 'warn',
    LAB_FAULTS: '',
  };
}

/** A pipeline started, warmed up and drained: what a run measures (or profiles). */
export interface WarmPipeline {
  pool: Pool;
  url: string;
  launched: LaunchedProcess[];
  res: Resources;
}

/**
 * One run's pipeline: a scratch database (seeded), prefix and artifacts folder, every process
 * ready, `warmupSeconds` of the run's load and a drain; then `use` runs in the same scope, and
 * everything is stopped and dropped after it.
 */
export async function withWarmPipeline<T>(
  configuration: Configuration,
  options: {
    warmupSeconds: number;
    shape: LoadShape;
    env?: Record<string, string>;
    nodeArgsFor?: (role: PipelineRole) => string[];
  },
  use: (pipeline: WarmPipeline) => Promise<T>,
): Promise<T> {
  return withResources(undefined, async (res) => {
    const db = res.add(await freshDatabase('bench'), (d) => d.drop());
    await seedProducts(db.pool, BENCH_PRODUCTS);
    const env = { ...(await scratchPipeline(res, db.name)), ...options.env };
    const { url, launched } = await startPipeline(res, configuration, env, options.nodeArgsFor ?? (() => []));
    await runLoad(url, options.warmupSeconds, options.shape, configuration);
    await drain(db.pool);
    return use({ pool: db.pool, url, launched, res });
  });
}

export interface RunOptions {
  seconds: number;
  /** Untimed load before the measurement, then a drain. @defaultValue 3 */
  warmupSeconds?: number;
  /** @defaultValue { clients: 16 } */
  shape?: LoadShape;
  /** Settings every process of the run gets (the forms pass). @defaultValue none */
  env?: Record<string, string>;
  /** A name for the settings, kept with the run. */
  forms?: string;
}

/**
 * One run: a scratch database, prefix and artifacts folder, all processes, a warm-up and its
 * drain, then the measured load and its drain.
 */
export async function runPipelineOnce(configuration: Configuration, options: RunOptions): Promise<PipelineRun> {
  const shape = options.shape ?? { clients: CLIENTS };
  const warm = { warmupSeconds: options.warmupSeconds ?? 3, shape, env: options.env };
  return withWarmPipeline(configuration, warm, async ({ pool, url, launched, res }) => {
    const processes = measuredProcesses(launched);
    const redis = res.add(new Redis(brokerConnection({ lazyConnect: false })), (r) => r.quit().then(() => undefined));
    const [[now]] = (await pool.query<RowDataPacket[]>(READ_NOW)) as unknown as [[RowDataPacket]];
    const from = String(now.now);
    const cpuBefore = cpuByRole(processes);
    const countersBefore = await readCounters(pool, redis);
    const { dueAt, ...load } = await runLoad(url, options.seconds, shape, configuration);
    const polls = await drain(pool);
    const cpuAfter = cpuByRole(processes);
    const countersAfter = await readCounters(pool, redis);
    const stages = await stagesSince(pool, from);
    const loadCpuMs = load.cpuCores * options.seconds * 1000;
    return {
      configuration,
      ...(options.forms ? { forms: options.forms } : {}),
      load,
      notFinished: await countActiveJobs(pool),
      ...stages,
      cpuMsPerExport: Object.fromEntries(
        [...cpuAfter.entries(), ['load', loadCpuMs] as const].map(([role, ms]) => [
          role,
          // The load generator's CPU is its own report (cpuBefore has no such role).
          (ms - (cpuBefore.get(role) ?? 0)) / Math.max(1, stages.succeeded),
        ]),
      ),
      perExport: roundTripsPerExport(countersBefore, countersAfter, stages.succeeded, {
        statements: polls + 1,
        redisCommands: 2,
      }),
      ...(dueAt ? { clientTotalMs: await clientTotals(pool, dueAt) } : {}),
    };
  });
}

const fmt = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

export function describeRun(run: PipelineRun): string {
  const c = run.configuration;
  const offered = run.load.offeredPerSecond === undefined ? '' : `offered ${fmt(run.load.offeredPerSecond)}/s: `;
  const trips = run.perExport
    ? `; per export ${fmt(run.perExport.statements, 1)} statements, ${fmt(run.perExport.transactions, 1)} transactions, ${fmt(run.perExport.redisCommands, 1)} Redis commands (${fmt(run.perExport.redisScripts, 1)} scripts)`
    : '';
  const client = run.clientTotalMs ? `, from the client's send p99 ${fmt(run.clientTotalMs.p99)} ms` : '';
  return (
    `workers ${c.workers}${c.mix === 'mixed' ? ` + 1 bulk (1 in ${BULK_EVERY} bulk)` : ''}, publishers ${c.publishers}${run.forms ? ` (${run.forms})` : ''}: ${offered}${fmt(run.exportsPerSecond, 1)} exports/s (${run.succeeded} succeeded, ${run.notFinished} not finished; ` +
    `202 ${run.load.accepted}, 503 ${run.load.refused}, errors ${run.load.failed}); total p50 ${fmt(run.totalMs.p50)} ms, p99 ${fmt(run.totalMs.p99)} ms, p99.9 ${fmt(run.totalMs.p999)} ms${client} ` +
    `(dispatch p50 ${fmt(run.dispatchMs.p50)}, claim p50 ${fmt(run.claimMs.p50)}, work p50 ${fmt(run.workMs.p50)}); ` +
    `lost wake-ups ${run.jobsWithRecoveryEvent}; load generator ${fmt(run.load.cpuCores * 100)} % of a core; ` +
    `CPU ms per export: ${Object.entries(run.cpuMsPerExport)
      .map(([role, ms]) => `${role} ${ms.toFixed(1)}`)
      .join(', ')}${trips}`
  );
}

/** The fastest all-fast configuration by its median rate (the open loop and the forms run on it). */
export function bestConfiguration(runs: readonly PipelineRun[]): {
  configuration: Configuration;
  exportsPerSecond: number;
} {
  let best: { configuration: Configuration; exportsPerSecond: number } | undefined;
  for (const configuration of CONFIGURATIONS) {
    if ((configuration.mix ?? 'fast') !== 'fast') continue;
    const rate = median(runs.filter((r) => r.configuration === configuration).map((r) => r.exportsPerSecond));
    if (Number.isFinite(rate) && (!best || rate > best.exportsPerSecond))
      best = { configuration, exportsPerSecond: rate };
  }
  if (!best) throw new Error('no all-fast configuration measured a rate');
  return best;
}

export interface PipelineBench {
  /** Closed loop, every configuration. */
  saturation: PipelineRun[];
  /** Open loop at OPEN_LOOP_FRACTIONS of the best configuration's capacity. */
  openLoop: PipelineRun[];
  /** The forms pass on the best configuration (see formVariants). */
  forms: PipelineRun[];
}

/** Everything: saturation, then the open loop and the forms on the best configuration; one line per run. */
export async function runPipelineBench(options: {
  runs: number;
  seconds: number;
  warmupSeconds: number;
  log?: (line: string) => void;
}): Promise<PipelineBench> {
  const log = options.log ?? console.log;
  const base = { seconds: options.seconds, warmupSeconds: options.warmupSeconds };
  const saturation: PipelineRun[] = [];
  for (const configuration of CONFIGURATIONS) {
    for (let i = 1; i <= options.runs; i += 1) {
      const run = await runPipelineOnce(configuration, base);
      saturation.push(run);
      log(
        `[${configuration.workers}w/${configuration.publishers}p${configuration.mix === 'mixed' ? ' mixed' : ''} run ${i}/${options.runs}] ${describeRun(run)}`,
      );
    }
  }
  const best = bestConfiguration(saturation);
  const openLoop: PipelineRun[] = [];
  for (const fraction of OPEN_LOOP_FRACTIONS) {
    const perSecond = Math.round(best.exportsPerSecond * fraction);
    for (let i = 1; i <= options.runs; i += 1) {
      const run = await runPipelineOnce(best.configuration, {
        ...base,
        seconds: options.seconds * 2,
        shape: { perSecond },
      });
      openLoop.push(run);
      log(`[open loop ${Math.round(fraction * 100)} % run ${i}/${options.runs}] ${describeRun(run)}`);
    }
  }
  const forms: PipelineRun[] = [];
  const rounds = Math.max(1, options.runs - 1);
  for (let i = 1; i <= rounds; i += 1)
    for (const variant of formsInRound(i)) {
      const run = await runPipelineOnce(best.configuration, { ...base, env: variant.env, forms: variant.name });
      forms.push(run);
      log(`[forms round ${i}/${rounds}] ${describeRun(run)}`);
    }
  return { saturation, openLoop, forms };
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const runs = quick ? 1 : 3;
  const seconds = quick ? 3 : 5;
  const warmupSeconds = quick ? 2 : 3;
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  console.log(
    `Pipeline benchmark: ${CONFIGURATIONS.length} configurations x ${runs} run(s) of ${seconds} s after ${warmupSeconds} s of warm-up, ${CLIENTS} clients, products [${PRODUCTS}], worker concurrency ${WORKER_CONCURRENCY}; then the open loop and the forms on the best`,
  );
  console.log(
    `machine: ${cpus().length} x ${cpus()[0]?.model ?? '?'}, Node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const bench = await runPipelineBench({ runs, seconds, warmupSeconds });
  console.log('\nMedians:');
  for (const configuration of CONFIGURATIONS) {
    const mine = bench.saturation.filter((r) => r.configuration === configuration);
    console.log(
      `  workers ${configuration.workers}${configuration.mix === 'mixed' ? ' + 1 bulk (mixed)' : ''}, publishers ${configuration.publishers}: ${fmt(median(mine.map((r) => r.exportsPerSecond)), 1)} exports/s, ` +
        `total p50 ${fmt(median(mine.map((r) => r.totalMs.p50)))} ms, p99 ${fmt(median(mine.map((r) => r.totalMs.p99)))} ms, lost wake-ups ${mine.reduce((n, r) => n + r.jobsWithRecoveryEvent, 0)}`,
    );
  }
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `pipeline-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify({ startedAt: new Date().toISOString(), ...bench }, null, 2)}\n`);
  console.log(`\nEvery run: ${file}`);
}

runMain(import.meta.url, main);
