// Lesson 08's learning checks and fault drill, against the lab's real Redis
// (127.0.0.1:6384, prefix tasks-lab08) with workers in their own OS processes.
// buildChecks(deps) lets the can-fail tests swap in a producer without the business
// job id, a worker that writes the wrong file, a connection without the password,
// or a producer that forgets the retention option.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { MessageContractError, messageOfSize, sampleMessage, MAX_MESSAGE_BYTES } from '@tasks-lab/07-choosing-executors';
import { loadCredentials, redisOptions } from '@tasks-lab/infra';
import { fail, outcome, pass, sleep, startTsProcess, waitFor, type Check, type LabProcess } from '@tasks-lab/lab-kit';
import type { Queue, QueueEvents } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { InvalidArtifactIdError, type ArtifactResult, LAB_DIR, sha256, writeArtifact } from '../src/artifacts.ts';
import {
  brokerConnection,
  describeBroker,
  EXPORT_JOB_NAME,
  EXPORTS_QUEUE,
  FAILED_RESULT_TTL_SECONDS,
  jobKey,
  QUEUE_PREFIX,
  readBrokerSettings,
  RESULT_TTL_SECONDS,
} from '../src/broker.ts';
import { enqueueExport, openExportsEvents, openExportsQueue, type QueuedExport } from '../src/producer.ts';
import { oneProductSnapshot } from '../src/submit.ts';
import type { ExportMessage } from '@tasks-lab/07-choosing-executors';

type ExportsQueue = Queue<ExportMessage, ArtifactResult>;
export type Enqueue = (queue: ExportsQueue, message: unknown) => Promise<QueuedExport>;

export interface CheckDeps {
  /** @defaultValue "exports" (tests pass a unique name) */
  queueName?: string;
  /** The authenticated connection. @defaultValue brokerConnection() */
  connection?: RedisOptions;
  /** Turns the connection into one without credentials. @defaultValue drops the password */
  withoutPassword?: (options: RedisOptions) => RedisOptions;
  /** The producer. @defaultValue enqueueExport */
  enqueue?: Enqueue;
  /** The worker entry point, relative to the lab folder. @defaultValue src/worker.ts */
  workerScript?: string;
  /** How long the drill's CLI waits, in seconds. @defaultValue 2 */
  drillWaitSeconds?: number;
}

const READY = /worker (\d+) ready: queue (\S+), concurrency (\d+), registered: (.+)/;
const RESULT_WAIT_MS = 30_000;

/** Everything the lab's processes printed and every observation, for the secret scan. */
type Transcript = string[];

export function buildChecks(deps: CheckDeps = {}): Check[] {
  const queueName = deps.queueName ?? EXPORTS_QUEUE;
  const connection = deps.connection ?? brokerConnection();
  const transcript: Transcript = [];
  const ctx: Ctx = {
    queueName,
    connection,
    enqueue: deps.enqueue ?? enqueueExport,
    workerScript: deps.workerScript ?? 'src/worker.ts',
    transcript,
    roundTrip: undefined,
  };
  const checks: Check[] = [
    pingCheck(connection),
    noAuthCheck(connection, deps.withoutPassword ?? dropPassword),
    persistenceCheck(connection),
    settingsSourceCheck(connection),
    workerRegistrationCheck(ctx),
    unknownJobNameCheck(ctx),
    sameIdCheck(ctx),
    artifactCheck(ctx),
    refusedBeforeRedisCheck(ctx),
    retentionCheck(ctx),
    lazyRemovalCheck(ctx),
    stoppedWorkerDrill(ctx, deps.drillWaitSeconds ?? 2),
    dashboardCheck(ctx),
    noSecretCheck(transcript),
  ];
  // Every observation goes into the transcript too, so the last check scans it.
  return checks.map((check) => ({
    ...check,
    run: async () => {
      const result = await check.run();
      transcript.push(result.observed);
      return result;
    },
  }));
}

interface Ctx {
  queueName: string;
  connection: RedisOptions;
  enqueue: Enqueue;
  workerScript: string;
  transcript: Transcript;
  /** One submit-and-wait shared by the checks that read its result (started by the first of them). */
  roundTrip: Promise<RoundTrip> | undefined;
}

const dropPassword = (options: RedisOptions): RedisOptions => {
  const { password: _password, ...rest } = options;
  return rest;
};

const short = (id: string | undefined) => (id ?? '?').slice(0, 8);

// ---- helpers -------------------------------------------------------------------

async function withClient<T>(options: RedisOptions, use: (client: Redis) => Promise<T>): Promise<T> {
  // No retries and no offline queue: a refused command fails at once instead of hanging.
  // No ready check either: it would send INFO first, and a refused INFO hides the NOAUTH reply we want to show.
  const client = new Redis({
    ...options,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    enableReadyCheck: false,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return await use(client);
  } finally {
    client.disconnect();
  }
}

async function withQueue<T>(
  ctx: Ctx,
  use: (queue: ExportsQueue, events: QueueEvents) => Promise<T>,
  queueName = ctx.queueName,
): Promise<T> {
  const queue = openExportsQueue(queueName, ctx.connection);
  const events = openExportsEvents(queueName, ctx.connection);
  try {
    await events.waitUntilReady();
    return await use(queue, events);
  } finally {
    await events.close();
    await queue.close();
  }
}

interface StartedWorker {
  process: LabProcess;
  ready: RegExpMatchArray;
}

async function startWorker(ctx: Ctx, queueName = ctx.queueName): Promise<StartedWorker> {
  const worker = startTsProcess(ctx.workerScript, { cwd: LAB_DIR, env: { EXPORTS_QUEUE: queueName } });
  try {
    const ready = await worker.waitForOutput(READY, RESULT_WAIT_MS);
    return { process: worker, ready };
  } catch (err) {
    await stopWorker(ctx, worker);
    throw err;
  }
}

async function stopWorker(ctx: Ctx, worker: LabProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!worker) return;
  await worker.kill(signal);
  ctx.transcript.push(worker.output());
}

/** Fails clearly when some other worker (a `pnpm worker` left running) consumes the queue. */
async function assertNoOtherWorkers(queue: ExportsQueue): Promise<void> {
  const count = await queue.getWorkersCount();
  if (count > 0) {
    throw new Error(`${count} worker(s) already consume queue "${queue.name}"; stop your own \`pnpm worker\` first`);
  }
}

// ---- the broker ------------------------------------------------------------------

function pingCheck(connection: RedisOptions): Check {
  return {
    name: 'PING answers PONG with the generated password (the lab Redis on 6384)',
    run: async () => {
      try {
        const reply = await withClient(connection, (client) => client.ping());
        return outcome(reply === 'PONG', `PING -> ${reply} from ${describeBroker(connection)}`);
      } catch (err) {
        return fail(`PING was refused: ${(err as Error).message} (${describeBroker(connection)})`);
      }
    },
  };
}

function noAuthCheck(connection: RedisOptions, withoutPassword: (o: RedisOptions) => RedisOptions): Check {
  return {
    name: 'a client without the password is refused with NOAUTH',
    run: async () => {
      const anonymous = withoutPassword(connection);
      try {
        const reply = await withClient(anonymous, (client) => client.ping());
        return fail(`a client with ${anonymous.password ? 'a password' : 'no password'} got ${reply}: the broker is open`);
      } catch (err) {
        const message = (err as Error).message;
        return outcome(/NOAUTH/.test(message), `PING without a password -> ${message.split('\n')[0]}`);
      }
    },
  };
}

function persistenceCheck(connection: RedisOptions): Check {
  return {
    name: 'the broker persists and never evicts: appendonly yes, maxmemory-policy noeviction',
    run: async () => {
      const settings = await withClient(connection, readBrokerSettings);
      return outcome(
        settings.appendonly === 'yes' && settings.maxmemoryPolicy === 'noeviction',
        `CONFIG GET appendonly -> ${settings.appendonly}, maxmemory-policy -> ${settings.maxmemoryPolicy}`,
      );
    },
  };
}

function settingsSourceCheck(connection: RedisOptions): Check {
  return {
    name: 'the connection settings come from @tasks-lab/infra and print no password',
    run: () => {
      const infra = redisOptions();
      const password = loadCredentials().redisPassword;
      const same = connection.host === infra.host && connection.port === infra.port && connection.password === infra.password;
      const description = describeBroker(connection);
      const leaks = description.includes(password);
      return outcome(
        same && !leaks && QUEUE_PREFIX === 'tasks-lab08',
        `${same ? 'same host, port and password as' : 'DIFFERENT from'} redisOptions(); printed form: "${leaks ? '<contains the password>' : description}"`,
      );
    },
  };
}

// ---- the worker and the producer ----------------------------------------------------

interface RoundTrip {
  message: ExportMessage;
  job: QueuedExport;
  result?: ArtifactResult;
  error?: string;
  ready: RegExpMatchArray;
  workerPid: number;
  /** The job's Redis key TTL right after completion (-1: no expiry). */
  keyTtl: number;
  stateAfter: string;
  unknownName?: { failedReason: string; state: string };
}

/**
 * One real round trip: a worker process, a submitted one-product snapshot, the
 * result through QueueEvents; then a job with a name no one registered.
 */
function roundTrip(ctx: Ctx): Promise<RoundTrip> {
  ctx.roundTrip ??= withQueue(ctx, async (queue, events) => {
    await assertNoOtherWorkers(queue);
    const worker = await startWorker(ctx);
    try {
      const message = oneProductSnapshot();
      const job = await ctx.enqueue(queue, message);
      const trip: RoundTrip = { message, job, ready: worker.ready, workerPid: worker.process.pid, keyTtl: NaN, stateAfter: '?' };
      try {
        trip.result = await job.waitUntilFinished(events, RESULT_WAIT_MS);
      } catch (err) {
        trip.error = (err as Error).message;
      }
      trip.keyTtl = await withClient(ctx.connection, (client) => client.ttl(jobKey(ctx.queueName, job.id ?? '')));
      trip.stateAfter = await queue.getJobState(job.id ?? '');
      trip.unknownName = await submitUnknownName(queue, events);
      return trip;
    } finally {
      await stopWorker(ctx, worker.process);
    }
  });
  return ctx.roundTrip;
}

async function submitUnknownName(queue: ExportsQueue, events: QueueEvents): Promise<{ failedReason: string; state: string }> {
  // Bypasses the producer on purpose: this is what an old or mistyped producer would send.
  const job = await queue.add('products.unknown' as string, oneProductSnapshot(), { removeOnComplete: { age: 60 }, removeOnFail: { age: 600 } });
  try {
    await job.waitUntilFinished(events, RESULT_WAIT_MS);
    return { failedReason: '(it completed)', state: await job.getState() };
  } catch (err) {
    return { failedReason: (err as Error).message, state: await job.getState() };
  }
}

function workerRegistrationCheck(ctx: Ctx): Check {
  return {
    name: 'a worker in its own process registers products.export with concurrency 2',
    run: async () => {
      const trip = await roundTrip(ctx);
      const [, pid, queue, concurrency, registered] = trip.ready;
      const ownProcess = Number(pid) === trip.workerPid && Number(pid) !== process.pid;
      return outcome(
        ownProcess && queue === ctx.queueName && concurrency === '2' && registered.trim() === EXPORT_JOB_NAME,
        `worker pid ${pid} (verify is pid ${process.pid}) ready on queue ${queue}, concurrency ${concurrency}, registered: ${registered.trim()}`,
      );
    },
  };
}

function unknownJobNameCheck(ctx: Ctx): Check {
  return {
    name: 'the worker refuses an unknown job name clearly',
    run: async () => {
      const unknown = (await roundTrip(ctx)).unknownName;
      if (!unknown) return fail('the round trip did not get as far as the unknown job name');
      return outcome(
        unknown.state === 'failed' && /no processor registered for job name "products\.unknown"/.test(unknown.failedReason),
        `job "products.unknown" -> ${unknown.state}: ${unknown.failedReason}`,
      );
    },
  };
}

function sameIdCheck(ctx: Ctx): Check {
  return {
    name: "the producer's job id is the business job_id; the result has the path and the row count",
    run: async () => {
      const { message, job, result, error } = await roundTrip(ctx);
      if (!result) return fail(`job ${job.id} gave no result: ${error}`);
      const expectedPath = `artifacts/${message.job_id}.json`;
      const ok = job.id === message.job_id && result.job_id === message.job_id && result.path === expectedPath && result.rows === 1;
      return outcome(
        ok,
        `job_id ${short(message.job_id)}…, BullMQ job id ${job.id === message.job_id ? 'the same' : `"${job.id}" (different)`}; result path ${result.path}, rows ${result.rows}`,
      );
    },
  };
}

function artifactCheck(ctx: Ctx): Check {
  return {
    name: 'the artifact file equals the submitted snapshot',
    run: async () => {
      const { message, result, error } = await roundTrip(ctx);
      if (!result) return fail(`no result to find the file by: ${error}`);
      const file = join(LAB_DIR, result.path);
      if (!existsSync(file)) return fail(`${result.path} does not exist`);
      const bytes = readFileSync(file);
      const equal = isDeepStrictEqual(JSON.parse(bytes.toString('utf8')), message.products);
      const hashMatches = sha256(bytes) === result.sha256;
      return outcome(
        equal && hashMatches,
        `${result.path}: ${equal ? 'deep-equals' : 'DIFFERS from'} the ${message.products.length}-product snapshot; sha256 ${hashMatches ? 'matches' : 'does not match'} the result`,
      );
    },
  };
}

function refusedBeforeRedisCheck(ctx: Ctx): Check {
  return {
    name: 'a malformed id, a credential field or an oversized message never reaches Redis or the disk',
    run: () =>
      withQueue(ctx, async (queue) => {
        const before = await queue.count();
        const withCredentials = { ...sampleMessage(1), password: 'not-a-real-secret' };
        const badId = { ...sampleMessage(1), job_id: '../../etc/passwd' };
        const oversized = messageOfSize(MAX_MESSAGE_BYTES + 10);
        const refusals: string[] = [];
        for (const [label, message] of [['credential field', withCredentials], ['path-like id', badId], ['oversized', oversized]] as const) {
          try {
            await ctx.enqueue(queue, message);
            refusals.push(`${label}: ACCEPTED`);
          } catch (err) {
            refusals.push(`${label}: ${err instanceof MessageContractError ? err.problem : `unexpected ${(err as Error).message}`}`);
          }
        }
        const after = await queue.count();
        let pathRefused = false;
        try {
          writeArtifact('../../etc/passwd', []);
        } catch (err) {
          pathRefused = err instanceof InvalidArtifactIdError;
        }
        const strayFile = existsSync(join(LAB_DIR, 'etc', 'passwd.json'));
        const allRefused = refusals.every((r) => !r.includes('ACCEPTED') && !r.includes('unexpected'));
        return outcome(
          allRefused && after === before && pathRefused && !strayFile,
          `${refusals.join(', ')}; jobs in queue ${before} -> ${after}; writeArtifact("../../etc/passwd") ${pathRefused ? 'refused, no file' : 'NOT refused'}`,
        );
      }),
  };
}

function retentionCheck(ctx: Ctx): Check {
  return {
    name: 'results are kept 1 hour (removeOnComplete age 3600); the job key has no Redis TTL',
    run: async () => {
      const { job, keyTtl, stateAfter } = await roundTrip(ctx);
      const onComplete = job.opts.removeOnComplete;
      const onFail = job.opts.removeOnFail;
      const ok =
        isDeepStrictEqual(onComplete, { age: RESULT_TTL_SECONDS }) &&
        isDeepStrictEqual(onFail, { age: FAILED_RESULT_TTL_SECONDS }) &&
        keyTtl === -1 &&
        stateAfter === 'completed';
      return outcome(
        ok,
        `removeOnComplete ${JSON.stringify(onComplete) ?? 'not set'}, removeOnFail ${JSON.stringify(onFail) ?? 'not set'}; ` +
          `after completion the job is ${stateAfter} and TTL of its key is ${keyTtl} (no expiry: BullMQ deletes it itself)`,
      );
    },
  };
}

/** Options for the lazy-removal demonstration: a 1 s lifetime instead of an hour. */
export const LAZY_REMOVAL = { ageSeconds: 1, waitMs: 2500 } as const;

function lazyRemovalCheck(ctx: Ctx): Check {
  // A queue of its own: the age of the job that finishes is applied to the whole
  // completed list, so a 1 s rule here would also sweep the 1 h results in "exports".
  const queueName = `${ctx.queueName}-lazy-removal`;
  return {
    name: 'removal is lazy: an expired result stays until a later job completes',
    run: () =>
      withQueue(
        ctx,
        async (queue, events) => {
          await assertNoOtherWorkers(queue);
          const worker = await startWorker(ctx, queueName);
          try {
            const shortLived = { removeOnComplete: { age: LAZY_REMOVAL.ageSeconds }, removeOnFail: { age: 600 } };
            const first = await queue.add(EXPORT_JOB_NAME, oneProductSnapshot(), shortLived);
            await first.waitUntilFinished(events, RESULT_WAIT_MS);
            await sleep(LAZY_REMOVAL.waitMs); // well past its 1 s age
            const stateWhenExpired = await queue.getJobState(first.id ?? '');
            const second = await queue.add(EXPORT_JOB_NAME, oneProductSnapshot(), shortLived);
            await second.waitUntilFinished(events, RESULT_WAIT_MS);
            // BullMQ sweeps old results inside the script that completes the next job.
            const stateAfterNext = await queue.getJobState(first.id ?? '');
            return outcome(
              stateWhenExpired === 'completed' && stateAfterNext === 'unknown',
              `a job with age ${LAZY_REMOVAL.ageSeconds} s was still "${stateWhenExpired}" after ${LAZY_REMOVAL.waitMs} ms; ` +
                `after the next job completed it was "${stateAfterNext}"`,
            );
          } finally {
            await stopWorker(ctx, worker.process);
            await queue.obliterate({ force: true });
          }
        },
        queueName,
      ),
  };
}

// ---- the fault drill ------------------------------------------------------------

function stoppedWorkerDrill(ctx: Ctx, waitSeconds: number): Check {
  return {
    name: 'drill: with the worker stopped the job waits and the CLI times out; a new worker completes the same id',
    timeoutMs: 120_000,
    run: () =>
      withQueue(ctx, async (queue) => {
        await assertNoOtherWorkers(queue);
        let first: StartedWorker | undefined;
        let second: StartedWorker | undefined;
        try {
          first = await startWorker(ctx);
          await first.process.kill('SIGKILL');
          ctx.transcript.push(first.process.output());
          // A killed process's sockets close with it; Redis then lists no worker.
          await waitFor('Redis to see no worker', async () => (await queue.getWorkersCount()) === 0);

          const submit = startTsProcess('src/submit.ts', {
            cwd: LAB_DIR,
            args: ['--timeout-s', String(waitSeconds)],
            env: { EXPORTS_QUEUE: ctx.queueName },
          });
          const exit = await submit.exited;
          const printed = submit.output();
          ctx.transcript.push(printed);
          const jobId = /submitted (\S+)/.exec(printed)?.[1];
          if (!jobId) return fail(`the CLI printed no job id (exit ${exit.code}): ${printed.trim().slice(0, 200)}`);
          const timedOut = printed.includes(`no result within ${waitSeconds} s; the job is still waiting`);
          const stateWhileStopped = await queue.getJobState(jobId);

          second = await startWorker(ctx);
          const finalState = await waitFor('the job to complete', async () => {
            const state = await queue.getJobState(jobId);
            return state === 'completed' || state === 'failed' ? state : false;
          }, { timeoutMs: RESULT_WAIT_MS });
          const job = await queue.getJob(jobId);
          const sameId = job?.id === jobId && job?.returnvalue?.job_id === jobId;
          return outcome(
            exit.code === 3 && timedOut && stateWhileStopped === 'waiting' && finalState === 'completed' && sameId,
            `worker ${first.process.pid} killed; CLI exit ${exit.code}, said "${timedOut ? `no result within ${waitSeconds} s; the job is still waiting` : 'something else'}"; ` +
              `job ${short(jobId)}… was ${stateWhileStopped}; worker ${second.process.pid} started; job ${finalState} ` +
              `${sameId ? 'under the same id' : 'under a DIFFERENT id'}`,
          );
        } finally {
          await stopWorker(ctx, first?.process, 'SIGKILL');
          await stopWorker(ctx, second?.process);
        }
      }),
  };
}

// ---- the dashboard and the secret --------------------------------------------------

function dashboardCheck(ctx: Ctx): Check {
  return {
    name: 'Bull Board at /admin/queues lists the exports queue',
    run: async () => {
      const server = startTsProcess('src/server.ts', { cwd: LAB_DIR, env: { PORT: '0', EXPORTS_QUEUE: ctx.queueName } });
      try {
        const [, base] = await server.waitForOutput(/dashboard on (http:\/\/127\.0\.0\.1:\d+)\/admin\/queues/, RESULT_WAIT_MS);
        const page = await fetch(`${base}/admin/queues`);
        const html = await page.text();
        const api = await fetch(`${base}/admin/queues/api/queues`);
        const body = await api.text();
        ctx.transcript.push(body);
        const names = (JSON.parse(body) as { queues?: Array<{ name: string; readOnlyMode?: boolean }> }).queues ?? [];
        const listed = names.some((q) => q.name === ctx.queueName);
        const isHtml = (page.headers.get('content-type') ?? '').startsWith('text/html') && /<html/i.test(html);
        return outcome(
          page.status === 200 && isHtml && api.status === 200 && listed,
          `GET /admin/queues -> ${page.status} ${page.headers.get('content-type')}; api/queues -> ${api.status}, queues: ${names.map((q) => `${q.name}${q.readOnlyMode ? ' (read-only)' : ''}`).join(', ') || 'none'}`,
        );
      } finally {
        await server.kill('SIGTERM');
        ctx.transcript.push(server.output());
      }
    },
  };
}

function noSecretCheck(transcript: Transcript): Check {
  return {
    name: 'no output showed the Redis password',
    run: () => {
      const password = loadCredentials().redisPassword;
      const leaks = transcript.filter((text) => text.includes(password)).length;
      const chars = transcript.reduce((sum, text) => sum + text.length, 0);
      if (transcript.length === 0) return fail('nothing was recorded to scan');
      return leaks === 0
        ? pass(`scanned ${transcript.length} outputs (${chars} characters: worker, CLI, dashboard, observations): no password`)
        : fail(`${leaks} of ${transcript.length} outputs contain the password`);
    },
  };
}
