// The soak's experiment: the whole durable pipeline of lessons 11 to 16 as real processes, on a
// PRIVATE Redis and a PRIVATE database (started for this run, deleted after it: the fault driver
// crashes and freezes them, which must not disturb any other lab), fed jobs over HTTP by clients
// that retry with their Idempotency-Key, while a seeded fault driver kills, pauses, freezes and
// restarts its parts. Then everything is healed, the run waits for the jobs to settle, and the
// evidence is gathered: what the clients saw, every phase line every process printed, the rows,
// and every artifact compared by value. It decides nothing: scripts/soak-checks.ts judges.
//
//   clients (this process) --HTTP--> api --> outbox --> publisher x2 --> BullMQ (private Redis)
//     --> fast worker x2, bulk worker x1 (real processes, concurrency 2) --> artifacts + finish
//   recovery scanner: expired leases, lost dispatches, deadlines      (private MariaDB/MySQL)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import {
  countLeakedSecrets,
  freePort,
  loadCredentials,
  prepareCredentials,
  startPrivateMysql,
  startPrivateRedis,
  type PrivateMysql,
  type PrivateRedis,
} from '@tasks-lab/infra';
import { errorMessage, launchProcess, sleep, withResources, type LabProcess, type Resources } from '@tasks-lab/lab-kit';
import { seedProducts } from '@tasks-lab/11-mysql-leases';
import { countActiveJobs } from '@tasks-lab/13-admission';
import {
  freshDatabase,
  OBSERVABILITY_OPTIONS,
  type ObservabilityOptionValues,
  parsePhaseLines,
  PUBLISHER_PROCESS_OPTIONS,
  readObservabilityOptions,
  SERVER_PROCESS_OPTIONS,
  SHORT_TIMINGS,
  verifyTerminal,
  WORKER_PROCESS_OPTIONS,
} from '@tasks-lab/16-observability';
import { PIPELINE_PROCESSES, type PipelineRole } from './pipeline-processes.ts';
import {
  describeFault,
  FAULT_KINDS,
  SHORT_DEADLINE_MS,
  SOAK_PRODUCTS,
  submissionKey,
  type FaultKind,
  type PlannedFault,
  type PlannedSubmission,
  type SoakPlan,
  type SoakProfile,
} from './soak-plan.ts';

/** A client gives a submission up after this long without a 202 (the API is down far shorter). */
const GIVE_UP_MS = 90_000;
/** No answer within this long counts as no answer (a frozen database holds a request). */
const REQUEST_TIMEOUT_MS = 8000;
/** Added to the deadline and a scan interval: the settle bound (a last export after the quiet period). */
const SETTLE_MARGIN_MS = 10_000;

// ---- the evidence ----------------------------------------------------------------------

/** What one client saw for one planned submission. */
export interface SubmissionSeen {
  index: number;
  key: string;
  /** Requests sent (1 unless a retry was needed). */
  requests: number;
  /** Requests that got no answer at all (connection refused or reset, or no answer in time). */
  noAnswer: number;
  /** HTTP statuses seen, with how often: { "202": 1, "503": 2 }. */
  statuses: Record<string, number>;
  /** The job id of the 202; undefined when the client gave up. */
  jobId?: string;
  gaveUp?: string;
  /** The cancel the plan asked for: every answer it got, with how often ({ "503": 1, "202": 1 }; 'no-answer'). */
  cancelAnswers?: Record<string, number>;
}

export interface FaultSeen extends PlannedFault {
  startedAtMs?: number;
  healedAtMs?: number;
  error?: string;
}

/** A process that exited although no fault killed it (the supervisor started it again). */
export interface UnexpectedExit {
  component: string;
  atMs: number;
  exit: string;
  lastLines: string;
}

export interface JobSeen {
  id: string;
  status: string;
  attempts: number;
  idempotencyKey: string | null;
  errorCode: string | null;
  events: number;
  deadLetters: number;
  /** The terminal-state check's verdict (artifact compared with the snapshot by value). */
  verdict: string;
  problems: string[];
}

export interface SoakEvidence {
  seed: number;
  profile: string;
  timings: Pick<
    ObservabilityOptionValues,
    'leaseMs' | 'recoveryScanMs' | 'unclaimedThresholdMs' | 'deadlineMs' | 'maxAttempts' | 'admissionLimit'
  >;
  submissions: SubmissionSeen[];
  faults: FaultSeen[];
  unexpectedExits: UnexpectedExit[];
  jobs: JobSeen[];
  /** Per job id: how many `published` phase lines said published true (a successful finish). */
  successLines: Record<string, number>;
  /** Every `accepted` line: what the gate read under its lock, and groupSize when the admission shared its transaction (lesson 13's groups). */
  admissions: { jobId: string; activeBefore: number; limit: number; groupSize?: number }[];
  /** The most queued + running jobs a 250 ms sampler saw in the table. */
  maxActiveSampled: number;
  /** quietMs: the least the run waits after the faults (the deadline plus a scan); boundMs: the most. */
  settle: { quietMs: number; boundMs: number; waitedMs: number; openAfter: number };
  /** Generated passwords found in anything the processes printed. */
  leakedSecrets: number;
  loadMs: number;
  totalMs: number;
  /** Every process's output, for the report of a failed run (not judged). */
  outputs: Record<string, string>;
}

// ---- the processes -----------------------------------------------------------------------

/**
 * One part of the pipeline as a real process, started again whenever it exits: by a fault (the
 * driver starts it after the fault's hold) or on its own (the supervisor starts it again after
 * half a second and records the exit, as systemd would).
 */
class Component {
  private proc: LabProcess | undefined;
  private readonly outputs: string[] = [];
  private expectingExit = false;
  private stopping = false;

  constructor(
    readonly name: string,
    private readonly start: () => Promise<LabProcess>,
    private readonly onUnexpectedExit: (exit: Omit<UnexpectedExit, 'atMs'>) => void,
  ) {}

  /** Starts it, trying again while its dependencies are down (a database restarting). */
  async launch(deadlineMs = 60_000): Promise<void> {
    const until = Date.now() + deadlineMs;
    for (;;) {
      if (this.stopping) return;
      try {
        const proc = await this.start();
        this.proc = proc;
        void proc.exited.then((exit) => {
          this.outputs.push(proc.output());
          if (this.expectingExit || this.stopping) return;
          const lastLines = proc.output().trimEnd().split('\n').slice(-3).join(' | ').slice(0, 400);
          this.onUnexpectedExit({ component: this.name, exit: exit.signal ?? `code ${exit.code}`, lastLines });
          setTimeout(() => void this.launch().catch(() => undefined), 500);
        });
        return;
      } catch (err) {
        if (this.stopping || Date.now() > until)
          throw new Error(`${this.name} did not start: ${errorMessage(err).slice(0, 300)}`);
        await sleep(500);
      }
    }
  }

  /** SIGKILL: no clean-up runs. */
  async kill(): Promise<void> {
    this.expectingExit = true;
    try {
      await this.proc?.kill('SIGKILL');
    } finally {
      this.expectingExit = false;
    }
  }

  pause(): void {
    if (this.proc) process.kill(this.proc.pid, 'SIGSTOP');
  }

  resume(): void {
    if (this.proc) process.kill(this.proc.pid, 'SIGCONT');
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const proc = this.proc;
    if (!proc) return;
    try {
      process.kill(proc.pid, 'SIGCONT');
    } catch {
      /* already gone */
    }
    await proc.stop(5000);
    await sleep(0); // let the exit handler above record the output
  }

  /** Everything every incarnation printed (call after stop). */
  output(): string {
    return this.outputs.join('\n');
  }
}

interface Pipeline {
  api: Component;
  apiUrl: string;
  /** A second API on the same database whose jobs get SHORT_DEADLINE_MS (never a fault's target). */
  shortDeadlineApiUrl: string;
  publishers: Component[];
  workers: Component[];
  scanner: Component;
  all: Component[];
}

async function startPipeline(
  res: Resources,
  env: NodeJS.ProcessEnv,
  plan: SoakPlan,
  onExit: (exit: Omit<UnexpectedExit, 'atMs'>) => void,
): Promise<Pipeline> {
  const port = await freePort();
  const shortDeadlinePort = await freePort();
  const component = (name: string, role: PipelineRole, extra: { args?: string[]; env?: NodeJS.ProcessEnv } = {}) => {
    const { script, ready } = PIPELINE_PROCESSES[role];
    return new Component(
      name,
      () =>
        launchProcess(script, {
          ready,
          resources: res,
          readyTimeoutMs: 30_000,
          args: extra.args,
          env: { ...env, ...extra.env },
        }),
      onExit,
    );
  };
  const { profile } = plan;
  const api = component('api', 'api', { env: { PORT: String(port) } });
  const shortDeadlineApi = component('api (short deadline)', 'api', {
    env: { PORT: String(shortDeadlinePort), EXPORT_DEADLINE_MS: String(SHORT_DEADLINE_MS) },
  });
  const scanner = component('scanner', 'scanner');
  const publishers = Array.from({ length: profile.publishers }, (_, i) => component(`publisher ${i}`, 'publisher'));
  const workers = [
    ...Array.from({ length: profile.fastWorkers }, (_, i) =>
      component(`worker ${i} (fast)`, 'worker', { args: ['fast'] }),
    ),
    ...Array.from({ length: profile.bulkWorkers }, (_, i) =>
      component(`worker ${profile.fastWorkers + i} (bulk)`, 'worker', { args: ['bulk'] }),
    ),
  ];
  const all = [api, shortDeadlineApi, scanner, ...publishers, ...workers];
  res.defer(() => Promise.all(all.map((c) => c.stop())));
  await Promise.all(all.map((c) => c.launch()));
  return {
    api,
    apiUrl: `http://127.0.0.1:${port}`,
    shortDeadlineApiUrl: `http://127.0.0.1:${shortDeadlinePort}`,
    publishers,
    workers,
    scanner,
    all,
  };
}

// ---- the clients -------------------------------------------------------------------------

async function post(
  url: string,
  body: unknown,
  key?: string,
): Promise<{ status: number; body: Record<string, unknown> } | 'no-answer'> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      /* a non-JSON answer: its status says enough */
    }
    return { status: response.status, body: parsed };
  } catch {
    return 'no-answer';
  }
}

/** One planned submission, retried with the same key until a 202 (or GIVE_UP_MS). */
async function submitOne(
  apiUrl: string,
  seed: number,
  planned: PlannedSubmission,
  seen: SubmissionSeen,
): Promise<void> {
  const started = Date.now();
  while (seen.jobId === undefined) {
    if (Date.now() - started > GIVE_UP_MS) {
      seen.gaveUp = `no 202 in ${GIVE_UP_MS / 1000} s`;
      return;
    }
    seen.requests += 1;
    const answer = await post(
      `${apiUrl}/exports`,
      { product_ids: planned.productIds },
      submissionKey(seed, planned.index),
    );
    if (answer === 'no-answer') {
      seen.noAnswer += 1;
      await sleep(200);
      continue;
    }
    seen.statuses[answer.status] = (seen.statuses[answer.status] ?? 0) + 1;
    if (answer.status === 202 && typeof answer.body.id === 'string') {
      seen.jobId = answer.body.id;
    } else if (answer.status === 503 || answer.status === 429 || answer.status >= 500) {
      // Full, or a part is down: come back (Retry-After is 1 s here; a 500 is judged, and retried).
      await sleep(answer.status === 503 ? 1000 : 300);
    } else {
      seen.gaveUp = `answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 120)}`;
      return;
    }
  }
  if (planned.cancelAfterMs === undefined) return;
  await sleep(planned.cancelAfterMs);
  const answers: Record<string, number> = (seen.cancelAnswers = {});
  for (let tries = 0; tries < 20; tries += 1) {
    const answer = await post(`${apiUrl}/exports/${seen.jobId}/cancel`, {});
    const status = answer === 'no-answer' ? 'no-answer' : String(answer.status);
    answers[status] = (answers[status] ?? 0) + 1;
    if (answer !== 'no-answer' && answer.status < 500) return;
    await sleep(500);
  }
}

/** `clients` loops take the submissions in order, each at its planned time (or when a client is free). */
async function runClients(
  pipeline: Pipeline,
  plan: SoakPlan,
  startedAt: number,
  seen: SubmissionSeen[],
): Promise<void> {
  let next = 0;
  const client = async () => {
    for (;;) {
      const index = next++;
      const planned = plan.submissions[index];
      if (!planned) return;
      const wait = startedAt + planned.atMs - Date.now();
      if (wait > 0) await sleep(wait);
      await submitOne(
        planned.shortDeadline ? pipeline.shortDeadlineApiUrl : pipeline.apiUrl,
        plan.seed,
        planned,
        seen[index]!,
      );
    }
  };
  await Promise.all(Array.from({ length: plan.profile.clients }, client));
}

// ---- the fault driver --------------------------------------------------------------------

interface Targets {
  pipeline: Pipeline;
  redis: PrivateRedis;
  mysql: PrivateMysql;
}

async function applyFault(fault: PlannedFault, t: Targets): Promise<void> {
  const { pipeline } = t;
  const restartAfterHold = async (c: Component) => {
    await c.kill();
    await sleep(fault.holdMs);
    await c.launch();
  };
  const kinds: Record<FaultKind, () => Promise<void>> = {
    'kill-worker': () => restartAfterHold(pipeline.workers[fault.target]!),
    'pause-worker': async () => {
      const worker = pipeline.workers[fault.target]!;
      worker.pause();
      await sleep(fault.holdMs);
      worker.resume();
    },
    'kill-publisher': () => restartAfterHold(pipeline.publishers[fault.target]!),
    'kill-api': () => restartAfterHold(pipeline.api),
    'kill-scanner': () => restartAfterHold(pipeline.scanner),
    'freeze-broker': async () => {
      t.redis.pause();
      await sleep(fault.holdMs);
      t.redis.resume();
    },
    'stop-broker': async () => {
      await t.redis.crash();
      await sleep(fault.holdMs);
      await t.redis.restart();
    },
    'restart-database': async () => {
      await t.mysql.crash();
      await sleep(fault.holdMs);
      await t.mysql.restart();
    },
  };
  await kinds[fault.kind]();
}

/** Every fault at its planned time; faults on one target wait for each other, others overlap. */
async function runFaults(
  plan: SoakPlan,
  t: Targets,
  startedAt: number,
  seen: FaultSeen[],
  log: (line: string) => void,
): Promise<void> {
  const chains = new Map<string, Promise<void>>();
  const targetOf = (f: PlannedFault) =>
    f.kind.includes('broker') ? 'broker' : f.kind.includes('worker') ? `worker ${f.target}` : `${f.kind} ${f.target}`;
  await Promise.all(
    plan.faults.map(async (fault, i) => {
      const wait = startedAt + fault.atMs - Date.now();
      if (wait > 0) await sleep(wait);
      const key = targetOf(fault);
      const previous = chains.get(key) ?? Promise.resolve();
      const record = seen[i]!;
      const run = previous.then(async () => {
        record.startedAtMs = Date.now() - startedAt;
        try {
          await applyFault(fault, t);
        } catch (err) {
          record.error = errorMessage(err).slice(0, 300);
        }
        record.healedAtMs = Date.now() - startedAt;
        log(
          `  fault ${i + 1}/${plan.faults.length}: ${describeFault(fault)}, healed at ${(record.healedAtMs / 1000).toFixed(1)} s${record.error ? ` (ERROR ${record.error})` : ''}`,
        );
      });
      chains.set(key, run);
      await run;
    }),
  );
}

// ---- reading what happened ---------------------------------------------------------------

/** Every job with its event and dead-letter counts. Rows: one per job. */
export const READ_SOAK_JOBS = `
  SELECT j.id, j.status, j.attempts, j.idempotency_key, j.error_code,
         (SELECT COUNT(*) FROM export_outbox AS o WHERE o.job_id = j.id) AS events,
         (SELECT COUNT(*) FROM export_dead_letters AS d WHERE d.job_id = j.id) AS dead_letters
  FROM export_jobs AS j`;

/** Samples the active count every 250 ms (a failed sample, the database down, is skipped). */
function sampleActive(pool: Pool, res: Resources): { max: () => number } {
  let max = 0;
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      await countActiveJobs(pool).then(
        (n) => (max = Math.max(max, n)),
        () => undefined,
      );
      await sleep(250);
    }
  };
  const running = loop();
  res.defer(async () => {
    stopped = true;
    await running;
  });
  return { max: () => max };
}

async function readJobs(pool: Pool, artifactsDir: string): Promise<JobSeen[]> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_SOAK_JOBS);
  const jobs: JobSeen[] = [];
  // Four at a time: each verdict is one query, then a file read with no connection held.
  for (let i = 0; i < rows.length; i += 4) {
    const batch = rows.slice(i, i + 4);
    const verdicts = await Promise.all(batch.map((row) => verifyTerminal(pool, String(row.id), artifactsDir)));
    for (const [k, row] of batch.entries()) {
      jobs.push({
        id: String(row.id),
        status: String(row.status),
        attempts: Number(row.attempts),
        idempotencyKey: row.idempotency_key === null ? null : String(row.idempotency_key),
        errorCode: row.error_code === null ? null : String(row.error_code),
        events: Number(row.events),
        deadLetters: Number(row.dead_letters),
        verdict: verdicts[k]!.verdict,
        problems: verdicts[k]!.problems,
      });
    }
  }
  return jobs;
}

function readPhaseLines(outputs: Record<string, string>): Pick<SoakEvidence, 'successLines' | 'admissions'> {
  const successLines: Record<string, number> = {};
  const admissions: SoakEvidence['admissions'] = [];
  for (const text of Object.values(outputs)) {
    for (const line of parsePhaseLines(text)) {
      if (line.phase === 'published' && line.published === true)
        successLines[line.job_id] = (successLines[line.job_id] ?? 0) + 1;
      if (line.phase === 'accepted')
        admissions.push({
          jobId: line.job_id,
          activeBefore: Number(line.active_before),
          limit: Number(line.limit),
          ...(line.group_size !== undefined && { groupSize: Number(line.group_size) }),
        });
    }
  }
  return { successLines, admissions };
}

// ---- the run -------------------------------------------------------------------------------

export interface SoakOptions {
  log?: (line: string) => void;
  signal?: AbortSignal;
}

/** The timings the soak's processes run with: lesson 16's short ones, the profile's limit and deadline. */
export function soakTimings(profile: SoakProfile): ObservabilityOptionValues {
  return readObservabilityOptions({
    env: {},
    overrides: {
      ...SHORT_TIMINGS,
      admissionLimit: profile.admissionLimit,
      deadlineMs: profile.deadlineMs,
      retryAfterSeconds: 1,
      logLevel: 'info',
    },
  });
}

export async function runSoak(plan: SoakPlan, options: SoakOptions = {}): Promise<SoakEvidence> {
  const log = options.log ?? console.log;
  const began = Date.now();
  return withResources(options.signal, async (res) => {
    // ---- private services, with credentials of their own (0600, deleted after the run)
    const dir = await mkdtemp(join(tmpdir(), 'tasks-lab16-soak-'));
    res.defer(() => rm(dir, { recursive: true, force: true }));
    const credentialsFile = join(dir, 'credentials.env');
    prepareCredentials(credentialsFile);
    const credentials = loadCredentials(credentialsFile);
    log('starting a private Redis and a private database for the soak');
    const redis = res.add(await startPrivateRedis({ password: credentials.redisPassword, maxMemoryMb: 512 }), (r) =>
      r.close(),
    );
    const mysql = res.add(await startPrivateMysql({ credentials }), (m) => m.close());
    // This process's own connections (the database set-up, the sampler, the checks) go there too.
    const serviceEnv = {
      TASKS_LAB_ENV_FILE: credentialsFile,
      TASKS_LAB_REDIS_PORT: String(redis.port),
      TASKS_LAB_MYSQL_PORT: String(mysql.port),
    };
    const previousEnv = Object.fromEntries(Object.keys(serviceEnv).map((key) => [key, process.env[key]]));
    Object.assign(process.env, serviceEnv);
    res.defer(() => {
      for (const [key, value] of Object.entries(previousEnv)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    });

    const timings = soakTimings(plan.profile);
    const db = res.add(await freshDatabase('soak', { settings: timings }), (d) => d.drop().catch(() => undefined));
    await seedProducts(db.pool, SOAK_PRODUCTS);
    const artifactsDir = join(dir, 'artifacts');
    const queuePrefix = 'tasks-lab16-soak';
    const env: NodeJS.ProcessEnv = {
      ...serviceEnv,
      ...OBSERVABILITY_OPTIONS.toEnv({ ...timings, nudgeChannel: `${queuePrefix}:outbox-nudge` }),
      ...SERVER_PROCESS_OPTIONS.toEnv({ database: db.name, queuePrefix, artifactsDir }),
      ...PUBLISHER_PROCESS_OPTIONS.toEnv({ database: db.name, queuePrefix }),
      ...WORKER_PROCESS_OPTIONS.toEnv({ database: db.name, queuePrefix, artifactsDir, concurrency: 2 }),
      LAB_FAULTS: '',
    };

    const unexpectedExits: UnexpectedExit[] = [];
    let loadStartedAt = Date.now();
    const pipeline = await startPipeline(res, env, plan, (exit) => {
      unexpectedExits.push({ ...exit, atMs: Date.now() - loadStartedAt });
      log(`  ${exit.component} exited on its own (${exit.exit}); started again`);
    });
    log(
      `pipeline up: api, api with a ${SHORT_DEADLINE_MS / 1000} s deadline, scanner, ${plan.profile.publishers} publishers, ${plan.profile.fastWorkers} fast + ${plan.profile.bulkWorkers} bulk workers`,
    );

    // ---- the load and the faults, side by side
    const submissions: SubmissionSeen[] = plan.submissions.map((s) => ({
      index: s.index,
      key: submissionKey(plan.seed, s.index),
      requests: 0,
      noAnswer: 0,
      statuses: {},
    }));
    const faults: FaultSeen[] = plan.faults.map((f) => ({ ...f }));
    const sampler = sampleActive(db.pool, res);
    loadStartedAt = Date.now();
    const progress = setInterval(() => {
      const accepted = submissions.filter((s) => s.jobId !== undefined).length;
      const done = faults.filter((f) => f.healedAtMs !== undefined).length;
      log(
        `  ${((Date.now() - loadStartedAt) / 1000).toFixed(0)} s: ${accepted}/${plan.submissions.length} accepted, ${done}/${faults.length} faults done`,
      );
    }, 5000);
    res.defer(() => clearInterval(progress));
    await Promise.all([
      runClients(pipeline, plan, loadStartedAt, submissions),
      runFaults(plan, { pipeline, redis, mysql }, loadStartedAt, faults, log),
    ]);
    clearInterval(progress);
    const loadMs = Date.now() - loadStartedAt;
    log(
      `load and faults done in ${(loadMs / 1000).toFixed(1)} s; everything is healed; waiting for the jobs to settle`,
    );

    // ---- settle: at least the deadline plus a scan, so that anything late (a paused worker's
    // finish, a message that outlived a Redis restart, a job past its deadline) has happened
    // before the judges read; then until every job is terminal, at most a margin longer.
    const quietMs = timings.deadlineMs + timings.recoveryScanMs;
    const boundMs = quietMs + SETTLE_MARGIN_MS;
    const settleStart = Date.now();
    let openAfter = await countActiveJobs(db.pool).catch(() => -1);
    while ((openAfter !== 0 || Date.now() - settleStart < quietMs) && Date.now() - settleStart < boundMs) {
      await sleep(250);
      openAfter = await countActiveJobs(db.pool).catch(() => -1);
    }
    const settle = { quietMs, boundMs, waitedMs: Date.now() - settleStart, openAfter };
    log(
      `settled after ${(settle.waitedMs / 1000).toFixed(1)} s (at least ${(quietMs / 1000).toFixed(1)} s): ${openAfter} job(s) still open`,
    );

    // ---- the evidence
    await Promise.all(pipeline.all.map((c) => c.stop()));
    const outputs = Object.fromEntries(pipeline.all.map((c) => [c.name, c.output()]));
    const jobs = await readJobs(db.pool, artifactsDir);
    const allOutput = Object.values(outputs).join('\n');
    return {
      seed: plan.seed,
      profile: plan.profile.name,
      timings: {
        leaseMs: timings.leaseMs,
        recoveryScanMs: timings.recoveryScanMs,
        unclaimedThresholdMs: timings.unclaimedThresholdMs,
        deadlineMs: timings.deadlineMs,
        maxAttempts: timings.maxAttempts,
        admissionLimit: timings.admissionLimit,
      },
      submissions,
      faults,
      unexpectedExits,
      jobs,
      ...readPhaseLines(outputs),
      maxActiveSampled: sampler.max(),
      settle,
      leakedSecrets: countLeakedSecrets(allOutput, credentialsFile) + countLeakedSecrets(allOutput),
      loadMs,
      totalMs: Date.now() - began,
      outputs,
    };
  });
}

export { FAULT_KINDS };
