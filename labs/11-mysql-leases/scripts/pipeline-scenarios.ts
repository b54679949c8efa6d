// Lesson 11's end-to-end experiments: the HTTP API (in this process, on the lab's app),
// BullMQ on a queue of the experiment's own, and the export worker as a real OS process
// (src/worker.ts, or a broken variant the can-fail tests pass), all on one database
// (verify's tasks_lab11_verify, recreated once per run, or the test's fresh one). Each
// experiment returns what it saw; scripts/pipeline-checks.ts judges it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JobState as BullState } from 'bullmq';
import type { Express } from 'express';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { ensureInfra } from '@tasks-lab/infra';
import { FAULTS_ENV, launchProcess, sleep, withResources, type LabProcess, type Resources } from '@tasks-lab/lab-kit';
import { openQueue, waitForFinalState, type ExportJobName } from '@tasks-lab/08-broker-worker';
import { createApp, type AppOptions } from '../src/app.ts';
import { openJobsDatabase } from '../src/database.ts';
import { claim, readJob, submitSnapshot, type JobRow } from '../src/leases.ts';
import { LEASE_OPTIONS, describeTimings, readShortLeaseOptions, type LeaseOptionValues } from '../src/options.ts';
import { WORKER_PROCESS_OPTIONS } from '../src/options.ts';
import {
  exportsAddress,
  wakeWorker,
  type DeliveryOutcome,
  type WakeUpMessage,
  type WakeUpQueue,
} from '../src/queue.ts';
import { startServer } from '../src/server.ts';
import { waitForTerminalRow } from '../src/submit-cli.ts';
import { verifyDatabaseOnce } from './lease-scenarios.ts';

export const WORKER_SCRIPT = fileURLToPath(new URL('../src/worker.ts', import.meta.url));
const WORKER_READY = /export worker \d+ ready/;

/** The parts a broken variant may replace; the lab's own are used otherwise. */
export interface PipelineParts {
  /** The API. A broken one answers GET from somewhere other than the table. */
  createApp: (options: AppOptions, queue: WakeUpQueue) => Express;
  /** How the API wakes a worker after the commit. */
  wake: (queue: WakeUpQueue, jobId: string, pool: Pool) => Promise<unknown>;
  /** How the API stores a submission (AppOptions.submit). */
  submit: NonNullable<AppOptions['submit']>;
  /** The worker process's entry point. */
  workerScript: string;
  /** LAB_FAULTS for the worker process. */
  workerFaults: string;
}

export const PIPELINE_PARTS: PipelineParts = {
  createApp: (options) => createApp(options),
  wake: (queue, jobId) => wakeWorker(queue, jobId),
  submit: submitSnapshot,
  workerScript: WORKER_SCRIPT,
  workerFaults: '',
};

export interface PipelineSetup {
  parts?: Partial<PipelineParts>;
  /** An existing, migrated database (the tests' fresh one). @defaultValue verify's, recreated once per run (shared with the lease checks) */
  database?: string | (() => Promise<string>);
  /** @defaultValue SHORT_TIMINGS (USE_COURSE_TIMINGS=1 puts the course's back) */
  timings?: LeaseOptionValues;
}

/** What every experiment has at hand while it runs. */
interface Pipeline {
  pool: Pool;
  queue: WakeUpQueue;
  api: { url: string; restart(): Promise<void> };
  artifactsDir: string;
  timings: LeaseOptionValues;
  /** Starts the worker process (once; experiments that need none never call it). */
  startWorker(): Promise<LabProcess>;
  res: Resources;
}

async function resolveDatabase(database: PipelineSetup['database']): Promise<string> {
  if (typeof database === 'string') return database;
  return (database ?? verifyDatabaseOnce)();
}

/** Sets up the pipeline inside a resource scope: everything closes when `work` ends or the check times out. */
async function withPipeline<T>(
  signal: AbortSignal,
  setup: PipelineSetup,
  work: (p: Pipeline) => Promise<T>,
): Promise<T> {
  const parts = { ...PIPELINE_PARTS, ...setup.parts };
  const timings = setup.timings ?? readShortLeaseOptions();
  return withResources(signal, async (res) => {
    await ensureInfra({ services: ['redis', 'mysql'] });
    const database = await resolveDatabase(setup.database);
    const queueName = `exports-check-${randomBytes(4).toString('hex')}`;
    const artifactsDir = await mkdtemp(join(tmpdir(), 'lab11-artifacts-'));
    res.defer(() => rm(artifactsDir, { recursive: true, force: true }));
    const pool = res.add(await openJobsDatabase({ database }), (p) => p.end());
    const queue = res.add(
      await openQueue<WakeUpMessage, DeliveryOutcome, ExportJobName>(exportsAddress(queueName)),
      async (q) => {
        await q.obliterate({ force: true }).catch(() => {});
        await q.close();
      },
    );
    const appOptions: AppOptions = {
      pool,
      wake: (jobId) => parts.wake(queue, jobId, pool),
      submit: parts.submit,
      deadlineMs: timings.deadlineMs,
      log: () => {},
    };
    let server = await startServer(0, appOptions, parts.createApp(appOptions, queue));
    res.defer(() => server.close());
    const api = {
      get url() {
        return server.url;
      },
      // A restart: the old server stops, a new app is built; only what is stored survives.
      async restart() {
        await server.close();
        server = await startServer(0, appOptions, parts.createApp(appOptions, queue));
      },
    };
    let worker: Promise<LabProcess> | undefined;
    const startWorker = () =>
      (worker ??= launchProcess(parts.workerScript, {
        ready: WORKER_READY,
        resources: res,
        env: {
          ...LEASE_OPTIONS.toEnv(timings),
          ...WORKER_PROCESS_OPTIONS.toEnv({ queueName, database, artifactsDir, concurrency: 2 }),
          [FAULTS_ENV]: parts.workerFaults,
        },
      }));
    return work({ pool, queue, api, artifactsDir, timings, startWorker, res });
  });
}

// ---- HTTP helpers -------------------------------------------------------------------

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** The answer, with its body parsed when it is a JSON object (an empty object otherwise). */
async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: the status alone tells the judge what happened.
  }
  return { status: response.status, body, headers: response.headers };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return answerOf(
    await fetch(`${url}/exports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }),
  );
}

async function get(url: string, jobId: string): Promise<Answer> {
  return answerOf(await fetch(`${url}/exports/${jobId}`));
}

/**
 * Polls GET /exports/:id until the job is terminal, or `waitMs` passed, or `nothingLeft()` said
 * (asked BEFORE the GET) that nothing can change the row any more: the client's view.
 */
async function pollUntilTerminal(
  url: string,
  jobId: string,
  waitMs: number,
  signal: AbortSignal,
  nothingLeft: () => Promise<boolean> = async () => false,
): Promise<Answer> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    // The order matters: a delivery finishes the row BEFORE BullMQ marks its wake-up
    // completed, so a row read after nothingLeft() said true is the row's last word.
    const settled = await nothingLeft();
    const answer = await get(url, jobId);
    if (answer.body.terminal === true || answer.status !== 200 || settled || Date.now() >= deadline) return answer;
    await sleep(100, signal);
  }
}

/**
 * True once the queue has held a wake-up and every wake-up it holds has ended (completed or
 * failed). A wake-up is delivered once (attempts 1, src/queue.ts) and lesson 11 has no recovery
 * scan (lesson 15's): once they have all ended, no worker will claim or finish the row again,
 * so a row that is not terminal by then stays as it is (a finish that threw, a wake-up the
 * worker refused) and waiting out the rest of the bound would only show the same row.
 */
async function everyWakeUpEnded(queue: WakeUpQueue): Promise<boolean> {
  const counts = await queue.getJobCounts(
    'waiting',
    'active',
    'delayed',
    'prioritized',
    'waiting-children',
    'completed',
    'failed',
  );
  const ended = (counts.completed ?? 0) + (counts.failed ?? 0);
  const open = Object.values(counts).reduce((sum, n) => sum + n, 0) - ended;
  return ended > 0 && open === 0;
}

/** The data of every wake-up message BullMQ holds for this queue, whatever its state. */
async function wakeUpMessages(queue: WakeUpQueue): Promise<unknown[]> {
  const jobs = await queue.getJobs(['completed', 'failed', 'waiting', 'active', 'delayed']);
  return jobs.map((job) => job.data);
}

/** How long an experiment waits for a job to finish: a lease's worth of slack on top of a few seconds. */
const finishWithinMs = (timings: LeaseOptionValues) => 10_000 + 2 * timings.leaseMs;

// ---- end to end: POST -> worker -> succeeded; then Redis forgets ------------------------

export interface EndToEndEvidence {
  timings: string;
  postStatus: number;
  jobId: string;
  /** GET /exports/:id once the job was terminal (or the wait ran out). */
  final: { status: number; state: unknown; resultRef: unknown; attempts: unknown };
  /** The artifact result_ref names: its name, whether it exists, whether it holds the snapshot. */
  artifact: { nameCarriesToken: boolean; exists: boolean; holdsSnapshot: boolean };
  /** Every wake-up message BullMQ held for the queue, as the worker received it. */
  messages: unknown[];
  /** After the queue was obliterated (every BullMQ job and its result gone). */
  afterRedisLoss: { bullJobsLeft: number; status: number; state: unknown; resultRef: unknown };
}

export function endToEnd(setup: PipelineSetup): (signal: AbortSignal) => Promise<EndToEndEvidence> {
  return (signal) =>
    withPipeline(signal, setup, async ({ pool, queue, api, artifactsDir, timings, startWorker }) => {
      await startWorker();
      const submitted = await post(api.url, { product_ids: [2, 1] });
      const jobId = String(submitted.body.id);
      const final = await pollUntilTerminal(api.url, jobId, finishWithinMs(timings), signal, () =>
        everyWakeUpEnded(queue),
      );
      const row = await readJob(pool, jobId);
      const artifact = await inspectArtifact(artifactsDir, row);
      const messages = await wakeUpMessages(queue);
      // Redis loses everything it knew about this job: the wake-up, its state, its return value.
      await queue.obliterate({ force: true });
      const bullJobsLeft = (await queue.getJobs(['completed', 'failed', 'waiting', 'active', 'delayed'])).length;
      const after = await get(api.url, jobId);
      return {
        timings: describeTimings(timings),
        postStatus: submitted.status,
        jobId,
        final: {
          status: final.status,
          state: final.body.status,
          resultRef: final.body.result_ref,
          attempts: final.body.attempts,
        },
        artifact,
        messages,
        afterRedisLoss: {
          bullJobsLeft,
          status: after.status,
          state: after.body.status,
          resultRef: after.body.result_ref,
        },
      };
    });
}

async function inspectArtifact(dir: string, row: JobRow | undefined): Promise<EndToEndEvidence['artifact']> {
  const ref = row?.resultRef ?? '';
  const nameCarriesToken = row !== undefined && row.leaseToken !== null && ref === `${row.id}.${row.leaseToken}.json`;
  const names = await readdir(dir).catch(() => [] as string[]);
  if (!row || !names.includes(ref)) return { nameCarriesToken, exists: false, holdsSnapshot: false };
  const content: unknown = JSON.parse(await readFile(join(dir, ref), 'utf8'));
  return { nameCarriesToken, exists: true, holdsSnapshot: JSON.stringify(content) === JSON.stringify(row.snapshot) };
}

// ---- GET reads the table --------------------------------------------------------------

export interface TableReadEvidence {
  timings: string;
  /** A job submitted over HTTP, read back after the API restarted and after its row changed underneath. */
  afterRestart: { status: number; state: unknown };
  afterRowChanged: { status: number; state: unknown; attempts: unknown };
  /** A job inserted without HTTP (as lesson 12's outbox or a script would): the API must see it too. */
  insertedElsewhere: { status: number; state: unknown };
  /** A well-formed id with no row. */
  unknownId: { status: number; error: unknown };
}

const NO_SUCH_JOB = '00000000-0000-4000-8000-000000000000';

export function tableRead(setup: PipelineSetup): (signal: AbortSignal) => Promise<TableReadEvidence> {
  return (signal) =>
    withPipeline(signal, setup, async ({ pool, api, timings }) => {
      const submitted = await post(api.url, { product_ids: [3] });
      const jobId = String(submitted.body.id);
      await api.restart();
      const afterRestart = await get(api.url, jobId);
      // The row changes with no HTTP request at all: a claim, as a worker would make it.
      await claim(pool, jobId, { leaseMs: 30_000, maxAttempts: timings.maxAttempts });
      const afterRowChanged = await get(api.url, jobId);
      const elsewhere = await submitSnapshot(pool, [1], { deadlineMs: timings.deadlineMs });
      const insertedElsewhere = await get(api.url, elsewhere.jobId);
      const unknownId = await get(api.url, NO_SUCH_JOB);
      return {
        timings: describeTimings(timings),
        afterRestart: { status: afterRestart.status, state: afterRestart.body.status },
        afterRowChanged: {
          status: afterRowChanged.status,
          state: afterRowChanged.body.status,
          attempts: afterRowChanged.body.attempts,
        },
        insertedElsewhere: { status: insertedElsewhere.status, state: insertedElsewhere.body.status },
        unknownId: { status: unknownId.status, error: unknownId.body.error },
      };
    });
}

// ---- idempotent submission ----------------------------------------------------------------

export interface IdempotencyEvidence {
  timings: string;
  first: { status: number; id: unknown };
  /** The same key, the same body: a client retrying after a lost answer. */
  retry: { status: number; id: unknown; replayed: boolean };
  /** The same key, another body. */
  otherBody: { status: number; error: unknown };
  /** Rows in the table carrying the key. */
  rowsWithKey: number;
}

export function idempotentSubmission(setup: PipelineSetup): (signal: AbortSignal) => Promise<IdempotencyEvidence> {
  return (signal) =>
    withPipeline(signal, setup, async ({ pool, api, timings }) => {
      const key = `check-${randomBytes(8).toString('hex')}`;
      const first = await post(api.url, { product_ids: [1, 2] }, { 'Idempotency-Key': key });
      const retry = await post(api.url, { product_ids: [1, 2] }, { 'Idempotency-Key': key });
      const otherBody = await post(api.url, { product_ids: [3] }, { 'Idempotency-Key': key });
      const [rows] = await pool.query<RowDataPacket[]>(
        'SELECT COUNT(*) AS n FROM export_jobs WHERE idempotency_key = ?',
        [key],
      );
      return {
        timings: describeTimings(timings),
        first: { status: first.status, id: first.body.id },
        retry: {
          status: retry.status,
          id: retry.body.id,
          replayed: retry.headers.get('idempotent-replayed') === 'true',
        },
        otherBody: { status: otherBody.status, error: otherBody.body.error },
        rowsWithKey: Number(rows[0]?.n ?? -1),
      };
    });
}

// ---- BullMQ's "completed" means delivered -------------------------------------------------

export interface DeliveredEvidence {
  timings: string;
  /** A wake-up for a job this experiment holds the lease of (a second worker's duplicate delivery). */
  heldElsewhere: {
    bullState: BullState | 'unknown';
    returned: DeliveryOutcome | undefined;
    rowState: string | undefined;
    rowAttempts: number | undefined;
  };
  /** A wake-up for a job that already succeeded (a late duplicate). */
  alreadyDone: {
    bullState: BullState | 'unknown';
    returned: DeliveryOutcome | undefined;
    rowState: string | undefined;
    attemptsBefore: number | undefined;
    attemptsAfter: number | undefined;
  };
}

export function completedMeansDelivered(setup: PipelineSetup): (signal: AbortSignal) => Promise<DeliveredEvidence> {
  return (signal) =>
    withPipeline(signal, setup, async ({ pool, queue, timings, startWorker }) => {
      await startWorker();
      const waitMs = finishWithinMs(timings);
      // 1. The experiment claims a job itself, with a long lease, then wakes a worker for it.
      const held = await submitSnapshot(pool, [4], { deadlineMs: timings.deadlineMs });
      await claim(pool, held.jobId, { leaseMs: 60_000, maxAttempts: timings.maxAttempts });
      const heldWake = await wakeWorker(queue, held.jobId);
      const heldFinal = await waitForFinalState(queue, heldWake.id!, { timeoutMs: waitMs, signal });
      const heldRow = await readJob(pool, held.jobId);
      // 2. A job runs to success; then a duplicate wake-up arrives.
      const done = await submitSnapshot(pool, [5], { deadlineMs: timings.deadlineMs });
      await wakeWorker(queue, done.jobId);
      const before = await waitForTerminalRow(pool, done.jobId, waitMs, signal);
      const lateWake = await wakeWorker(queue, done.jobId);
      const lateFinal = await waitForFinalState(queue, lateWake.id!, { timeoutMs: waitMs, signal });
      const after = await readJob(pool, done.jobId);
      return {
        timings: describeTimings(timings),
        heldElsewhere: {
          bullState: heldFinal.state,
          returned: heldFinal.job.returnvalue ?? undefined,
          rowState: heldRow?.status,
          rowAttempts: heldRow?.attempts,
        },
        alreadyDone: {
          bullState: lateFinal.state,
          returned: lateFinal.job.returnvalue ?? undefined,
          rowState: after?.status,
          attemptsBefore: before?.attempts,
          attemptsAfter: after?.attempts,
        },
      };
    });
}
