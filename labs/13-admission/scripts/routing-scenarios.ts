// Lesson 13's routing experiments, run for real; scripts/routing-checks.ts judges what they saw.
//
//   routeByRowCount     three submissions over HTTP (1 product; 31 ids, 30 of them distinct;
//                       31 distinct) and the queue each one's outbox event names. No worker and
//                       no publisher: the route is decided at admission and kept on the row.
//   workersAndBacklog   ONE experiment in three acts, on a fresh database:
//     1. backlog        no worker, no publisher yet: 3 fast and 2 bulk exports over HTTP, the
//                       first one 1.5 s before the others, and one of them held "running" by a
//                       claim made here (a worker still busy with it). The backlog is read the
//                       lab's way (readBacklog) and over HTTP (GET /backlog).
//     2. drain          the two worker PROCESSES (src/worker.ts fast, src/worker.ts bulk) and the
//                       publisher start; the backlog drains. Who delivered what comes from each
//                       process's own lines; the gate's counter must be back to 0.
//     3. drill          the course's: the bulk worker is paused for real (SIGSTOP), 2 bulk and 3
//                       fast exports are submitted; the fast ones must finish while the bulk ones
//                       wait in exports.bulk; then SIGCONT, and the bulk ones finish too.
//
// The waits have generous bounds (a slow machine must not fail a sound lab), yet a broken part
// must not make every run sit them out: each wait also stops as soon as it SEES that the jobs
// left cannot finish. A job routed to a queue no worker is connected to cannot (no worker starts
// later), so the drain does not wait for it, and with no worker on exports.bulk there is no
// bulk worker to pause: the drill is not run. During the drill, small exports whose worker is
// the paused process itself, or whose wake-ups wait in exports.bulk, cannot finish before the
// SIGCONT that follows the wait. The judges say which of these was seen.
//
// Each experiment has a fresh database of its own (a bulk export needs more than 30
// products: it gets products 6 to 100 as well), so its backlog and its gate counter hold
// its own jobs only. The queues cannot be the experiment's own: the worker processes
// consume lesson 13's two, tasks-lab13:exports.fast and tasks-lab13:exports.bulk. So the
// experiment refuses to start while another worker consumes them (a `pnpm worker:fast`
// left running would take its wake-ups and find nothing to claim in its own database), and
// drops the wake-ups earlier runs left waiting there.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { ensureInfra } from '@tasks-lab/infra';
import {
  errorMessage,
  FAULTS_ENV,
  launchProcess,
  sleep,
  waitFor,
  withResources,
  type LabProcess,
  type Resources,
} from '@tasks-lab/lab-kit';
import { openQueue, type ExportJobName } from '@tasks-lab/08-broker-worker';
import {
  artifactName,
  claim,
  readJob,
  seedProducts,
  writeArtifactAtomically,
  type DeliveryOutcome,
  type WakeUpMessage,
  type WakeUpQueue,
} from '@tasks-lab/11-mysql-leases';
import {
  claimConditions,
  openNudgeClient,
  publisherFaults,
  publishNudge,
  READ_EVENTS_OF_JOB,
  startPublisher,
  toOutboxEvent,
  type OutboxEvent,
  type PublisherParts,
} from '@tasks-lab/12-outbox';
import { admitExport } from '../src/admission.ts';
import { readBacklog, type Backlog } from '../src/backlog.ts';
import { freshDatabase } from '../src/database.ts';
import { countActiveJobs, finishAndLeave, readGateCounter } from '../src/gate.ts';
import {
  ADMISSION_OPTIONS,
  BULK_QUEUE,
  describeTimings,
  FAST_QUEUE,
  readShortAdmissionOptions,
  WORKER_PROCESS_OPTIONS,
  type AdmissionOptionValues,
  type RouteQueue,
} from '../src/options.ts';
import { exportsAddress, scratchQueuePrefix } from '../src/queue.ts';
import { startServer } from '../src/server.ts';

export const WORKER_SCRIPT = fileURLToPath(new URL('../src/worker.ts', import.meta.url));
const WORKER_READY = /export worker \d+ ready/;

/** A worker process to start: src/worker.ts with its queue's word, or a fixture. */
export interface WorkerCommand {
  script: string;
  args: string[];
}

/** Starts one worker process (the experiment's env, owned by its scope) and waits for its ready line. */
export type LaunchWorker = (command: WorkerCommand) => Promise<LabProcess>;

/** The worker process of each route. `bulk` is the one the drill pauses. */
export interface WorkerProcesses {
  fast: LabProcess;
  bulk: LabProcess;
}

/** The parts a broken variant may replace; the lab's own are used otherwise. */
export interface RoutingParts {
  /** How POST /exports admits a submission (the route is decided in there). */
  admit: typeof admitExport;
  /** The publisher's steps (lesson 12's publisher sends each event to the queue its row names). */
  publisher: Partial<PublisherParts>;
  /** Starts the worker processes: lesson 13's is one process per queue. */
  startWorkers: (launch: LaunchWorker) => Promise<WorkerProcesses>;
  /** How the backlog is read (`pnpm backlog`, GET /backlog's query). */
  readBacklog: typeof readBacklog;
}

/** Lesson 13's: `src/worker.ts fast` and `src/worker.ts bulk`, two OS processes, started side by side. */
async function oneWorkerPerQueue(launch: LaunchWorker): Promise<WorkerProcesses> {
  const [fast, bulk] = await Promise.all([
    launch({ script: WORKER_SCRIPT, args: ['fast'] }),
    launch({ script: WORKER_SCRIPT, args: ['bulk'] }),
  ]);
  return { fast, bulk };
}

export const ROUTING_PARTS: RoutingParts = {
  admit: admitExport,
  publisher: {},
  startWorkers: oneWorkerPerQueue,
  readBacklog,
};

export interface RoutingSetup {
  parts?: Partial<RoutingParts>;
  /** @defaultValue the short timings (USE_COURSE_TIMINGS=1 puts the course's back) */
  timings?: AdmissionOptionValues;
}

// ---------------------------------------------------------------------------------
// What every experiment has at hand

/** Product ids from..to: `range(6, 40)` is 35 distinct products, a bulk export. */
export const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

interface Lab {
  res: Resources;
  signal: AbortSignal;
  parts: RoutingParts;
  timings: AdmissionOptionValues;
  database: string;
  pool: Pool;
  /** The API in this process, on the experiment's database. */
  url: string;
}

async function withLab<T>(
  signal: AbortSignal,
  setup: RoutingSetup,
  label: string,
  work: (lab: Lab) => Promise<T>,
): Promise<T> {
  return withResources(signal, async (res) => {
    const parts = { ...ROUTING_PARTS, ...setup.parts };
    const timings = setup.timings ?? readShortAdmissionOptions();
    await ensureInfra({ services: ['redis', 'mysql'] });
    const db = res.add(await freshDatabase(label, { settings: timings }), (d) => d.drop());
    await seedProducts(db.pool, 100);
    const redis = res.add(openNudgeClient(), (r) => r.disconnect());
    await waitFor('the nudge client to connect', async () => redis.status === 'ready', {
      timeoutMs: 10_000,
      intervalMs: 20,
      signal: res.signal,
    });
    const api = res.add(
      await startServer(0, {
        pool: db.pool,
        nudge: () => publishNudge(redis, { channel: timings.nudgeChannel }),
        rules: timings,
        deadlineMs: timings.deadlineMs,
        admit: parts.admit,
        onAdmission: () => {},
        log: () => {},
      }),
      (a) => a.close(),
    );
    return work({ res, signal: res.signal, parts, timings, database: db.name, pool: db.pool, url: api.url });
  });
}

export interface Posted {
  jobId: string;
  status: number;
  /** The answer's product_ids (the snapshot, de-duplicated), when it was a 202. */
  productIds: number[] | undefined;
  /** When the answer arrived: the job's row was committed before that. */
  answeredAt: number;
}

/** POST /exports, the way a client does it. */
async function postExport(url: string, productIds: number[]): Promise<Posted> {
  const answer = await fetch(`${url}/exports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ product_ids: productIds }),
  });
  const body = (await answer.json().catch(() => ({}))) as { id?: string; product_ids?: number[] };
  return { jobId: String(body.id), status: answer.status, productIds: body.product_ids, answeredAt: Date.now() };
}

async function eventsOf(pool: Pool, jobId: string): Promise<OutboxEvent[]> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_EVENTS_OF_JOB, [jobId]);
  return rows.map(toOutboxEvent);
}

// ---------------------------------------------------------------------------------
// 1. The route, by distinct row count

export interface RouteCase {
  label: string;
  /** How it was submitted: over HTTP, or straight to the part (no request parsing in between). */
  via: 'POST /exports' | 'admit';
  /** Ids submitted, repeats included. */
  sent: number;
  distinct: number;
  expected: RouteQueue;
  /** "202" for HTTP, "created" for a direct admission, or what went wrong. */
  outcome: string;
  /** How many products the job's snapshot holds (its row count). */
  rows: number | undefined;
  /** The queue of each outbox event the job got (one expected). */
  queues: string[];
}

export interface RouteEvidence {
  timings: string;
  fastMaxRows: number;
  cases: RouteCase[];
}

/** 31 ids with one repeated (30 distinct: the last fast one), 31 distinct (the first bulk one), and a single product. */
const ROUTE_CASES: { label: string; productIds: number[]; via: RouteCase['via'] }[] = [
  { label: '1 product', productIds: [1], via: 'POST /exports' },
  { label: '31 ids, 30 distinct', productIds: [...range(1, 30), 7], via: 'POST /exports' },
  { label: '31 distinct', productIds: range(1, 31), via: 'POST /exports' },
  // Lesson 01's request parsing already drops the repeat on the HTTP path; admitExport is
  // also called directly (a scheduler, a script), so it must count distinct rows itself.
  { label: '31 ids, 30 distinct, admitted directly', productIds: [...range(1, 30), 7], via: 'admit' },
];

export function routeByRowCount(setup: RoutingSetup): (signal: AbortSignal) => Promise<RouteEvidence> {
  return (signal) =>
    withLab(signal, setup, 'route', async ({ pool, url, timings, parts }) => {
      const cases: RouteCase[] = [];
      for (const { label, productIds, via } of ROUTE_CASES) {
        const { jobId, outcome } =
          via === 'admit' ? await admitDirectly(parts, pool, productIds, timings) : await postForRoute(url, productIds);
        const distinct = new Set(productIds).size;
        const job = jobId === undefined ? undefined : await readJob(pool, jobId);
        cases.push({
          label,
          via,
          sent: productIds.length,
          distinct,
          expected: distinct <= timings.fastMaxRows ? FAST_QUEUE : BULK_QUEUE,
          outcome,
          rows: job?.snapshot.length,
          queues: jobId === undefined ? [] : (await eventsOf(pool, jobId)).map((e) => e.queueName),
        });
      }
      return { timings: describeTimings(timings), fastMaxRows: timings.fastMaxRows, cases };
    });
}

async function postForRoute(
  url: string,
  productIds: number[],
): Promise<{ jobId: string | undefined; outcome: string }> {
  const posted = await postExport(url, productIds);
  return { jobId: posted.status === 202 ? posted.jobId : undefined, outcome: String(posted.status) };
}

async function admitDirectly(
  parts: RoutingParts,
  pool: Pool,
  productIds: number[],
  timings: AdmissionOptionValues,
): Promise<{ jobId: string | undefined; outcome: string }> {
  try {
    const admitted = await parts.admit(pool, productIds, { rules: timings, deadlineMs: timings.deadlineMs });
    return { jobId: admitted.jobId, outcome: admitted.created ? 'created' : 'not created' };
  } catch (err) {
    return { jobId: undefined, outcome: `threw ${errorMessage(err).slice(0, 80)}` };
  }
}

// ---------------------------------------------------------------------------------
// 2. The workers, the backlog, the drill

/** The gap between the first submission and the others: the oldest age must show it. */
export const OLDEST_LEAD_MS = 1500;
/** The course's bound for the drill: the fast exports finish within it while bulk is paused. */
export const FAST_BOUND_MS = 15_000;

/** How long the experiment waits for jobs to finish once their wake-ups can be sent. */
const finishWithinMs = (timings: AdmissionOptionValues) => 10_000 + 2 * (timings.pollMs + timings.claimMs);

/** One `exports.fast delivered job <id> (BullMQ id <event id>): claimed …, published …` line of a worker process. */
export interface Delivery {
  queueName: string;
  jobId: string;
  claimed: boolean;
  published: boolean;
}

export interface WorkerSeen {
  pid: number;
  /** Every delivery line the process printed. */
  deliveries: Delivery[];
}

/** A job of the experiment: the queue its size calls for, and what became of it. */
export interface TrackedJob {
  jobId: string;
  route: RouteQueue;
  status: number;
  state: string | undefined;
  /** A job still queued after the drain: lesson 11's claim conditions on its row then (a diagnostic). */
  rowNow?: string;
}

export interface BacklogReading {
  /** What readBacklog (the part) answered. */
  backlog: Backlog;
  /** What GET /backlog answered. */
  http: { status: number; body: Backlog | undefined };
  gateCounter: number;
  /** COUNT of the queued and running rows: what the counter must equal. */
  activeJobs: number;
}

export interface WorkersEvidence {
  timings: string;
  /** Act 1: before any worker or publisher ran. */
  before: BacklogReading & {
    /** The oldest job's true age lies between these (seconds): from its 202 to the read's start, from its POST to the read's end. */
    oldestAgeAtLeastS: number;
    oldestAgeAtMostS: number;
    /** The job held running by this experiment's claim (a busy worker). */
    held: { jobId: string; claimed: boolean; finished: boolean };
  };
  /** BullMQ workers connected to each queue once the worker processes were ready (a process consuming both counts on both). */
  queueWorkers: QueueWorkers;
  /** Act 2: the workers and the publisher ran until nothing was left. */
  jobs: TrackedJob[];
  /** ms from the workers' start to the last job finished (null: not all within the wait). */
  drainedAfterMs: number | null;
  after: BacklogReading;
  workers: { fast: WorkerSeen; bulk: WorkerSeen };
  /** Act 3: the drill; null when no worker was connected to exports.bulk (there was no bulk worker to pause). */
  drill: DrillEvidence | null;
  publisherErrors: string[];
}

export interface DrillEvidence {
  /** The bulk worker's state in /proc after SIGSTOP ('T': stopped; 'unknown' where there is no /proc). */
  pausedState: string;
  /** The fast worker's state in /proc just after: 'T' too when it is the paused process (one process for both queues). */
  fastWorkerState: string;
  /** Unfinished fast jobs whose wake-ups were seen waiting in exports.bulk, behind the paused worker. */
  fastWaitingInBulk: number;
  /**
   * The wait for the fast jobs stopped before the bound because they could not finish before
   * SIGCONT: their worker was stopped too, or all their wake-ups waited in exports.bulk.
   */
  fastStuckBehindPause: boolean;
  fast: TrackedJob[];
  bulk: TrackedJob[];
  boundMs: number;
  /** ms from the last submission to every fast job finished (null: not within the bound, or stuck behind the pause). */
  fastDoneAfterMs: number | null;
  /** Every state the bulk jobs were seen in while their worker was paused. */
  bulkStatesWhilePaused: string[];
  /** Bulk events the publisher had sent (their wake-ups were waiting in exports.bulk) when the fast ones were done. */
  bulkEventsSentWhilePaused: number;
  /** ms from SIGCONT to every bulk job finished (null: not within the wait). */
  bulkDoneAfterResumeMs: number | null;
}

export function workersAndBacklog(setup: RoutingSetup): (signal: AbortSignal) => Promise<WorkersEvidence> {
  return (signal) =>
    withLab(signal, setup, 'workers', async (lab) => {
      const { res, pool, timings, parts } = lab;
      const prefix = scratchQueuePrefix(res);
      const artifactsDir = await artifactFolder(res);

      // Act 1: submissions with nobody to take them.
      const before = await backlogBeforeWorkers(lab, artifactsDir);

      // Act 2: the two worker processes and the publisher; the backlog drains.
      const env = {
        ...ADMISSION_OPTIONS.toEnv(timings),
        ...WORKER_PROCESS_OPTIONS.toEnv({ database: lab.database, artifactsDir, concurrency: 1, queuePrefix: prefix }),
        [FAULTS_ENV]: '',
      };
      const launch: LaunchWorker = (command) =>
        launchProcess(command.script, { args: command.args, ready: WORKER_READY, resources: res, env });
      const queues = await openRouteQueues(res, prefix);
      const workers = await parts.startWorkers(launch);
      const startedAt = Date.now();
      const queueWorkers = await countQueueWorkers(queues);
      const publisherErrors: string[] = [];
      // No fault points: a LAB_FAULTS meant for something else must not reach this publisher.
      const publisher = await startPublisher({
        pool,
        timings,
        prefix,
        parts: parts.publisher,
        faults: publisherFaults({}),
        report: (line) => publisherErrors.push(line),
      });
      res.add(publisher, (p) => p.close());
      const firstJobs = before.submitted;
      // No worker starts later in this experiment: a job routed to a queue nobody is connected
      // to cannot finish, and the drain does not sit out its bound for it.
      const canFinish = (job: TrackedJob) => queueWorkers[job.route] > 0;
      const drained = await waitForFinished(pool, firstJobs, finishWithinMs(timings), lab.signal, canFinish);
      const drainedAfterMs = drained ? Date.now() - startedAt : null;
      // The row finishes inside the delivery; its line is printed a moment later.
      await waitForDeliveryLines(
        workers,
        (await trackJobs(pool, firstJobs)).filter((j) => isFinished(j.state)),
        lab.signal,
      );
      const after = await readBacklogBothWays(lab);
      const jobs = await withRowsOfQueued(pool, await trackJobs(pool, firstJobs), timings.maxAttempts);

      // Act 3: the drill, which pauses the worker of exports.bulk: with none connected there is
      // nothing to pause (the drill's check fails on that, saying so).
      const drill = queueWorkers[BULK_QUEUE] > 0 ? await pauseBulkDrill(lab, workers, queues) : null;
      return {
        timings: describeTimings(timings),
        before: {
          ...before.reading,
          oldestAgeAtLeastS: before.oldestAgeAtLeastS,
          oldestAgeAtMostS: before.oldestAgeAtMostS,
          held: before.held,
        },
        queueWorkers,
        jobs,
        drainedAfterMs,
        after,
        workers: { fast: seen(workers.fast), bulk: seen(workers.bulk) },
        drill,
        publisherErrors: publisherErrors.slice(0, 5),
      };
    });
}

/** BullMQ workers connected to each of lesson 13's queues. */
export type QueueWorkers = Record<RouteQueue, number>;

/** Lesson 13's two queues under the experiment's prefix, opened to look at (nothing is added through them). */
type RouteQueues = Record<RouteQueue, WakeUpQueue>;

async function openRouteQueues(res: Resources, prefix: string): Promise<RouteQueues> {
  const open = async (queueName: RouteQueue) =>
    res.add(
      await openQueue<WakeUpMessage, DeliveryOutcome, ExportJobName>(exportsAddress(queueName, prefix)),
      (queue) => queue.close(),
    );
  return { [FAST_QUEUE]: await open(FAST_QUEUE), [BULK_QUEUE]: await open(BULK_QUEUE) };
}

/**
 * BullMQ names each worker's Redis connection after its queue, and a ready worker's
 * connection is named already: CLIENT LIST tells who is connected to which queue.
 */
async function countQueueWorkers(queues: RouteQueues): Promise<QueueWorkers> {
  return {
    [FAST_QUEUE]: await queues[FAST_QUEUE].getWorkersCount(),
    [BULK_QUEUE]: await queues[BULK_QUEUE].getWorkersCount(),
  };
}

/** The jobs whose wake-ups wait in `queue`, sent and not yet taken by any worker. */
async function wakeUpsWaitingIn(queue: WakeUpQueue): Promise<Set<string>> {
  return new Set((await queue.getWaiting()).map((wakeUp) => wakeUp.data.job_id));
}

async function artifactFolder(res: Resources): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'tasks-lab13-artifacts-'));
  res.defer(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

interface BeforeWorkers {
  submitted: TrackedJob[];
  reading: BacklogReading;
  oldestAgeAtLeastS: number;
  oldestAgeAtMostS: number;
  held: { jobId: string; claimed: boolean; finished: boolean };
}

async function backlogBeforeWorkers(lab: Lab, artifactsDir: string): Promise<BeforeWorkers> {
  const { pool, url, timings } = lab;
  const postedAt = Date.now();
  const first = await postExport(url, [1]);
  await sleep(OLDEST_LEAD_MS, lab.signal);
  const others = [
    await postExport(url, [2, 3]),
    await postExport(url, [4]),
    await postExport(url, range(6, 40)),
    await postExport(url, range(41, 80)),
  ];
  const routes: RouteQueue[] = [FAST_QUEUE, FAST_QUEUE, FAST_QUEUE, BULK_QUEUE, BULK_QUEUE];
  const submitted = [first, ...others].map((p, i) => ({
    jobId: p.jobId,
    route: routes[i]!,
    status: p.status,
    state: undefined,
  }));
  // A worker busy with one of the fast jobs: this experiment claims it (lesson 11's claim, a
  // lease long enough for the reading), so the backlog has a running job to show.
  const heldId = others[1]!.jobId;
  const held =
    others[1]!.status === 202
      ? await claim(pool, heldId, { leaseMs: 60_000, maxAttempts: timings.maxAttempts })
      : undefined;
  const readStart = Date.now();
  const reading = await readBacklogBothWays(lab);
  const readEnd = Date.now();
  // The busy worker finishes: its artifact, then lesson 13's finish (which leaves the gate).
  let finished = false;
  if (held) {
    const fileName = artifactName(heldId, held.token);
    await writeArtifactAtomically(artifactsDir, fileName, held.snapshot);
    finished = await finishAndLeave(pool, heldId, held.token, fileName);
  }
  return {
    submitted,
    reading,
    oldestAgeAtLeastS: (readStart - first.answeredAt) / 1000,
    oldestAgeAtMostS: (readEnd - postedAt) / 1000,
    held: { jobId: heldId, claimed: held !== undefined, finished },
  };
}

async function readBacklogBothWays(lab: Lab): Promise<BacklogReading> {
  const backlog = await lab.parts.readBacklog(lab.pool);
  const answer = await fetch(`${lab.url}/backlog`);
  const body = (await answer.json().catch(() => undefined)) as Backlog | undefined;
  return {
    backlog,
    http: { status: answer.status, body },
    gateCounter: await readGateCounter(lab.pool),
    activeJobs: await countActiveJobs(lab.pool),
  };
}

const isFinished = (state: string | undefined) => state !== undefined && state !== 'queued' && state !== 'running';

async function trackJobs(pool: Pool, jobs: readonly TrackedJob[]): Promise<TrackedJob[]> {
  return Promise.all(jobs.map(async (job) => ({ ...job, state: (await readJob(pool, job.jobId))?.status })));
}

/** The jobs, with the claim conditions of each one still queued. */
async function withRowsOfQueued(pool: Pool, jobs: TrackedJob[], maxAttempts: number): Promise<TrackedJob[]> {
  return Promise.all(
    jobs.map(async (job) =>
      job.state === 'queued' ? { ...job, rowNow: await claimConditions(pool, job.jobId, maxAttempts) } : job,
    ),
  );
}

/**
 * true once every job is finished; false if `timeoutMs` passed first, or as soon as every job
 * left is one `canFinish` says cannot finish (waiting out the bound would tell nothing more).
 */
async function waitForFinished(
  pool: Pool,
  jobs: readonly TrackedJob[],
  timeoutMs: number,
  signal: AbortSignal,
  canFinish: (job: TrackedJob) => boolean = () => true,
): Promise<boolean> {
  let allFinished = false;
  const settled = async () => {
    const left = (await trackJobs(pool, jobs)).filter((j) => !isFinished(j.state));
    allFinished = left.length === 0;
    return left.every((j) => !canFinish(j));
  };
  await waitFor('the jobs to finish', settled, { timeoutMs, intervalMs: 100, signal }).catch((err: unknown) => {
    if (signal.aborted) throw err;
  });
  return allFinished;
}

const DELIVERY_LINE =
  /^(\S+) delivered job ([0-9a-f-]{36}) \(BullMQ id [^)]*\): claimed (true|false), published (true|false)$/gm;

/** The deliveries a worker process reported, from its own output. */
export function deliveriesIn(output: string): Delivery[] {
  return [...output.matchAll(DELIVERY_LINE)].map((m) => ({
    queueName: m[1]!,
    jobId: m[2]!,
    claimed: m[3] === 'true',
    published: m[4] === 'true',
  }));
}

const seen = (proc: LabProcess): WorkerSeen => ({ pid: proc.pid, deliveries: deliveriesIn(proc.output()) });

/** Waits (a little) for the delivery line of each of `jobs`: pass finished ones, a job that never finished may never print one. */
async function waitForDeliveryLines(
  workers: WorkerProcesses,
  jobs: readonly TrackedJob[],
  signal: AbortSignal,
): Promise<void> {
  const reported = () =>
    new Set([...deliveriesIn(workers.fast.output()), ...deliveriesIn(workers.bulk.output())].map((d) => d.jobId));
  await waitFor('every delivery line', () => jobs.every((j) => reported().has(j.jobId)), {
    timeoutMs: 3000,
    intervalMs: 50,
    signal,
  }).catch((err: unknown) => {
    if (signal.aborted) throw err;
  });
}

/** The process's state letter from /proc ('T' = stopped by a signal); 'unknown' without /proc. */
async function processState(pid: number): Promise<string> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * The state once the stop has taken effect: kill() only queues the signal, and a process
 * read a moment later may still be 'R' (running). Waits up to a second for 'T'; a process
 * that never stops reports the last state it showed, and the check fails on it.
 */
async function stoppedState(pid: number): Promise<string> {
  const deadline = Date.now() + 1000;
  let state = await processState(pid);
  while (state !== 'T' && state !== 'unknown' && Date.now() < deadline) {
    await sleep(10);
    state = await processState(pid);
  }
  return state;
}

async function pauseBulkDrill(lab: Lab, workers: WorkerProcesses, queues: RouteQueues): Promise<DrillEvidence> {
  const { pool, url, timings } = lab;
  const bulkWorker = workers.bulk.child;
  // Registered BEFORE the stop: whatever happens next, the process is continued, or it
  // would never exit (a stopped process does not act on SIGTERM).
  lab.res.defer(() => {
    if (bulkWorker.exitCode === null && bulkWorker.signalCode === null) bulkWorker.kill('SIGCONT');
  });
  bulkWorker.kill('SIGSTOP');
  const pausedState = await stoppedState(workers.bulk.pid);
  // 'T' as well when the fast worker IS the paused process (one process for both queues).
  const fastWorkerState = await processState(workers.fast.pid);

  // Bulk work first, as in the course: the big exports are already waiting when the small ones arrive.
  const bulkPosted = [await postExport(url, range(6, 40)), await postExport(url, range(41, 80))];
  const fastPosted = [await postExport(url, [1]), await postExport(url, [2, 3]), await postExport(url, [4, 5])];
  const submittedAt = Date.now();
  const bulk = bulkPosted.map((p) => ({
    jobId: p.jobId,
    route: BULK_QUEUE as RouteQueue,
    status: p.status,
    state: undefined,
  }));
  const fast = fastPosted.map((p) => ({
    jobId: p.jobId,
    route: FAST_QUEUE as RouteQueue,
    status: p.status,
    state: undefined,
  }));

  const bulkStatesWhilePaused = new Set<string>();
  // The fast jobs get the course's bound, unless they are seen stuck behind the paused worker:
  // their own worker is stopped too, or all their wake-ups wait in exports.bulk. Nothing can
  // finish them before the SIGCONT that follows this wait, so sitting out the bound would only
  // make the run slower.
  let fastDone = false;
  let fastWaitingInBulk = 0;
  let fastStuckBehindPause = false;
  await waitFor(
    'the fast jobs to finish while bulk is paused',
    async () => {
      for (const job of await trackJobs(pool, bulk)) bulkStatesWhilePaused.add(String(job.state));
      const left = (await trackJobs(pool, fast)).filter((j) => !isFinished(j.state));
      fastDone = left.length === 0;
      if (fastDone) return true;
      const inBulk = await wakeUpsWaitingIn(queues[BULK_QUEUE]);
      fastWaitingInBulk = left.filter((j) => inBulk.has(j.jobId)).length;
      fastStuckBehindPause = fastWorkerState === 'T' || fastWaitingInBulk === left.length;
      return fastStuckBehindPause;
    },
    { timeoutMs: FAST_BOUND_MS, intervalMs: 100, signal: lab.signal },
  ).catch((err: unknown) => {
    if (lab.signal.aborted) throw err;
  });
  const fastDoneAfterMs = fastDone ? Date.now() - submittedAt : null;
  const fastAfterWait = await trackJobs(pool, fast);
  // The publisher sent the bulk wake-ups in the same round as the fast ones (give a late
  // confirm the claim's length): they wait in exports.bulk, not in the outbox.
  const bulkEventsSent = async () =>
    (await Promise.all(bulk.map((j) => eventsOf(pool, j.jobId)))).flat().filter((e) => e.sentAt !== null).length;
  await waitFor('the bulk wake-ups to be sent', async () => (await bulkEventsSent()) === bulk.length, {
    timeoutMs: timings.claimMs + 2000,
    intervalMs: 50,
    signal: lab.signal,
  }).catch((err: unknown) => {
    if (lab.signal.aborted) throw err;
  });
  const bulkEventsSentWhilePaused = await bulkEventsSent();
  for (const job of await trackJobs(pool, bulk)) bulkStatesWhilePaused.add(String(job.state));

  bulkWorker.kill('SIGCONT');
  const resumedAt = Date.now();
  const bulkDone = await waitForFinished(pool, bulk, finishWithinMs(timings), lab.signal);
  return {
    pausedState,
    fastWorkerState,
    fastWaitingInBulk,
    fastStuckBehindPause,
    fast: fastAfterWait,
    bulk: await trackJobs(pool, bulk),
    boundMs: FAST_BOUND_MS,
    fastDoneAfterMs,
    bulkStatesWhilePaused: [...bulkStatesWhilePaused],
    bulkEventsSentWhilePaused,
    bulkDoneAfterResumeMs: bulkDone ? Date.now() - resumedAt : null,
  };
}
