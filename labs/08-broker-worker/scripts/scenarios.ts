// Lesson 08's experiments, against the lab's real Redis (127.0.0.1 on brokerPort(), prefix
// tasks-lab08) with workers, the CLI and the dashboard in their own OS processes. Each
// scenario does one thing and returns what it saw as typed evidence; scripts/checks.ts
// judges it. Everything a scenario starts (processes, queues, connections) belongs to
// a withResources scope tied to the check's signal: on a timeout it is all closed at
// once, so the next check starts clean.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  MAX_MESSAGE_BYTES,
  MessageContractError,
  messageOfSize,
  sampleMessage,
  type ExportMessage,
} from '@tasks-lab/07-choosing-executors';
import { countLeakedSecrets } from '@tasks-lab/infra';
import {
  errorMessage,
  launchProcess,
  sleep,
  startTsProcess,
  waitFor,
  withResources,
  type LabProcess,
  type Resources,
} from '@tasks-lab/lab-kit';
import type { JobState } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { ARTIFACTS_DIR, LAB_DIR, sha256, type ArtifactResult } from '../src/artifacts.ts';
import { describeBroker, exportsAddress, jobKey } from '../src/broker.ts';
import type { ExportJob, ExportsQueue, Retention } from '../src/producer.ts';
import { enqueue, openQueue, waitForFinalState } from '../src/queue-layer.ts';
import { oneProductSnapshot } from '../src/submit.ts';

/** The producer a scenario uses (enqueueExport unless a can-fail test breaks it). */
export type Enqueue = (queue: ExportsQueue, message: unknown, retention?: Retention) => Promise<ExportJob>;

/** The parts of the lab the scenarios run. A can-fail test swaps one for a broken variant. */
export interface LabParts {
  /** "exports" for verify; tests pass a queue of their own. */
  queueName: string;
  /** The authenticated connection (brokerConnection()). */
  connection: RedisOptions;
  enqueue: Enqueue;
  /** The worker's entry file, relative to the lab folder (src/worker.ts). */
  workerScript: string;
  /** The dashboard's entry file (src/server.ts). */
  serverScript: string;
}

export const WORKER_READY = /worker (\d+) ready: queue (\S+), concurrency (\d+), registered: (.+)/;
const DASHBOARD_READY = /dashboard on (http:\/\/127\.0\.0\.1:\d+)\/admin\/queues/;
/** A name no worker registers: what a mistyped or outdated producer would send. */
export const UNKNOWN_JOB_NAME = 'products.unknown';
const WAIT_MS = 30_000;

// ---- shared steps -------------------------------------------------------------------

/**
 * A client that fails at once (no retries, no offline queue), owned by the scope. It
 * resolves once connected; a refused connection rejects with Redis's own reason.
 */
function quickClient(res: Resources, options: RedisOptions): Promise<Redis> {
  // No ready check: it would send INFO first, and a refused INFO hides the NOAUTH reply we want to see.
  const client = new Redis({
    ...options,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    enableReadyCheck: false,
  });
  client.on('error', () => {});
  res.add(client, (c) => c.disconnect());
  return client.connect().then(() => client);
}

async function openExportsQueue(res: Resources, parts: LabParts, queueName = parts.queueName): Promise<ExportsQueue> {
  return res.add(await openQueue(exportsAddress(queueName), { connection: parts.connection }), (queue) =>
    queue.close(),
  );
}

function launchWorker(res: Resources, parts: LabParts, queueName = parts.queueName): Promise<LabProcess> {
  return launchProcess(parts.workerScript, {
    cwd: LAB_DIR,
    env: { EXPORTS_QUEUE: queueName },
    ready: WORKER_READY,
    resources: res,
  });
}

/** Fails clearly when some other worker (a `pnpm worker` left running) consumes the queue. */
async function assertNoOtherWorkers(queue: ExportsQueue): Promise<void> {
  const count = await queue.getWorkersCount();
  if (count > 0)
    throw new Error(`${count} worker(s) already consume queue "${queue.name}"; stop your own \`pnpm worker\` first`);
}

/** A command's reply, or the first line of the error that refused it. */
export type Answer = { reply: string } | { refused: string };

async function ask(command: () => Promise<unknown>): Promise<Answer> {
  try {
    return { reply: String(await command()) };
  } catch (err) {
    return { refused: errorMessage(err).split('\n')[0] ?? '' };
  }
}

// ---- 1. the broker --------------------------------------------------------------------

export interface BrokerEvidence {
  /** describeBroker(): where, which prefix, whether a password is set. */
  where: string;
  pingWithPassword: Answer;
  /** PING from a client that sends no password at all. */
  pingWithoutPassword: Answer;
  appendonly: Answer;
  maxmemoryPolicy: Answer;
}

export function askBroker(parts: LabParts, signal: AbortSignal): Promise<BrokerEvidence> {
  return withResources(signal, async (res) => {
    const { password: _password, username: _username, ...anonymous } = parts.connection;
    const withPassword = quickClient(res, parts.connection);
    const withoutPassword = quickClient(res, anonymous);
    // Both connect at once; each answer below reports its own refusal.
    for (const connecting of [withPassword, withoutPassword]) connecting.catch(() => {});
    const configValue = async (name: string) => ((await (await withPassword).config('GET', name)) as string[])[1];
    return {
      where: describeBroker(parts.connection),
      pingWithPassword: await ask(async () => (await withPassword).ping()),
      pingWithoutPassword: await ask(async () => (await withoutPassword).ping()),
      appendonly: await ask(() => configValue('appendonly')),
      maxmemoryPolicy: await ask(() => configValue('maxmemory-policy')),
    };
  });
}

// ---- 2. one round trip: worker process, producer, result, file ---------------------------

export interface SettledJob {
  id: string;
  state: JobState;
  failedReason: string;
  attemptsMade: number;
}

export interface RoundTripEvidence {
  verifyPid: number;
  worker: { pid: number; ready: { pid: number; queue: string; concurrency: number; registered: string[] } };
  /** How many workers Redis lists on this prefix and queue while ours runs (BullMQ reads CLIENT LIST). */
  workersListedByRedis: number;
  message: ExportMessage;
  /** The job as Redis holds it after it settled. */
  job: SettledJob & { result?: ArtifactResult; removeOnComplete?: unknown; removeOnFail?: unknown };
  /** TTL of the job's Redis key right after it settled (-1: no expiry). */
  keyTtl: number;
  /** The file the result points at. */
  file: { exists: boolean; content?: unknown; sha256?: string };
  /** A job named UNKNOWN_JOB_NAME, allowed 3 attempts (as a producer with retries would). */
  unknownName: SettledJob & { attemptsAllowed: number };
  /** Jobs that skipped the producer's contract check, and whether the worker wrote a file for them. */
  bypassed: Array<SettledJob & { label: string; fileWritten: boolean }>;
}

function settled(job: { id?: string; failedReason?: string; attemptsMade: number }, state: JobState): SettledJob {
  return { id: job.id ?? '?', state, failedReason: job.failedReason ?? '', attemptsMade: job.attemptsMade };
}

/**
 * A worker process on the queue; one snapshot submitted through the producer and
 * followed to its end; then what an outdated or careless producer could send: a job
 * name no one registered, and messages that never went through the contract check.
 */
export function roundTrip(parts: LabParts, signal: AbortSignal): Promise<RoundTripEvidence> {
  return withResources(signal, async (res) => {
    const queue = await openExportsQueue(res, parts);
    await assertNoOtherWorkers(queue);
    const worker = await launchWorker(res, parts);
    const [, pid = '', queueName = '', concurrency = '', registered = ''] = await worker.waitForOutput(WORKER_READY);
    const workersListedByRedis = await queue.getWorkersCount();

    const message = oneProductSnapshot();
    const submitted = await parts.enqueue(queue, message);
    const done = await waitForFinalState(queue, submitted.id ?? '', { signal: res.signal, timeoutMs: WAIT_MS });
    const redis = await quickClient(res, parts.connection);
    const keyTtl = await redis.ttl(jobKey(parts.queueName, done.job.id ?? ''));
    const result = done.job.returnvalue ?? undefined;

    // A producer with no contract and free job names: what the worker must defend against.
    const careless = res.add(
      await openQueue<unknown, unknown, string>(exportsAddress(parts.queueName), { connection: parts.connection }),
      (q) => q.close(),
    );
    const kept = { removeOnComplete: { age: 60 }, removeOnFail: { age: 600 } };
    const addCarelessly = async (name: string, data: unknown, attempts = 1) => {
      const job = await enqueue(careless, name, data, { jobId: randomUUID(), jobOptions: { ...kept, attempts } });
      const end = await waitForFinalState(careless, job.id ?? '', { signal: res.signal, timeoutMs: WAIT_MS });
      return { ...settled(end.job, end.state), attemptsAllowed: attempts };
    };
    const unknownName = await addCarelessly(UNKNOWN_JOB_NAME, oneProductSnapshot(), 3);
    const withCredentials = { ...oneProductSnapshot(), password: 'not-a-real-secret' };
    const pathLikeId = { ...oneProductSnapshot(), job_id: '../../etc/passwd' };
    const bypassed: RoundTripEvidence['bypassed'] = [];
    for (const [label, data] of [
      ['credential field', withCredentials],
      ['path-like id', pathLikeId],
    ] as const) {
      const end = await addCarelessly('products.export', data);
      bypassed.push({ ...end, label, fileWritten: existsSync(join(ARTIFACTS_DIR, `${data.job_id}.json`)) });
    }

    return {
      verifyPid: process.pid,
      worker: {
        pid: worker.pid,
        ready: {
          pid: Number(pid),
          queue: queueName,
          concurrency: Number(concurrency),
          registered: registered.trim().split(/,\s*/),
        },
      },
      workersListedByRedis,
      message,
      job: {
        ...settled(done.job, done.state),
        result,
        removeOnComplete: done.job.opts.removeOnComplete,
        removeOnFail: done.job.opts.removeOnFail,
      },
      keyTtl,
      file: readArtifact(result),
      unknownName,
      bypassed,
    };
  });
}

function readArtifact(result: ArtifactResult | undefined): RoundTripEvidence['file'] {
  const file = result ? join(LAB_DIR, result.path) : undefined;
  if (!file || !existsSync(file)) return { exists: false };
  const bytes = readFileSync(file);
  return { exists: true, content: JSON.parse(bytes.toString('utf8')) as unknown, sha256: sha256(bytes) };
}

// ---- 3. the producer refuses bad messages -------------------------------------------------

export interface RefusalEvidence {
  jobsBefore: number;
  jobsAfter: number;
  /** Per message: the contract's problem code, "accepted", or "unexpected: <error>". */
  answers: Array<{ label: string; answer: string }>;
}

export function refusedBeforeRedis(parts: LabParts, signal: AbortSignal): Promise<RefusalEvidence> {
  return withResources(signal, async (res) => {
    const queue = await openExportsQueue(res, parts);
    const jobsBefore = await queue.count();
    const messages = [
      ['credential field', { ...sampleMessage(1), password: 'not-a-real-secret' }],
      ['path-like id', { ...sampleMessage(1), job_id: '../../etc/passwd' }],
      ['oversized', messageOfSize(MAX_MESSAGE_BYTES + 10)],
    ] as const;
    const answers: RefusalEvidence['answers'] = [];
    for (const [label, message] of messages) {
      try {
        await parts.enqueue(queue, message);
        answers.push({ label, answer: 'accepted' });
      } catch (err) {
        answers.push({
          label,
          answer: err instanceof MessageContractError ? err.problem : `unexpected: ${errorMessage(err)}`,
        });
      }
    }
    return { jobsBefore, jobsAfter: await queue.count(), answers };
  });
}

// ---- 4. removal is lazy ------------------------------------------------------------------

/** A 1 s lifetime instead of an hour, and a wait well past it. */
export const LAZY_REMOVAL = { ageSeconds: 1, waitMs: 2500 } as const;

export interface LazyRemovalEvidence {
  ageSeconds: number;
  waitedMs: number;
  /** The first job's state after its age had passed, before anything else happened. */
  stateWhenExpired: string;
  /** Its state right after a second job completed. */
  stateAfterNextJob: string;
}

export function lazyRemoval(parts: LabParts, signal: AbortSignal): Promise<LazyRemovalEvidence> {
  // A queue of its own: the age of the job that finishes is applied to the whole
  // completed list, so a 1 s rule on "exports" would also sweep its 1 h results.
  const queueName = `${parts.queueName}-lazy-removal`;
  return withResources(signal, async (res) => {
    const queue = await openExportsQueue(res, parts, queueName);
    res.defer(() => queue.obliterate({ force: true }));
    await assertNoOtherWorkers(queue);
    await launchWorker(res, parts, queueName);
    const shortLived: Retention = { removeOnComplete: { age: LAZY_REMOVAL.ageSeconds }, removeOnFail: { age: 600 } };
    const first = await parts.enqueue(queue, oneProductSnapshot(), shortLived);
    await waitForFinalState(queue, first.id ?? '', { states: ['completed'], signal: res.signal, timeoutMs: WAIT_MS });
    await sleep(LAZY_REMOVAL.waitMs, res.signal);
    const stateWhenExpired = await queue.getJobState(first.id ?? '');
    const second = await parts.enqueue(queue, oneProductSnapshot(), shortLived);
    await waitForFinalState(queue, second.id ?? '', { states: ['completed'], signal: res.signal, timeoutMs: WAIT_MS });
    // BullMQ sweeps old results inside the script that completes the next job.
    return {
      ageSeconds: LAZY_REMOVAL.ageSeconds,
      waitedMs: LAZY_REMOVAL.waitMs,
      stateWhenExpired,
      stateAfterNextJob: await queue.getJobState(first.id ?? ''),
    };
  });
}

// ---- 5. the fault drill: no worker running ---------------------------------------------------

export interface StoppedWorkerEvidence {
  firstWorkerPid: number;
  firstWorkerExit: string;
  workersListedAfterKill: number;
  waitSeconds: number;
  cliExitCode: number | null;
  /** The id the CLI printed (`submitted <id> ...`). */
  jobId?: string;
  /** The CLI's explanation of the timeout, if it gave one. */
  cliTimeoutLine?: string;
  stateWhileStopped: string;
  secondWorkerPid?: number;
  finalState?: string;
  resultJobId?: string;
}

/** Kill the worker, submit through the CLI, let its wait run out, start a new worker. */
export function stoppedWorker(
  parts: LabParts,
  waitSeconds: number,
  signal: AbortSignal,
): Promise<StoppedWorkerEvidence> {
  return withResources(signal, async (res) => {
    const queue = await openExportsQueue(res, parts);
    await assertNoOtherWorkers(queue);
    const first = await launchWorker(res, parts);
    const firstExit = await first.kill('SIGKILL');
    // A killed process's sockets close with it; Redis then lists no worker.
    const workersListedAfterKill = await waitFor('Redis to list no worker', async () => {
      const count = await queue.getWorkersCount();
      return count === 0 ? { count } : undefined;
    }).then(
      ({ count }) => count,
      () => -1,
    );

    const cli = res.add(
      startTsProcess('src/submit.ts', {
        cwd: LAB_DIR,
        args: ['--timeout-s', String(waitSeconds)],
        env: { EXPORTS_QUEUE: parts.queueName },
      }),
      (p) => p.kill('SIGKILL'),
    );
    const cliExit = await cli.exited;
    res.throwIfAborted(); // a CLI killed by the clean-up says nothing about the lesson
    const printed = cli.output();
    const jobId = /submitted (\S+)/.exec(printed)?.[1];
    const evidence: StoppedWorkerEvidence = {
      firstWorkerPid: first.pid,
      firstWorkerExit: firstExit.signal ?? `code ${firstExit.code}`,
      workersListedAfterKill,
      waitSeconds,
      cliExitCode: cliExit.code,
      jobId,
      cliTimeoutLine: /no result within .*/.exec(printed)?.[0],
      stateWhileStopped: jobId ? await queue.getJobState(jobId) : 'no id printed',
    };
    if (!jobId) return evidence;

    const second = await launchWorker(res, parts);
    const end = await waitForFinalState(queue, jobId, { signal: res.signal, timeoutMs: WAIT_MS });
    return {
      ...evidence,
      secondWorkerPid: second.pid,
      finalState: end.state,
      resultJobId: end.job.returnvalue?.job_id,
    };
  });
}

// ---- 6. the dashboard ----------------------------------------------------------------------

export interface DashboardEvidence {
  pageStatus: number;
  pageContentType: string;
  pageIsHtml: boolean;
  apiStatus: number;
  queues: Array<{ name: string; readOnlyMode: boolean }>;
}

export function dashboard(parts: LabParts, signal: AbortSignal): Promise<DashboardEvidence> {
  return withResources(signal, async (res) => {
    const server = await launchProcess(parts.serverScript, {
      cwd: LAB_DIR,
      env: { PORT: '0', EXPORTS_QUEUE: parts.queueName },
      ready: DASHBOARD_READY,
      resources: res,
    });
    const [, base] = await server.waitForOutput(DASHBOARD_READY);
    const page = await fetch(`${base}/admin/queues`, { signal: res.signal });
    const html = await page.text();
    const api = await fetch(`${base}/admin/queues/api/queues`, { signal: res.signal });
    const body = (await api.json()) as { queues?: Array<{ name: string; readOnlyMode?: boolean }> };
    return {
      pageStatus: page.status,
      pageContentType: page.headers.get('content-type') ?? '',
      pageIsHtml: /<html/i.test(html),
      apiStatus: api.status,
      queues: (body.queues ?? []).map((q) => ({ name: q.name, readOnlyMode: q.readOnlyMode === true })),
    };
  });
}

// ---- 7. what the lab's processes print ----------------------------------------------------------

export interface PrintedEvidence {
  /** Per process: how much it printed and how many of the generated passwords appear in it. */
  outputs: Array<{ source: string; chars: number; secretsFound: number }>;
}

/** Runs what a student runs (broker:check, a worker, a submit) and scans their output for the passwords. */
export function printedOutputs(parts: LabParts, signal: AbortSignal): Promise<PrintedEvidence> {
  return withResources(signal, async (res) => {
    const run = async (script: string, args: string[] = []) => {
      const proc = res.add(
        startTsProcess(script, { cwd: LAB_DIR, args, env: { EXPORTS_QUEUE: parts.queueName } }),
        (p) => p.kill('SIGKILL'),
      );
      await proc.exited;
      return proc.output();
    };
    const brokerCheck = await run('scripts/broker-check.ts');
    const worker = await launchWorker(res, parts);
    const submit = await run('src/submit.ts', ['--timeout-s', String(WAIT_MS / 1000)]);
    await worker.waitForOutput(/completed products\.export/, WAIT_MS).catch(() => undefined);
    const outputs = [
      ['pnpm broker:check', brokerCheck],
      ['pnpm worker', worker.output()],
      ['pnpm submit', submit],
    ] as const;
    return {
      outputs: outputs.map(([source, text]) => ({
        source,
        chars: text.length,
        secretsFound: countLeakedSecrets(text),
      })),
    };
  });
}
