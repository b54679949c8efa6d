// Lesson 12's faults (the course's drills), run for real by verify; scripts/fault-checks.ts judges what they saw.
//
//   brokerDown           a PRIVATE Redis (never the shared one: other labs run at the same
//                        time) is stopped; a job is submitted over HTTP; the job and its
//                        unsent event persist, the publisher reports the failed send within
//                        its bound and stays up; Redis comes back and the event is sent.
//   lostConfirmation     the publisher PROCESS sends an event and dies before confirming it
//                        (fault point after-send, crash); a replacement, started WITHOUT the
//                        fault, sends it again once the claim has passed. Two variants:
//                          'absorbed'     BullMQ still holds the first send's job (same id:
//                                         the event id), so the resend never reaches the worker
//                          'redelivered'  the first send's BullMQ job is removed first (as the
//                                         retention does after an hour), so the worker gets a
//                                         real second delivery, and lesson 11's claim keeps
//                                         the result single
//
// The worker runs in this process (lesson 11's startExportWorker on lab 12's queue), so the
// drill counts every delivery it saw. Each drill uses a queue of its own.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { Redis, type RedisOptions } from 'ioredis';
import { ensureInfra, startPrivateRedis } from '@tasks-lab/infra';
import {
  errorMessage,
  FAULTS_ENV,
  faultPoints,
  faultRule,
  launchProcess,
  sleep,
  waitFor,
  withResources,
  type Resources,
} from '@tasks-lab/lab-kit';
import { openQueue, type ExportJobName } from '@tasks-lab/08-broker-worker';
import { claimConditions } from '../src/claim-conditions.ts';
import {
  claim,
  EXPORT_FAULT_POINTS,
  readJob,
  waitForTerminalRow,
  type DeliveryOutcome,
  type JobRow,
  type WakeUpMessage,
  type WakeUpQueue,
} from '@tasks-lab/11-mysql-leases';
import { freshDatabase, openJobsDatabase } from '../src/database.ts';
import {
  OUTBOX_OPTIONS,
  PUBLISHER_PROCESS_OPTIONS,
  WORKER_PROCESS_OPTIONS,
  describeTimings,
  readShortOutboxOptions,
  type OutboxOptionValues,
} from '../src/options.ts';
import { readEvent, submitWithEvent, type OutboxEvent } from '../src/outbox.ts';
import { openNudgeClient, publishNudge } from '../src/nudge.ts';
import { startPublisher } from '../src/publisher.ts';
import { exportsAddress } from '../src/queue.ts';
import { startServer } from '../src/server.ts';
import { startOutboxWorker } from '../src/worker.ts';

export const PUBLISHER_SCRIPT = fileURLToPath(new URL('../src/publisher-process.ts', import.meta.url));
const PUBLISHER_READY = /publisher \d+ ready/;

/** What a drill needs of a running publisher. */
export interface DrillPublisher {
  close(): Promise<void>;
}

/** Starts a publisher in this process, on the given Redis; `onError` hears every failure it reports. */
export type StartFaultPublisher = (context: {
  pool: Pool;
  connection: RedisOptions;
  timings: OutboxOptionValues;
  onError: (message: string) => void;
}) => Promise<DrillPublisher>;

/** The parts a broken variant may replace; the lab's own are used otherwise. */
export interface FaultParts {
  /** How POST /exports stores a submission. */
  submit: typeof submitWithEvent;
  /** The in-process publisher of the broker-down drill. */
  startPublisher: StartFaultPublisher;
  /** The publisher process of the lost-confirmation drill (a fixture passes an argument naming its broken variant). */
  publisherProcess: { script: string; args?: string[] };
  /** The worker's claim (lesson 11's). */
  workerClaim: typeof claim;
}

export const FAULT_PARTS: FaultParts = {
  submit: submitWithEvent,
  startPublisher: ({ pool, connection, timings, onError }) =>
    startPublisher({ pool, timings, connection, report: onError }),
  publisherProcess: { script: PUBLISHER_SCRIPT },
  workerClaim: claim,
};

export interface FaultSetup {
  parts?: Partial<FaultParts>;
  /** An existing, migrated database (the tests' fresh one). @defaultValue a scratch database per drill, dropped afterwards */
  database?: string;
  /** @defaultValue SHORT_TIMINGS (USE_COURSE_TIMINGS=1 puts the course's back) */
  timings?: OutboxOptionValues;
}

/**
 * The drill's database: the caller's (a test's fresh one), or a scratch database of the
 * drill's own, dropped when the drill ends. Verify's shared database may hold unsent
 * events other checks left behind, and a publisher that dies after its FIRST send must
 * be sending this drill's event, not someone else's.
 */
async function drillDatabase(res: Resources, database: string | undefined): Promise<string> {
  if (database !== undefined) return database;
  const scratch = await freshDatabase('drill');
  res.defer(() => scratch.drop());
  return scratch.name;
}

/** One delivery the worker saw: BullMQ's job id (the event id) and what the claim and finish did. */
export interface Delivery {
  bullJobId: string;
  claimed: boolean;
  published: boolean;
  /** A delivery that claimed nothing: the claim's conditions on the row, read right after it (see CLAIM_CONDITIONS). */
  rowAfterMiss?: string;
}

/** What a counting worker saw: every completed delivery, and what each delivery that threw said. */
interface Seen {
  deliveries: Delivery[];
  /** Resolves once every miss's row has been read (call it before reading the deliveries). */
  settled(): Promise<unknown>;
  /** A delivery that threw is not a completed one; a drill whose job stays queued after one completed delivery must show whether another claimed and failed. */
  failures: string[];
}

/** Lesson 11's worker in this process, on `queueName`, writing into `artifactsDir`; returns every delivery it saw. */
async function startCountingWorker(
  res: Resources,
  artifactsDir: string,
  options: {
    database: string;
    /** Where a miss's row is read (the drill's pool). */
    pool: Pool;
    queueName: string;
    timings: OutboxOptionValues;
    parts: FaultParts;
    connection?: RedisOptions;
  },
): Promise<Seen> {
  const settings = {
    ...WORKER_PROCESS_OPTIONS.defaults(),
    queueName: options.queueName,
    database: options.database,
    artifactsDir,
    concurrency: 2,
  };
  const worker = res.add(
    await startOutboxWorker({
      process: settings,
      lease: options.timings,
      faults: faultPoints(EXPORT_FAULT_POINTS, {}),
      parts: { claim: options.parts.workerClaim },
      connection: options.connection,
      // A drill that stops Redis expects connection errors; the evidence says what happened.
      onError: () => {},
    }),
    (w) => w.close(),
  );
  const reads: Promise<void>[] = [];
  const seen: Seen = { deliveries: [], failures: [], settled: () => Promise.all(reads) };
  worker.worker.on('completed', (job, outcome) => {
    const delivery: Delivery = { bullJobId: String(job.id), claimed: outcome.claimed, published: outcome.published };
    seen.deliveries.push(delivery);
    if (outcome.claimed) return;
    reads.push(
      claimConditions(options.pool, outcome.job_id, options.timings.maxAttempts).then(
        (text) => {
          delivery.rowAfterMiss = text;
        },
        (err: unknown) => {
          delivery.rowAfterMiss = `row not read: ${errorMessage(err).slice(0, 80)}`;
        },
      ),
    );
  });
  worker.worker.on('failed', (_job, err) => seen.failures.push(errorMessage(err).slice(0, 100)));
  return seen;
}

/** A folder for the worker's artifacts, removed with the scope. */
async function artifactFolder(res: Resources): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'lab12-artifacts-'));
  res.defer(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

/** The job's row and its events, as the tables hold them. */
async function readJobAndEvents(
  pool: Pool,
  jobId: string,
): Promise<{ job: JobRow | undefined; events: OutboxEvent[] }> {
  const [rows] = await pool.query<RowDataPacket[]>(
    'SELECT id FROM export_outbox WHERE job_id = ? ORDER BY created_at, id',
    [jobId],
  );
  const events: OutboxEvent[] = [];
  for (const row of rows) {
    const event = await readEvent(pool, String(row.id));
    if (event) events.push(event);
  }
  return { job: await readJob(pool, jobId), events };
}

/** How long a drill waits for a job to finish once its event can be sent. */
const finishWithinMs = (timings: OutboxOptionValues) => 15_000 + 2 * (timings.claimMs + timings.pollMs);

// ---- drill 1: the broker is down when a job is submitted -----------------------------------

export interface BrokerDownEvidence {
  timings: string;
  /** The bound the publisher promises: one poll, then one send that gives up after sendTimeoutMs (plus 1 s for the claim and a busy machine). */
  boundMs: number;
  postStatus: number;
  jobId: string;
  /** Read while Redis was down, after the publisher had time to try. */
  whileDown: {
    jobState: string | undefined;
    events: number;
    unsentEvents: number;
    sendAttempts: number;
    lastError: string | null;
  };
  /** ms from the submission to the publisher's first reported error (null: none within the wait). */
  firstErrorAfterMs: number | null;
  firstError: string | null;
  /** Reports about this job's send while Redis was down. */
  errorsReported: number;
  /** The same publisher, still running: after Redis came back, the event was sent and the job ran. */
  /** deliveryOutcomes: what each completed delivery did ("claimed, published", "not claimed": a claim that found the row taken or not due). */
  afterRestart: {
    eventSent: boolean;
    jobState: string | undefined;
    attempts: number | undefined;
    resultRef: string | null;
    deliveries: number;
    deliveryOutcomes: string[];
    /** What each delivery that threw said (none in a healthy run). */
    failedDeliveries: string[];
  };
}

export function brokerDown(setup: FaultSetup): (signal: AbortSignal) => Promise<BrokerDownEvidence> {
  const parts = { ...FAULT_PARTS, ...setup.parts };
  return (signal) =>
    withResources(signal, async (res) => {
      const timings = setup.timings ?? readShortOutboxOptions();
      await ensureInfra({ services: ['mysql'] });
      const database = await drillDatabase(res, setup.database);
      const redis = res.add(await startPrivateRedis(), (r) => r.close());
      const queueName = `exports-drill-${randomBytes(4).toString('hex')}`;
      const pool = res.add(await openJobsDatabase({ database, settings: timings }), (p) => p.end());
      const { deliveries, failures, settled } = await startCountingWorker(res, await artifactFolder(res), {
        database,
        pool,
        queueName,
        timings,
        parts,
        connection: redis.options(),
      });
      const errors: { at: number; message: string }[] = [];
      res.add(
        await parts.startPublisher({
          pool,
          connection: redis.options(),
          timings,
          onError: (message) => errors.push({ at: Date.now(), message }),
        }),
        (p) => p.close(),
      );
      const nudger = res.add(openNudgeClient(redis.options()), (c) => c.disconnect());
      const api = await startServer(0, {
        pool,
        nudge: () => publishNudge(nudger),
        submit: parts.submit,
        queueName,
        deadlineMs: timings.deadlineMs,
        log: () => {},
      });
      res.defer(() => api.close());

      await redis.crash();
      const submittedAt = Date.now();
      const answer = await fetch(`${api.url}/exports`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ product_ids: [1] }),
      });
      const body = (await answer.json().catch(() => ({}))) as { id?: string };
      const jobId = String(body.id);
      const boundMs = timings.pollMs + timings.sendTimeoutMs + 1000;
      // A submission that wrote NO event (lesson 11's) leaves nothing to send: no report can come
      // about it and the job can never run, and every check of this drill needs that one unsent
      // event. So the drill is decided here: it skips the waits below (they would only run out)
      // and records the rows as they are. A submission that wrote its event waits as always.
      const atSubmit = await readJobAndEvents(pool, jobId);
      const nothingToSend = atSubmit.events.length === 0;
      // Wait past the bound (so a late report is seen as late, not missed), then a little more for the row.
      // Only a report about THIS job's send counts (the nudge subscription reports the outage too).
      const aboutThisJob = (e: { message: string }) => e.message.includes(`job ${jobId}`);
      if (!nothingToSend) {
        await waitFor('the publisher to report the failed send', async () => errors.some(aboutThisJob), {
          timeoutMs: 2 * boundMs,
          intervalMs: 50,
          signal,
        }).catch(() => {});
        await sleep(timings.retryDelayMs, signal);
      }
      const firstError = errors.find(aboutThisJob);
      const down = nothingToSend ? atSubmit : await readJobAndEvents(pool, jobId);
      const lastEvent = down.events.at(-1);

      await redis.restart();
      if (nothingToSend) await waitForWorkerBack(redis.options(), finishWithinMs(timings), signal);
      const final = nothingToSend
        ? await readJob(pool, jobId)
        : await waitForTerminalRow(pool, jobId, finishWithinMs(timings), signal);
      const after = await readJobAndEvents(pool, jobId);
      await settled();
      return {
        timings: describeTimings(timings),
        boundMs,
        postStatus: answer.status,
        jobId,
        whileDown: {
          jobState: down.job?.status,
          events: down.events.length,
          unsentEvents: down.events.filter((e) => e.sentAt === null).length,
          sendAttempts: lastEvent?.sendAttempts ?? 0,
          lastError: lastEvent?.lastError ?? null,
        },
        firstErrorAfterMs: firstError ? firstError.at - submittedAt : null,
        firstError: firstError ? firstError.message.slice(0, 120) : null,
        errorsReported: errors.filter(aboutThisJob).length,
        afterRestart: {
          eventSent: after.events.length > 0 && after.events.every((e) => e.sentAt !== null),
          jobState: final?.status,
          attempts: final?.attempts,
          resultRef: final?.resultRef ?? null,
          deliveries: deliveries.length,
          deliveryOutcomes: deliveries.map(
            (d) =>
              `${d.claimed ? 'claimed' : 'not claimed'}${d.published ? ', published' : ''}` +
              (d.rowAfterMiss ? ` (row then: ${d.rowAfterMiss})` : ''),
          ),
          failedDeliveries: [...failures],
        },
      };
    });
}

/**
 * Waits until the worker is back on Redis after a restart: blocked waiting for wake-ups again
 * (Redis lists a client whose last command is BZPOPMIN). BullMQ retries a lost connection after
 * a second at the least, and a worker closed while it is still reconnecting never finishes
 * closing. A job that runs proves the worker is back; a drill that has no job to run waits for this.
 */
async function waitForWorkerBack(connection: RedisOptions, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const probe = new Redis({ ...connection, maxRetriesPerRequest: 1 });
  probe.on('error', () => {}); // Redis is just back: a refused connection is retried
  try {
    await waitFor(
      'the worker to wait for wake-ups again',
      async () => String(await probe.client('LIST')).includes('cmd=bzpopmin'),
      { timeoutMs, intervalMs: 100, signal },
    );
  } catch (err) {
    // Not back in time: the evidence is decided already (the close that follows may be slow).
    if (signal.aborted) throw err;
  } finally {
    probe.disconnect();
  }
}

// ---- drill 2: the send succeeds, the confirmation is lost -------------------------------------

export type LostConfirmationVariant = 'absorbed' | 'redelivered';

export interface LostConfirmationEvidence {
  timings: string;
  variant: LostConfirmationVariant;
  jobId: string;
  eventId: string;
  /** The first publisher process: it sent, then died at after-send before confirming. */
  crashed: { exitSignal: string | null; eventSentAt: Date | null; sendAttempts: number };
  /** The first send's BullMQ job: removed by the drill before the resend ('redelivered') or kept. */
  firstSendRemoved: boolean;
  /** After the replacement publisher ran. */
  after: { eventSent: boolean; sendAttempts: number; resentAfterClaimPassed: boolean };
  /** Every delivery of this job's wake-ups the worker saw, in order. */
  deliveries: Delivery[];
  /** The job's row before the resend (after the first delivery) and at the end. */
  jobBefore: { state: string | undefined; attempts: number | undefined; resultRef: string | null };
  jobAfter: { state: string | undefined; attempts: number | undefined; resultRef: string | null };
  /** Artifacts in the worker's folder: one per claim that wrote one. */
  artifacts: number;
}

export function lostConfirmation(
  setup: FaultSetup,
  variant: LostConfirmationVariant,
): (signal: AbortSignal) => Promise<LostConfirmationEvidence> {
  const parts = { ...FAULT_PARTS, ...setup.parts };
  return (signal) =>
    withResources(signal, async (res) => {
      const timings = setup.timings ?? readShortOutboxOptions();
      await ensureInfra({ services: ['redis', 'mysql'] });
      const database = await drillDatabase(res, setup.database);
      const queueName = `exports-drill-${randomBytes(4).toString('hex')}`;
      const pool = res.add(await openJobsDatabase({ database, settings: timings }), (p) => p.end());
      const queue = res.add(
        await openQueue<WakeUpMessage, DeliveryOutcome, ExportJobName>(exportsAddress(queueName)),
        async (q) => {
          await q.obliterate({ force: true }).catch(() => {});
          await q.close();
        },
      );
      const artifactsDir = await artifactFolder(res);
      const { deliveries } = await startCountingWorker(res, artifactsDir, {
        database,
        pool,
        queueName,
        timings,
        parts,
      });

      const submitted = await submitWithEvent(pool, [2], { queueName, deadlineMs: timings.deadlineMs });
      const env = { ...OUTBOX_OPTIONS.toEnv(timings), ...PUBLISHER_PROCESS_OPTIONS.toEnv({ database }) };
      // 1. The first publisher sends the event and dies before it can confirm.
      const first = await launchProcess(parts.publisherProcess.script, {
        args: parts.publisherProcess.args,
        ready: PUBLISHER_READY,
        resources: res,
        env: { ...env, [FAULTS_ENV]: faultRule('after-send', 'crash', 'once') },
      });
      const exit = await Promise.race([first.exited, sleep(finishWithinMs(timings), signal).then(() => undefined)]);
      const crashedEvent = await readEvent(pool, submitted.eventId);
      const claimedUntil = crashedEvent?.claimedUntil ?? null;
      // The first send's delivery runs to the end: the row is finished AND BullMQ has moved its job to
      // completed (the row changes inside the handler, a moment before BullMQ records the end). The
      // drill waits for the queue to settle, not for a job with the event id: a publisher that sent
      // under another id (a fresh one per send) has no such job, and the wait would only run out.
      const before = await waitForTerminalRow(pool, submitted.jobId, finishWithinMs(timings), signal);
      await waitForQueueToSettle(queue, finishWithinMs(timings), signal);
      const firstSendRemoved = variant === 'redelivered' ? (await queue.remove(submitted.eventId)) === 1 : false;
      // 2. A replacement, without the fault, finds the unconfirmed event once its claim has passed.
      await launchProcess(parts.publisherProcess.script, {
        args: parts.publisherProcess.args,
        ready: PUBLISHER_READY,
        resources: res,
        env: { ...env, [FAULTS_ENV]: '' },
      });
      await waitFor(
        'the event to be confirmed',
        async () => (await readEvent(pool, submitted.eventId))?.sentAt != null,
        {
          timeoutMs: finishWithinMs(timings),
          intervalMs: 100,
          signal,
        },
      ).catch(() => {});
      await waitForQueueToSettle(queue, finishWithinMs(timings), signal);
      const event = await readEvent(pool, submitted.eventId);
      const after = await readJob(pool, submitted.jobId);
      return {
        timings: describeTimings(timings),
        variant,
        jobId: submitted.jobId,
        eventId: submitted.eventId,
        crashed: {
          exitSignal: exit?.signal ?? null,
          eventSentAt: crashedEvent?.sentAt ?? null,
          sendAttempts: crashedEvent?.sendAttempts ?? 0,
        },
        firstSendRemoved,
        after: {
          eventSent: event?.sentAt != null,
          sendAttempts: event?.sendAttempts ?? 0,
          resentAfterClaimPassed:
            claimedUntil !== null && event?.sentAt != null && event.sentAt.getTime() >= claimedUntil.getTime(),
        },
        deliveries: [...deliveries],
        jobBefore: { state: before?.status, attempts: before?.attempts, resultRef: before?.resultRef ?? null },
        jobAfter: { state: after?.status, attempts: after?.attempts, resultRef: after?.resultRef ?? null },
        artifacts: (await readdir(artifactsDir)).length,
      };
    });
}

/** Waits until the queue has nothing waiting, delayed or active: every delivery that will happen has happened. */
async function waitForQueueToSettle(queue: WakeUpQueue, timeoutMs: number, signal: AbortSignal): Promise<void> {
  await waitFor(
    'the queue to settle',
    async () => {
      const counts = await queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
      return Object.values(counts).every((n) => n === 0);
    },
    { timeoutMs, intervalMs: 100, signal },
  ).catch((err: unknown) => {
    // Not settled in time: the evidence shows what was delivered so far.
    if (signal.aborted) throw err;
  });
}
