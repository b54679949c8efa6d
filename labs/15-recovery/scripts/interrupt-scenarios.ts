// Lesson 15's interruptions (the course's drills), run for real by verify; scripts/interrupt-checks.ts
// judges what they saw.
//
//   sigkillDrill   a bulk-sized export (40 products: exports.bulk) is claimed by a worker
//                  PROCESS that then hangs (fault point after-claim:hang), and the process is
//                  SIGKILLed: the row stays running with its lease, BullMQ still holds the
//                  wake-up. Once the lease has expired a second worker process starts; BullMQ's
//                  stalled-job check hands it the same wake-up, and its claim takes NOTHING (a
//                  running row is not claimable, expired lease or not: only the scanner may
//                  take it back). Then the recovery scanner starts: it requeues the job with
//                  next_attempt_at = now + the retry backoff and a new outbox event available
//                  at that time; the publisher sends it when it is due and the second worker
//                  runs the export to success, attempt 2.
//                  The scanner is started only AFTER the redelivery was seen, so the two paths
//                  show one after the other; in production they race, and either order is safe
//                  (a redelivery during the backoff finds a queued row that is not due yet).
//   cancelDrill    over HTTP: a bulk export written in 4 chunks, slowed before each chunk
//                  (before-chunk:delay-…), is cancelled while it runs. The worker stops at the
//                  next chunk boundary (canContinue), leaves no artifact and does not finish;
//                  lesson 11's FINISH, asked with the job's token, refuses; a repeat cancel
//                  answers already-requested; once the lease is over the scanner moves the job to
//                  cancelled and takes it out of the gate counter. Then a succeeded job is
//                  cancelled: 409 job-terminal, and its row is unchanged.
//
// Each drill has a fresh database, a BullMQ prefix of its own (lab 13's scratchQueuePrefix,
// obliterated afterwards), an artifacts folder of its own, and its workers as real processes;
// the publisher, the scanner and the API run in this process. Nothing is mocked.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { ensureInfra } from '@tasks-lab/infra';
import {
  FAULTS_ENV,
  launchProcess,
  waitFor,
  withResources,
  type Exit,
  type LabProcess,
  type Resources,
} from '@tasks-lab/lab-kit';
import { artifactName, type JobRow, readJob, seedProducts } from '@tasks-lab/11-mysql-leases';
import {
  publisherFaults,
  READ_EVENTS_OF_JOB,
  startPublisher,
  toOutboxEvent,
  type OutboxEvent,
} from '@tasks-lab/12-outbox';
import {
  admitExport,
  countActiveJobs,
  finishAndLeave,
  readGateCounter,
  scratchQueuePrefix,
} from '@tasks-lab/13-admission';
import { requestCancel } from '../src/cancel.ts';
import { dispatchRecordingParts } from '../src/confirm.ts';
import { freshDatabase } from '../src/database.ts';
import {
  describeTimings,
  QUEUE_PREFIX,
  readShortRecoveryOptions,
  RECOVERY_OPTIONS,
  WORKER_PROCESS_OPTIONS,
  type RecoveryOptionValues,
} from '../src/options.ts';
import type { RecoveredJob, RecoveryReport } from '../src/recovery.ts';
import { startScanner } from '../src/scanner.ts';
import { startServer } from '../src/server.ts';

export const WORKER_SCRIPT = fileURLToPath(new URL('../src/worker.ts', import.meta.url));
const WORKER_READY = /export worker \d+ ready/;

/** A process to start: a script of the lab (or a fixture) and its arguments. */
export interface ProcessCommand {
  script: string;
  args: string[];
}

/** The parts a broken variant may replace; the lab's own are used otherwise. */
export interface InterruptParts {
  /** `pnpm worker:bulk`: the worker process of both drills. */
  bulkWorker: ProcessCommand;
  /** The recovery scanner (run in this process). */
  startScanner: typeof startScanner;
  /** How POST /exports/:id/cancel asks (src/cancel.ts). */
  requestCancel: typeof requestCancel;
}

export const INTERRUPT_PARTS: InterruptParts = {
  bulkWorker: { script: WORKER_SCRIPT, args: ['bulk'] },
  startScanner,
  requestCancel,
};

export interface InterruptSetup {
  parts?: Partial<InterruptParts>;
  /** @defaultValue interruptTimings() */
  timings?: RecoveryOptionValues;
}

/** 40 products: more than FAST_MAX_ROWS (30), so the export is routed to exports.bulk; 4 chunks of 10. */
export const BULK_PRODUCTS = Array.from({ length: 40 }, (_, i) => i + 1);

/**
 * The short timings (1.5 s lease, 200 ms scan), with a 1.5 s retry backoff (long enough that a
 * claim that ignored it would be seen) and chunks of 10 rows, whatever the environment says.
 */
export function interruptTimings(env: NodeJS.ProcessEnv = process.env): RecoveryOptionValues {
  return readShortRecoveryOptions(env, { retryBackoffMs: 1500, chunkRows: 10 });
}

/** BullMQ's own redelivery, made quick: a killed worker's lock lapses after 1 s, checked every 0.5 s. */
export const BULLMQ_LOCKS = { lockDurationMs: 1000, stalledIntervalMs: 500, maxStalledCount: 1 } as const;

// ---------------------------------------------------------------------------------
// What every drill has at hand

interface Lab {
  res: Resources;
  signal: AbortSignal;
  parts: InterruptParts;
  timings: RecoveryOptionValues;
  pool: Pool;
  prefix: string;
  artifactsDir: string;
  /** Starts a worker process (the drill's env plus `faults`), owned by the scope; waits for its ready line. */
  launch: (command: ProcessCommand, faults?: string) => Promise<LabProcess>;
  /** Lines the in-process publisher and scanner reported (an error shows here). */
  problems: string[];
}

async function withLab<T>(
  signal: AbortSignal,
  setup: InterruptSetup,
  label: string,
  work: (lab: Lab) => Promise<T>,
): Promise<T> {
  return withResources(signal, async (res) => {
    const parts = { ...INTERRUPT_PARTS, ...setup.parts };
    const timings = setup.timings ?? interruptTimings();
    await ensureInfra({ services: ['redis', 'mysql'] });
    const db = res.add(await freshDatabase(label, { settings: timings }), (d) => d.drop());
    await seedProducts(db.pool, 45);
    const prefix = scratchQueuePrefix(res, QUEUE_PREFIX);
    const artifactsDir = await mkdtemp(join(tmpdir(), 'tasks-lab15-artifacts-'));
    res.defer(() => rm(artifactsDir, { recursive: true, force: true }));
    const env = {
      ...RECOVERY_OPTIONS.toEnv(timings),
      ...WORKER_PROCESS_OPTIONS.toEnv({
        database: db.name,
        artifactsDir,
        queuePrefix: prefix,
        concurrency: 1,
        ...BULLMQ_LOCKS,
      }),
    };
    // A LAB_FAULTS meant for something else must not reach these processes: each gets its own.
    const launch = (command: ProcessCommand, faults = '') =>
      launchProcess(command.script, {
        args: command.args,
        ready: WORKER_READY,
        resources: res,
        env: { ...env, [FAULTS_ENV]: faults },
      });
    return work({ res, signal: res.signal, parts, timings, pool: db.pool, prefix, artifactsDir, launch, problems: [] });
  });
}

/** Lesson 12's publisher with lesson 15's confirmation, in this process, on the drill's prefix. */
async function startDrillPublisher(lab: Lab) {
  const publisher = await startPublisher({
    pool: lab.pool,
    timings: lab.timings,
    prefix: lab.prefix,
    faults: publisherFaults({}),
    parts: dispatchRecordingParts(),
    report: (line) => lab.problems.push(`publisher: ${line}`),
  });
  return lab.res.add(publisher, (p) => p.close());
}

/** A scanner pass that moved our job, and when it was seen (just after its COMMIT). */
export interface ScannerSighting {
  recovered: RecoveredJob;
  seenAt: number;
}

function startDrillScanner(lab: Lab, jobId: string, sightings: ScannerSighting[]) {
  const onBatch = (report: RecoveryReport) => {
    const seenAt = Date.now();
    for (const recovered of [...report.requeued, ...report.redispatched, ...report.cancelled, ...report.failed]) {
      if (recovered.jobId === jobId) sightings.push({ recovered, seenAt });
    }
  };
  const scanner = lab.parts.startScanner({
    pool: lab.pool,
    timings: lab.timings,
    onBatch,
    report: (line) => lab.problems.push(`scanner: ${line}`),
  });
  return lab.res.add(scanner, (s) => s.close());
}

/** The value, or undefined once `timeoutMs` passed (a check reports what it saw; only an abort throws). */
async function within<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<T | undefined> {
  return waitFor(what, probe, { timeoutMs, intervalMs: 50, signal }).catch((err: unknown) => {
    if (signal.aborted) throw err;
    return undefined;
  });
}

async function eventsOf(pool: Pool, jobId: string): Promise<OutboxEvent[]> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_EVENTS_OF_JOB, [jobId]);
  return rows.map(toOutboxEvent);
}

/** Files in the artifacts folder: a final artifact or a temp file left behind both count. */
const filesIn = (dir: string) => readdir(dir).catch(() => [] as string[]);

// ---------------------------------------------------------------------------------
// Reading the workers' lines (src/recovery-worker.ts's describeClaim and describeDelivery)

export interface ClaimLine {
  queue: string;
  jobId: string;
  attempt: number;
  bullmqId: string;
  at: number;
  leaseUntil: number;
}

const CLAIM_LINE =
  /^(\S+) claimed job ([0-9a-f-]{36}) attempt (\d+) \(BullMQ id ([^)]*)\) at (\S+), lease until (\S+)$/gm;

export function claimsIn(output: string): ClaimLine[] {
  return [...output.matchAll(CLAIM_LINE)].map((m) => ({
    queue: m[1]!,
    jobId: m[2]!,
    attempt: Number(m[3]),
    bullmqId: m[4]!,
    at: Date.parse(m[5]!),
    leaseUntil: Date.parse(m[6]!),
  }));
}

export interface DeliveryLine {
  queue: string;
  jobId: string;
  bullmqId: string;
  stalled: number;
  claimed: boolean;
  published: boolean;
  chunksWritten: number;
  chunksTotal: number;
  stoppedBecause: string | undefined;
}

const DELIVERY_LINE =
  /^(\S+) delivered job ([0-9a-f-]{36}) \(BullMQ id ([^,]*), stalled (\d+)\): claimed (true|false), published (true|false), chunks (\d+)\/(\d+)(?:, stopped (\S+))?$/gm;

export function deliveriesIn(output: string): DeliveryLine[] {
  return [...output.matchAll(DELIVERY_LINE)].map((m) => ({
    queue: m[1]!,
    jobId: m[2]!,
    bullmqId: m[3]!,
    stalled: Number(m[4]),
    claimed: m[5] === 'true',
    published: m[6] === 'true',
    chunksWritten: Number(m[7]),
    chunksTotal: Number(m[8]),
    stoppedBecause: m[9],
  }));
}

/** Lines saying something failed, for the observation. */
const failuresIn = (output: string): string[] =>
  output
    .split('\n')
    .filter((line) => / failed: |Error/.test(line))
    .slice(0, 3);

/** A row in a few words, as the evidence keeps it. */
export interface RowState {
  status: string;
  attempts: number;
  leaseUntil: number | null;
  nextAttemptAt: number;
  cancelRequested: boolean;
  resultRef: string | null;
  updatedAt: number;
  /** When this process read it. */
  readAt: number;
}

const rowState = (row: JobRow | undefined, readAt = Date.now()): RowState | undefined =>
  row && {
    status: row.status,
    attempts: row.attempts,
    leaseUntil: row.leaseUntil?.getTime() ?? null,
    nextAttemptAt: row.nextAttemptAt.getTime(),
    cancelRequested: row.cancelRequested,
    resultRef: row.resultRef,
    updatedAt: row.updatedAt.getTime(),
    readAt,
  };

const readState = async (pool: Pool, jobId: string) => rowState(await readJob(pool, jobId));

// ---------------------------------------------------------------------------------
// 1. SIGKILL mid-export: BullMQ redelivers, the claim takes nothing, the scanner recovers

export interface SigkillEvidence {
  timings: string;
  backoffMs: number;
  jobId: string;
  queueName: string;
  /** The first worker's claim, and how it ended (SIGKILL). */
  firstClaim: ClaimLine | undefined;
  firstExit: Exit | undefined;
  /** The row just before the second worker started (running, its lease expired). */
  beforeSecond: RowState | undefined;
  /** The second worker's delivery of the FIRST wake-up (BullMQ's stalled redelivery). */
  redelivery: DeliveryLine | undefined;
  /** The row right after that delivery. */
  afterRedelivery: RowState | undefined;
  /** Claims the second worker made, in order. */
  secondClaims: ClaimLine[];
  /** When the scanner was started, and what it did with our job. */
  scannerStartedAt: number | undefined;
  sightings: ScannerSighting[];
  events: OutboxEvent[];
  final: RowState | undefined;
  gate: { counter: number; active: number };
  failures: string[];
  problems: string[];
}

const REDELIVERY_WAIT_MS = 10_000;
const RECOVERY_WAIT_MS = 12_000;

export function sigkillDrill(setup: InterruptSetup): (signal: AbortSignal) => Promise<SigkillEvidence> {
  return (signal) =>
    withLab(signal, setup, 'sigkill', async (lab) => {
      const { pool, timings } = lab;
      const first = await lab.launch(lab.parts.bulkWorker, 'after-claim:hang');
      await startDrillPublisher(lab);
      const admitted = await admitExport(pool, BULK_PRODUCTS, { rules: timings, deadlineMs: timings.deadlineMs });
      const jobId = admitted.jobId;
      const base = {
        timings: describeTimings(timings),
        backoffMs: timings.retryBackoffMs,
        jobId,
        queueName: admitted.queueName,
        problems: lab.problems,
      };
      const empty = {
        secondClaims: [],
        sightings: [],
        events: [],
        scannerStartedAt: undefined,
        redelivery: undefined,
        afterRedelivery: undefined,
        beforeSecond: undefined,
      };

      // 1. The first worker claims and hangs: mid-run. Then it is killed, with no clean-up at all.
      const firstClaim = await within(
        'the first claim',
        async () => claimsIn(first.output()).find((c) => c.jobId === jobId),
        REDELIVERY_WAIT_MS,
        lab.signal,
      );
      const firstExit = await first.kill('SIGKILL');
      if (!firstClaim)
        return {
          ...base,
          ...empty,
          firstClaim,
          firstExit,
          final: await readState(pool, jobId),
          gate: await gateOf(pool),
          failures: failuresIn(first.output()),
        };

      // 2. Wait out the lease, then a new worker: BullMQ's stalled check hands it the same wake-up.
      await within(
        'the lease to expire',
        async () => Date.now() > firstClaim.leaseUntil + 50,
        timings.leaseMs + 2000,
        lab.signal,
      );
      const beforeSecond = await readState(pool, jobId);
      const second = await lab.launch(lab.parts.bulkWorker);
      const redelivery = await within(
        'the stalled wake-up to reach the new worker',
        async () => deliveriesIn(second.output()).find((d) => d.bullmqId === firstClaim.bullmqId),
        REDELIVERY_WAIT_MS,
        lab.signal,
      );
      const afterRedelivery = await readState(pool, jobId);

      // 3. Only now the scanner: it requeues the expired lease with a backoff and a new event.
      const sightings: ScannerSighting[] = [];
      const scannerStartedAt = Date.now();
      startDrillScanner(lab, jobId, sightings);
      await within(
        'the job to succeed',
        async () => (await readJob(pool, jobId))?.status === 'succeeded',
        RECOVERY_WAIT_MS,
        lab.signal,
      );
      // The row finishes inside the delivery; the worker's line is printed a moment later.
      await within(
        'the delivery line',
        async () => deliveriesIn(second.output()).some((d) => d.jobId === jobId && d.published),
        2000,
        lab.signal,
      );
      return {
        ...base,
        firstClaim,
        firstExit,
        beforeSecond,
        redelivery,
        afterRedelivery,
        secondClaims: claimsIn(second.output()).filter((c) => c.jobId === jobId),
        scannerStartedAt,
        sightings,
        events: await eventsOf(pool, jobId),
        final: await readState(pool, jobId),
        gate: await gateOf(pool),
        failures: [...failuresIn(first.output()), ...failuresIn(second.output())],
      };
    });
}

async function gateOf(pool: Pool): Promise<{ counter: number; active: number }> {
  return { counter: await readGateCounter(pool), active: await countActiveJobs(pool) };
}

// ---------------------------------------------------------------------------------
// 2. Cancel a running export over HTTP

/** Each chunk waits this long before its check: 4 chunks take 2 s, a cancel lands between two. */
export const CHUNK_DELAY_MS = 500;
/** A lease longer than the whole export: the worker stops because of the cancel, not the lease. */
export const CANCEL_LEASE_MS = 3000;

/** One answer of POST /exports/:id/cancel, as the client saw it. */
export interface CancelAnswer {
  status: number;
  /** The body's `status` (cancel-requested, already-requested) or a refusal's `error`. */
  outcome: string | undefined;
  jobStatus: string | undefined;
}

export interface CancelEvidence {
  timings: string;
  jobId: string | undefined;
  claim: ClaimLine | undefined;
  /** ms from the claim line to the cancel request. */
  cancelAfterMs: number | undefined;
  cancel: CancelAnswer | undefined;
  repeat: CancelAnswer | undefined;
  /** The worker's delivery of the cancelled job. */
  delivery: DeliveryLine | undefined;
  /** Files in the artifacts folder once the worker stopped. */
  artifacts: string[];
  /** lesson 13's finishAndLeave, asked with the row's token after the stop: must be false. */
  finishWithToken: boolean | undefined;
  gateWhileRunning: number | undefined;
  afterScanner: RowState | undefined;
  scannerMove: RecoveredJob | undefined;
  gateAfter: { counter: number; active: number } | undefined;
  /** A second job, left to succeed, then cancelled. */
  terminal:
    | { jobId: string; before: RowState | undefined; answer: CancelAnswer; after: RowState | undefined }
    | undefined;
  failures: string[];
  problems: string[];
}

export function cancelDrill(setup: InterruptSetup): (signal: AbortSignal) => Promise<CancelEvidence> {
  return (signal) =>
    withLab(
      signal,
      { ...setup, timings: { ...(setup.timings ?? interruptTimings()), leaseMs: CANCEL_LEASE_MS } },
      'cancel',
      async (lab) => {
        const { pool, timings } = lab;
        const worker = await lab.launch(lab.parts.bulkWorker, `before-chunk:delay-${CHUNK_DELAY_MS}:always`);
        const publisher = await startDrillPublisher(lab);
        const sightings: ScannerSighting[] = [];
        let watched = '';
        const scanner = lab.parts.startScanner({
          pool,
          timings,
          onBatch: (report) => {
            for (const job of report.cancelled)
              if (job.jobId === watched) sightings.push({ recovered: job, seenAt: Date.now() });
          },
          report: (line) => lab.problems.push(`scanner: ${line}`),
        });
        lab.res.add(scanner, (s) => s.close());
        const server = await startServer(0, {
          pool,
          nudge: async () => publisher.nudge(),
          rules: timings,
          deadlineMs: timings.deadlineMs,
          cancel: lab.parts.requestCancel,
          onAdmission: () => {},
          onRecoveryRequest: () => {},
          // A refusal's own line (the 409 of the terminal cancel) is expected; anything else is news.
          log: (line) => {
            if (!/^4\d\d /.test(line)) lab.problems.push(`api: ${line}`);
          },
        });
        lab.res.add(server, (s) => s.close());
        const submit = async () =>
          (await postJson(server.url, '/exports', { product_ids: BULK_PRODUCTS }, lab.signal)).id;
        const cancel = (jobId: string) => postCancel(server.url, jobId, lab.signal);
        const base = { timings: describeTimings(timings), problems: lab.problems };

        const jobId = await submit();
        watched = jobId ?? '';
        const claim = jobId
          ? await within(
              'the claim',
              async () => claimsIn(worker.output()).find((c) => c.jobId === jobId),
              10_000,
              lab.signal,
            )
          : undefined;
        if (!jobId || !claim) return { ...base, ...noCancel(), jobId, claim, failures: failuresIn(worker.output()) };

        // Between the first chunk (written after one delay) and the second check.
        await within('the first chunk', async () => Date.now() >= claim.at + CHUNK_DELAY_MS * 1.5, 5000, lab.signal);
        const gateWhileRunning = await readGateCounter(pool);
        const cancelAt = Date.now();
        const first = await cancel(jobId);
        const repeat = await cancel(jobId);
        const delivery = await within(
          'the worker to stop',
          async () => deliveriesIn(worker.output()).find((d) => d.jobId === jobId),
          10_000,
          lab.signal,
        );
        const artifacts = await filesIn(lab.artifactsDir);
        const token = (await readJob(pool, jobId))?.leaseToken;
        const finishWithToken = token
          ? await finishAndLeave(pool, jobId, token, artifactName(jobId, token))
          : undefined;

        // The scanner, once the lease is over.
        await within(
          'the scanner to cancel the job',
          async () => (await readJob(pool, jobId))?.status === 'cancelled',
          CANCEL_LEASE_MS + 5000,
          lab.signal,
        );
        const afterScanner = await readState(pool, jobId);
        const gateAfter = await gateOf(pool);

        // A job that succeeded is over: a cancel changes nothing.
        const doneId = await submit();
        let terminal: CancelEvidence['terminal'];
        if (doneId) {
          await within(
            'the second job to succeed',
            async () => (await readJob(pool, doneId))?.status === 'succeeded',
            10_000,
            lab.signal,
          );
          const before = await readState(pool, doneId);
          const answer = await cancel(doneId);
          terminal = { jobId: doneId, before, answer, after: await readState(pool, doneId) };
        }
        return {
          ...base,
          jobId,
          claim,
          cancelAfterMs: cancelAt - claim.at,
          cancel: first,
          repeat,
          delivery,
          artifacts,
          finishWithToken,
          gateWhileRunning,
          afterScanner,
          scannerMove: sightings[0]?.recovered,
          gateAfter,
          terminal,
          failures: failuresIn(worker.output()),
        };
      },
    );
}

const noCancel = () => ({
  cancelAfterMs: undefined,
  cancel: undefined,
  repeat: undefined,
  delivery: undefined,
  artifacts: [],
  finishWithToken: undefined,
  gateWhileRunning: undefined,
  afterScanner: undefined,
  scannerMove: undefined,
  gateAfter: undefined,
  terminal: undefined,
});

async function postJson(
  url: string,
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<{ status: number; id: string | undefined; json: Record<string, unknown> }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  return { status: response.status, id: typeof json.id === 'string' ? json.id : undefined, json };
}

async function postCancel(url: string, jobId: string, signal: AbortSignal): Promise<CancelAnswer> {
  const response = await fetch(`${url}/exports/${jobId}/cancel`, { method: 'POST', signal });
  const json = (await response.json().catch(() => ({}))) as {
    status?: unknown;
    error?: unknown;
    job?: { status?: unknown };
  };
  const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return { status: response.status, outcome: str(json.error) ?? str(json.status), jobStatus: str(json.job?.status) };
}
