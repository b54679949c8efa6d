// What every row of the failure matrix stands on: its OWN fresh database (migrated with lab
// 16's chain, 45 products seeded), its own BullMQ prefix (obliterated afterwards), its own
// artifacts folder, and a recorder whose clock starts once all that is ready. One database
// per row, not one per run, because a row must never see another row's jobs: the scanner
// scans the whole table and the gate counts every active job (a fresh one takes ~0.2 s).
//
// The components are lesson 16's, in this process, each owned by the row's resource scope:
//   publisher   lesson 12's loop with lesson 16's traced parts (the wake-up carries the job's
//               trace; the confirmation records the dispatch, lesson 15's)
//   worker      lesson 16's observed worker (startObservedWorker): its JSON phase lines are
//               read back as they are written, and each finished delivery becomes evidence
//   scanner     lesson 15's startScanner; it nudges the publisher after writing events
//   api         lesson 16's createApp on a free port
// Only the row that kills a worker starts one as a real process (rows.ts).
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import type { RedisOptions } from 'ioredis';
import type pino from 'pino';
import { listen } from '@tasks-lab/01-state-machine';
import { openQueue } from '@tasks-lab/08-broker-worker';
import { FAULTS_ENV, waitFor, type Resources } from '@tasks-lab/lab-kit';
import { seedProducts } from '@tasks-lab/11-mysql-leases';
import {
  READ_EVENTS_OF_JOB,
  startPublisher,
  toOutboxEvent,
  type OutboxEvent,
  type RunningPublisher,
} from '@tasks-lab/12-outbox';
import {
  COURSE_RULES,
  exportsAddress,
  scratchQueuePrefix,
  type AdmissionRules,
  type AdmitOptions,
  type AdmitResult,
  type RouteQueue,
} from '@tasks-lab/13-admission';
import {
  recoveryPublisherFaults,
  startScanner,
  type RecoveredJob,
  type RunningRecoveryWorker,
  type RunningScanner,
} from '@tasks-lab/15-recovery';
import { freshDatabase } from '../database.ts';
import { QUEUE_PREFIX, WORKER_PROCESS_OPTIONS, type ObservabilityOptionValues } from '../options.ts';
import { createPhaseLogger, parsePhaseLines, type PhaseLine, type PhaseLogger } from '../phase-log.ts';
import { verifyTerminal, type TerminalVerdict } from '../terminal-check.ts';
import { tracedPublisherParts } from '../traced-publisher.ts';
import { observedFaults } from '../delivery-phases.ts';
import { startObservedWorker } from '../worker.ts';
import { RowRecorder, type DeliverySeen, type ObservedState } from './evidence.ts';
import type { MatrixParts } from './parts.ts';

/** Products every row's database has (the migration seeds fewer): a 40-product export is bulk. */
export const SEEDED_PRODUCTS = 45;
/** A small export: routed to exports.fast. */
export const FAST_PRODUCTS: readonly number[] = [1, 2];
/** More than 30 rows: routed to exports.bulk, written in 4 chunks of 10. */
export const BULK_PRODUCTS: readonly number[] = Array.from({ length: 40 }, (_, i) => i + 1);

/** What a row runs with: the timings (the short ones unless the caller says) and the parts. */
export interface RowSetup {
  timings: ObservabilityOptionValues;
  parts: MatrixParts;
}

/** One line a component reported while the row ran (a failed send, a failed batch, ...). */
export interface ComponentReport {
  at_ms: number;
  from: string;
  line: string;
}

export interface RowLab extends RowSetup {
  res: Resources;
  signal: AbortSignal;
  database: string;
  pool: Pool;
  prefix: string;
  artifactsDir: string;
  rec: RowRecorder;
  /** What the in-process components reported: evidence of a problem, or of the fault itself. */
  reports: ComponentReport[];
}

/** Sets up a row's own database, prefix and artifacts folder, all released with `res`. */
export async function openRowLab(res: Resources, setup: RowSetup, label: string): Promise<RowLab> {
  const db = res.add(await freshDatabase(label, { settings: setup.timings }), (d) => d.drop());
  await seedProducts(db.pool, SEEDED_PRODUCTS);
  // Registered before any component starts: obliterated after they have all closed.
  const prefix = scratchQueuePrefix(res, QUEUE_PREFIX);
  const artifactsDir = await mkdtemp(join(tmpdir(), 'tasks-lab16-matrix-'));
  res.defer(() => rm(artifactsDir, { recursive: true, force: true }));
  const rec = new RowRecorder();
  // Closes before the database is dropped (resources close in reverse order).
  res.defer(() => rec.stopWatching());
  return {
    ...setup,
    res,
    signal: res.signal,
    database: db.name,
    pool: db.pool,
    prefix,
    artifactsDir,
    rec,
    reports: [],
  };
}

const reporter = (lab: RowLab, from: string) => (line: string) =>
  lab.reports.push({ at_ms: lab.rec.at(), from, line: line.slice(0, 300) });

/** Reports from one component. */
export const reportsFrom = (lab: RowLab, from: string): ComponentReport[] => lab.reports.filter((r) => r.from === from);

// ---- submitting ------------------------------------------------------------------

/** The course's admission rules (limit 100), never the environment's, plus the row's changes. */
export const rowRules = (changes: Partial<AdmissionRules> = {}): AdmissionRules => ({ ...COURSE_RULES, ...changes });

/** One submission through the row's admit part (lesson 16's admitTraced). */
export function submit(lab: RowLab, productIds: readonly number[], options: AdmitOptions = {}): Promise<AdmitResult> {
  return lab.parts.admit(lab.pool, productIds, { rules: rowRules(), deadlineMs: lab.timings.deadlineMs, ...options });
}

// ---- the components ----------------------------------------------------------------

/** A phase logger whose lines come back to `onLine` as they are written (nothing on stdout). */
function collectingLogger(component: string, onLine: (line: PhaseLine) => void): PhaseLogger {
  const destination: pino.DestinationStream = {
    write: (text: string) => {
      for (const line of parsePhaseLines(text)) onLine(line);
    },
  };
  return createPhaseLogger({ component, level: 'info', destination });
}

export interface RowPublisherOptions {
  /** Where its Redis is. @defaultValue the lab's Redis */
  connection?: RedisOptions;
  /** LAB_FAULTS for this publisher only (lesson 12's points and lesson 15's confirmation's). */
  faults?: string;
  /** Its name in the reports. @defaultValue 'publisher' */
  name?: string;
}

/** Lesson 12's publisher loop with lesson 16's traced parts, on the row's database and prefix. */
export async function startRowPublisher(lab: RowLab, options: RowPublisherOptions = {}): Promise<RunningPublisher> {
  const faults = recoveryPublisherFaults({ [FAULTS_ENV]: options.faults ?? '' });
  const logger = createPhaseLogger({ component: 'publisher', level: 'silent' });
  const publisher = await startPublisher({
    pool: lab.pool,
    timings: lab.timings,
    prefix: lab.prefix,
    connection: options.connection,
    // Nudged by hand (after a submit, after a scan): no subscriber connection to keep or to fail.
    listen: false,
    faults,
    parts: { ...tracedPublisherParts(logger, faults), ...lab.parts.publisherParts(lab.pool) },
    report: reporter(lab, options.name ?? 'publisher'),
  });
  return lab.res.add(publisher, (p) => p.close());
}

/** A finished delivery, from the worker's own phase line (busy ones are put back: not finished). */
export function deliveryOf(line: PhaseLine): Omit<DeliverySeen, 'at_ms' | 'by'> | undefined {
  const base = { message_id: String(line.message_id ?? '?'), lease_token: line.lease_token ?? null };
  switch (line.phase) {
    case 'published':
      return {
        ...base,
        claimed: true,
        published: line.published === true,
        note: `chunks ${String(line.chunks ?? '?')}`,
      };
    case 'stopped':
      return {
        ...base,
        claimed: true,
        published: false,
        note: `chunks ${String(line.chunks ?? '?')}, stopped ${String(line.stopped_because ?? '?')}`,
      };
    case 'not-claimed':
      return { ...base, claimed: false, published: false, lease_token: null };
    case 'failed': {
      const err = line.err as { message?: unknown } | undefined;
      return {
        ...base,
        claimed: base.lease_token !== null,
        published: false,
        error: String(err?.message ?? line.msg ?? 'failed'),
      };
    }
    default:
      return undefined;
  }
}

export interface RowWorkerOptions {
  /** LAB_FAULTS for this worker only (lesson 16's points: before-claim, after-claim, before-chunk, ...). */
  faults?: string;
  /** Its name in the evidence. @defaultValue 'worker (in-process)' */
  name?: string;
}

/** Lesson 16's observed worker on `queueName`, in this process; its deliveries go into the recorder. */
export async function startRowWorker(
  lab: RowLab,
  queueName: RouteQueue,
  options: RowWorkerOptions = {},
): Promise<RunningRecoveryWorker> {
  const by = options.name ?? 'worker (in-process)';
  const logger = collectingLogger('worker', (line) => {
    const delivery = deliveryOf(line);
    if (delivery) lab.rec.delivered({ ...delivery, by });
  });
  const worker = await startObservedWorker({
    queueName,
    process: {
      ...WORKER_PROCESS_OPTIONS.defaults(),
      database: lab.database,
      queuePrefix: lab.prefix,
      artifactsDir: lab.artifactsDir,
      concurrency: 2,
    },
    timings: lab.timings,
    logger,
    faults: observedFaults({ [FAULTS_ENV]: options.faults ?? '' }),
    parts: lab.parts.workerParts,
    // A row that ends while a delivery runs (a failing variant) aborts it soon.
    shutdownGraceMs: 1000,
    log: () => {},
  });
  return lab.res.add(worker, (w) => w.close());
}

/** A job the scanner moved, and when (just after its batch committed). */
export interface ScannerSighting {
  at_ms: number;
  recovered: RecoveredJob;
}

/** Lesson 15's scanner loop with the row's batch; after a batch that wrote events it nudges `publisher`. */
export function startRowScanner(
  lab: RowLab,
  options: { publisher?: RunningPublisher } = {},
): { scanner: RunningScanner; sightings: ScannerSighting[] } {
  const sightings: ScannerSighting[] = [];
  const scanner = startScanner({
    pool: lab.pool,
    timings: lab.timings,
    recover: lab.parts.recoverBatch,
    report: reporter(lab, 'scanner'),
    onBatch: (report) => {
      const moved = [...report.requeued, ...report.redispatched, ...report.cancelled, ...report.failed];
      for (const recovered of moved) sightings.push({ at_ms: lab.rec.at(), recovered });
      if (report.requeued.length + report.redispatched.length > 0) options.publisher?.nudge();
    },
  });
  lab.res.add(scanner, (s) => s.close());
  return { scanner, sightings };
}

/** Lesson 16's API on a free port: its `nudge` wakes `publisher`; returns its base URL. */
export async function startRowApi(
  lab: RowLab,
  options: { publisher?: RunningPublisher; rules?: Partial<AdmissionRules> } = {},
): Promise<string> {
  const app = lab.parts.createApp({
    pool: lab.pool,
    nudge: async () => options.publisher?.nudge(),
    rules: rowRules(options.rules),
    admit: lab.parts.admit,
    deadlineMs: lab.timings.deadlineMs,
    queuePrefixes: [lab.prefix],
    logger: createPhaseLogger({ component: 'api', level: 'silent' }),
    onAdmission: () => {},
    onRecoveryRequest: () => {},
    // A refusal's own line (the 503s of a full service) is expected; the row's judge reads them all.
    log: reporter(lab, 'api'),
  });
  const server = lab.res.add(await listen(app, 0), (s) => s.close());
  return server.url;
}

// ---- reading -----------------------------------------------------------------------

/** Every outbox event of the job, oldest first. */
export async function eventsOf(pool: Pool, jobId: string): Promise<OutboxEvent[]> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_EVENTS_OF_JOB, [jobId]);
  return rows.map(toOutboxEvent);
}

/** Sends of the job's events: the outbox's send_attempts, summed (each claim of an event counts one). */
export const sendsOf = (events: readonly OutboxEvent[]): number => events.reduce((sum, e) => sum + e.sendAttempts, 0);

/** The course's verify_terminal on the row's artifacts folder. */
export const verifyArtifact = (lab: RowLab, jobId: string): Promise<TerminalVerdict> =>
  verifyTerminal(lab.pool, jobId, lab.artifactsDir);

/** Files in the row's artifacts folder: a final artifact and a temp file left behind both count. */
export const artifactFiles = (lab: RowLab): Promise<string[]> => readdir(lab.artifactsDir).catch(() => [] as string[]);

/** The value, or undefined once `timeoutMs` passed: a row reports what it saw; only an abort throws. */
export async function within<T>(
  lab: RowLab,
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs: number,
): Promise<T | undefined> {
  return waitFor(what, probe, { timeoutMs, intervalMs: 25, signal: lab.signal }).catch((err: unknown) => {
    if (lab.signal.aborted) throw err;
    return undefined;
  });
}

/** The first sampled state matching `test` (at or after `fromMs`), waiting up to `timeoutMs` for it. */
export function untilState(
  lab: RowLab,
  test: (state: ObservedState) => boolean,
  timeoutMs: number,
  fromMs = 0,
): Promise<ObservedState | undefined> {
  return within(lab, 'a state of the job', () => lab.rec.firstState(test, fromMs), timeoutMs);
}

/** The BullMQ job of one message on the row's prefix: its state, or undefined when Redis no longer holds it. */
export async function wakeUpState(lab: RowLab, queueName: RouteQueue, messageId: string): Promise<string | undefined> {
  const queue = await openQueue(exportsAddress(queueName, lab.prefix));
  try {
    const job = await queue.getJob(messageId);
    return job ? await job.getState() : undefined;
  } finally {
    await queue.close();
  }
}

/** Removes one message from Redis (what a retention, an eviction or a lost message does); true if it was there. */
export async function removeWakeUp(lab: RowLab, queueName: RouteQueue, messageId: string): Promise<boolean> {
  const queue = await openQueue(exportsAddress(queueName, lab.prefix));
  try {
    const job = await queue.getJob(messageId);
    if (!job) return false;
    await job.remove();
    return true;
  } finally {
    await queue.close();
  }
}

// ---- HTTP, as a client sees it -------------------------------------------------------

/** One answer of POST /exports. */
export interface PostAnswer {
  status: number;
  /** The job id of a 202. */
  id: string | undefined;
  /** A refusal's error code (capacity-exceeded, ...). */
  error: string | undefined;
  /** The Retry-After header as sent; null when there is none. */
  retryAfter: string | null;
}

export async function postExport(lab: RowLab, url: string, productIds: readonly number[]): Promise<PostAnswer> {
  const response = await fetch(`${url}/exports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ product_ids: productIds }),
    signal: lab.signal,
  });
  const body = (await response.json().catch(() => ({}))) as { id?: unknown; error?: unknown };
  return {
    status: response.status,
    id: response.status === 202 && typeof body.id === 'string' ? body.id : undefined,
    error: typeof body.error === 'string' ? body.error : undefined,
    retryAfter: response.headers.get('retry-after'),
  };
}

/** One answer of GET /exports/:id: the HTTP status and the job's status in the body. */
export interface GetAnswer {
  status: number;
  jobStatus: string | undefined;
}

export async function getExport(lab: RowLab, url: string, jobId: string): Promise<GetAnswer> {
  const response = await fetch(`${url}/exports/${jobId}`, { signal: lab.signal });
  const body = (await response.json().catch(() => ({}))) as { status?: unknown };
  return { status: response.status, jobStatus: typeof body.status === 'string' ? body.status : undefined };
}
