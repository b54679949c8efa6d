// Lesson 16's trace scenarios, run for real; scripts/trace-checks.ts judges what they saw.
//
//   followOneJob      an export of two products, one of them with a description holding a
//                     random marker, submitted over HTTP with a `traceparent` header. The API
//                     (src/app.ts: lesson 15's app behind the trace middleware, admitting with
//                     admitTraced) and the traced publisher run in this process; the worker is a
//                     real `pnpm worker:fast` process. Every line every component printed is kept:
//                     the job's phase lines (accepted, dispatched, received, claimed, published)
//                     and, for the leak check, ALL lines, grepped for the marker and for the
//                     passwords of .env.tasks (only counts leave this file). The artifact is read
//                     too: it must hold the marker, or the grep proved nothing.
//   traceAfterRecovery  a job submitted under a trace is claimed directly (lesson 15's claim) and
//                     never finished, as if its worker died. The publisher's wake-up reaches the
//                     worker, which claims nothing (the row is running). Then the lease is ended
//                     (back-dated: see DEAD_WORKER_LEASE_MS), and the recovery scanner (in this
//                     process, with its phase lines) requeues it with a NEW event; the worker's
//                     second delivery claims attempt 2 with a new token, and every line still
//                     carries the submit's trace id.
//
// Each scenario has a fresh database, a BullMQ prefix of its own (obliterated afterwards), an
// artifacts folder of its own, and its worker as a real process. Nothing is mocked.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Express } from 'express';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { listen } from '@tasks-lab/01-state-machine';
import { ensureInfra, loadCredentials } from '@tasks-lab/infra';
import {
  errorMessage,
  FAULTS_ENV,
  launchProcess,
  waitFor,
  withResources,
  type LabProcess,
  type Resources,
} from '@tasks-lab/lab-kit';
import { EXPIRE_LEASE, readJob, seedProducts } from '@tasks-lab/11-mysql-leases';
import {
  publisherFaults,
  READ_EVENTS_OF_JOB,
  startPublisher,
  type PublisherParts,
  type RunningPublisher,
} from '@tasks-lab/12-outbox';
import { scratchQueuePrefix } from '@tasks-lab/13-admission';
import { claimOrWait, startScanner } from '@tasks-lab/15-recovery';
import { createApp } from '../src/app.ts';
import { freshDatabase } from '../src/database.ts';
import {
  describeTimings,
  OBSERVABILITY_OPTIONS,
  QUEUE_PREFIX,
  readShortObservabilityOptions,
  WORKER_PROCESS_OPTIONS,
  type ObservabilityOptionValues,
} from '../src/options.ts';
import { createPhaseLogger, parsePhaseLines, type PhaseLine, type PhaseLogger } from '../src/phase-log.ts';
import { logRecoveryReport } from '../src/recovery-phases.ts';
import { admitTraced, withTrace } from '../src/trace-context.ts';
import { formatTraceParent, newTrace, type TraceParent } from '../src/trace.ts';
import { tracedPublisherParts } from '../src/traced-publisher.ts';

export const WORKER_SCRIPT = fileURLToPath(new URL('../src/worker.ts', import.meta.url));
/** How long a worker process's line may trail the row it wrote (its stdout reaches us through a pipe). */
const LINE_AFTER_ROW_MS = 10_000;
/** traceAfterRecovery's dead worker holds its lease this long, until the scenario ends it. */
const DEAD_WORKER_LEASE_MS = 60_000;
const WORKER_READY = /export worker \d+ ready/;

/** A process to start: a script of the lab (or a fixture) and its arguments. */
export interface ProcessCommand {
  script: string;
  args: string[];
}

/** The parts a broken variant may replace; the lab's own are used otherwise. */
export interface TraceParts {
  /** `pnpm worker:fast`: the worker process of both scenarios. */
  fastWorker: ProcessCommand;
  /** The publisher's parts (src/traced-publisher.ts), given the publisher's phase logger. */
  publisherParts: (logger: PhaseLogger) => PublisherParts;
}

export const TRACE_PARTS: TraceParts = {
  fastWorker: { script: WORKER_SCRIPT, args: ['fast'] },
  publisherParts: (logger) => tracedPublisherParts(logger),
};

export interface TraceSetup {
  parts?: Partial<TraceParts>;
  /** @defaultValue traceTimings() */
  timings?: ObservabilityOptionValues;
}

/** The short timings (1.5 s lease, 500 ms backoff, 200 ms scan) with a 250 ms publisher poll: a requeued event is sent soon after it is due. */
export function traceTimings(env: NodeJS.ProcessEnv = process.env): ObservabilityOptionValues {
  return readShortObservabilityOptions(env, { pollMs: 250 });
}

/** The product whose description holds the marker (above the seeded 1..5). */
export const MARKED_PRODUCT_ID = 101;

/** Adds the marked product. Parameters: [id, name, description, price_cents]. */
export const ADD_MARKED_PRODUCT =
  'INSERT INTO products (id, name, description, is_active, price_cents) VALUES (?, ?, ?, TRUE, ?)';

// ---------------------------------------------------------------------------------
// The scope of one scenario

interface Lab {
  res: Resources;
  signal: AbortSignal;
  parts: TraceParts;
  timings: ObservabilityOptionValues;
  pool: Pool;
  prefix: string;
  artifactsDir: string;
  /** Everything the in-process components wrote (their phase lines and their plain lines), in order. */
  inProcess: string[];
  /** A phase logger of this process's `component`, writing into inProcess. */
  logger: (component: string) => PhaseLogger;
  /** Starts the worker process (owned by the scope) and waits for its ready line. */
  launchWorker: () => Promise<LabProcess>;
  startPublisher: () => Promise<RunningPublisher>;
  /** What went wrong on the way (a publisher error, a failed wait): for the observation. */
  problems: string[];
}

async function withLab<T>(
  signal: AbortSignal,
  setup: TraceSetup,
  label: string,
  work: (lab: Lab) => Promise<T>,
): Promise<T> {
  return withResources(signal, async (res) => {
    const parts = { ...TRACE_PARTS, ...setup.parts };
    const timings = setup.timings ?? traceTimings();
    await ensureInfra({ services: ['redis', 'mysql'] });
    const db = res.add(await freshDatabase(label, { settings: timings }), (d) => d.drop());
    await seedProducts(db.pool, 5);
    const prefix = scratchQueuePrefix(res, QUEUE_PREFIX);
    const artifactsDir = await mkdtemp(join(tmpdir(), 'tasks-lab16-artifacts-'));
    res.defer(() => rm(artifactsDir, { recursive: true, force: true }));
    const inProcess: string[] = [];
    const sink = { write: (line: string) => void inProcess.push(line) };
    const logger = (component: string) => createPhaseLogger({ component, level: timings.logLevel, destination: sink });
    const problems: string[] = [];
    const env = {
      ...OBSERVABILITY_OPTIONS.toEnv(timings),
      ...WORKER_PROCESS_OPTIONS.toEnv({ database: db.name, artifactsDir, queuePrefix: prefix, concurrency: 1 }),
      // A LAB_FAULTS meant for something else must not reach the worker.
      [FAULTS_ENV]: '',
    };
    const launchWorker = () =>
      launchProcess(parts.fastWorker.script, {
        args: parts.fastWorker.args,
        ready: WORKER_READY,
        resources: res,
        env,
      }).catch((err: unknown) => {
        // The error quotes everything the process printed: a broken worker may have printed a password.
        throw new Error(credentialMatcher().scrub(errorMessage(err)));
      });
    const startLabPublisher = async () => {
      const publisher = await startPublisher({
        pool: db.pool,
        timings,
        prefix,
        faults: publisherFaults({}),
        parts: parts.publisherParts(logger('publisher')),
        log: (line) => inProcess.push(`${line}\n`),
        report: (line) => {
          inProcess.push(`error: ${line}\n`);
          problems.push(`publisher: ${line}`);
        },
      });
      return res.add(publisher, (p) => p.close());
    };
    return work({
      res,
      signal: res.signal,
      parts,
      timings,
      pool: db.pool,
      prefix,
      artifactsDir,
      inProcess,
      logger,
      launchWorker,
      startPublisher: startLabPublisher,
      problems,
    });
  });
}

/** The value, or undefined once `timeoutMs` passed (a check reports what it saw; only an abort throws). */
async function within<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs: number,
  lab: Lab,
): Promise<T | undefined> {
  return waitFor(what, probe, { timeoutMs, intervalMs: 50, signal: lab.signal }).catch((err: unknown) => {
    if (lab.signal.aborted) throw err;
    lab.problems.push(`gave up waiting for ${what} after ${timeoutMs} ms`);
    return undefined;
  });
}

async function eventIdsOf(pool: Pool, jobId: string): Promise<string[]> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_EVENTS_OF_JOB, [jobId]);
  return rows.map((row) => String(row.id));
}

/** The row, in the few words the judges need. */
export interface RowFacts {
  status: string;
  attempts: number;
  leaseToken: string | null;
  resultRef: string | null;
}

async function rowFacts(pool: Pool, jobId: string): Promise<RowFacts | undefined> {
  const row = await readJob(pool, jobId);
  return row && { status: row.status, attempts: row.attempts, leaseToken: row.leaseToken, resultRef: row.resultRef };
}

/**
 * One job's phase lines from every source, in time order. Sources are merged by their ISO
 * times (a stable sort): within one process the order is the order written, and at an equal
 * millisecond the in-process lines (api, publisher, scanner) come first, as they happened.
 */
function jobLines(jobId: string, ...outputs: string[]): PhaseLine[] {
  return outputs
    .flatMap((text) => parsePhaseLines(text))
    .filter((line) => line.job_id === jobId)
    .sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
}

// ---------------------------------------------------------------------------------
// 1. Follow one job (and grep everything it printed)

/** What the grep found: counts only, never a matched text (it could be a password). */
export interface LeakScan {
  /** Sources read: the in-process components' output, the worker's stdout and stderr. */
  sources: string[];
  lines: number;
  phaseLines: number;
  withMarker: number;
  withCredential: number;
  /** Passwords in .env.tasks looked for (0: no env file, nothing to find). */
  credentialsChecked: number;
}

export interface FollowEvidence {
  timings: string;
  /** The trace the client sent in its `traceparent` header. */
  header: TraceParent;
  status: number | undefined;
  jobId: string | undefined;
  row: RowFacts | undefined;
  eventIds: string[];
  /** The job's phase lines, every component, in time order. */
  lines: PhaseLine[];
  leaks: LeakScan;
  /** The artifact holds the marker: the grep looked for something that was really there to find. */
  artifactHoldsMarker: boolean;
  problems: string[];
}

/** Lesson 16's API (src/app.ts: lesson 15's behind the trace middleware, admitting with admitTraced), its `accepted` lines kept here. */
function tracedApi(lab: Lab, publisher: RunningPublisher): Express {
  return createApp({
    pool: lab.pool,
    nudge: async () => publisher.nudge(),
    rules: lab.timings,
    deadlineMs: lab.timings.deadlineMs,
    logger: lab.logger('api'),
    queuePrefixes: [lab.prefix],
    onAdmission: () => {}, // lesson 13's own line is replaced by the `accepted` phase line
    onRecoveryRequest: (line) => lab.inProcess.push(`${line}\n`),
    log: (line) => {
      lab.inProcess.push(`${line}\n`);
      lab.problems.push(`api: ${line}`);
    },
  });
}

/** The passwords of .env.tasks, held here only to count lines that hold one (and to blank them out of an error). */
function credentialMatcher(): { checked: number; holds: (line: string) => boolean; scrub: (text: string) => string } {
  const c = loadCredentials();
  const secrets = [c.redisPassword, c.mysqlRootPassword, c.mysqlPassword].filter((s) => s.length >= 8);
  return {
    checked: secrets.length,
    holds: (line) => secrets.some((secret) => line.includes(secret)),
    scrub: (text) => secrets.reduce((scrubbed, secret) => scrubbed.split(secret).join('***'), text),
  };
}

function scanForLeaks(sources: Array<[string, string]>, marker: string): LeakScan {
  const credentials = credentialMatcher();
  const lines = sources.flatMap(([, text]) => text.split('\n').filter((line) => line.trim() !== ''));
  return {
    sources: sources.map(([name]) => name),
    lines: lines.length,
    phaseLines: sources.reduce((n, [, text]) => n + parsePhaseLines(text).length, 0),
    withMarker: lines.filter((line) => line.includes(marker)).length,
    withCredential: lines.filter(credentials.holds).length,
    credentialsChecked: credentials.checked,
  };
}

export function followOneJob(setup: TraceSetup): (signal: AbortSignal) => Promise<FollowEvidence> {
  return (signal) =>
    withLab(signal, setup, 'follow', async (lab) => {
      const marker = `MARKER-${newTrace().spanId}`;
      await lab.pool.query(ADD_MARKED_PRODUCT, [
        MARKED_PRODUCT_ID,
        'Marked product',
        `A description holding ${marker}`,
        4200,
      ]);
      const worker = await lab.launchWorker();
      const publisher = await lab.startPublisher();
      const server = lab.res.add(await listen(tracedApi(lab, publisher), 0), (s) => s.close());

      const header = newTrace();
      const response = await fetch(`${server.url}/exports`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: formatTraceParent(header) },
        body: JSON.stringify({ product_ids: [1, MARKED_PRODUCT_ID] }),
        signal: lab.signal,
      });
      const body = (await response.json().catch(() => ({}))) as { id?: unknown };
      const jobId = typeof body.id === 'string' ? body.id : undefined;
      if (jobId) {
        await within(
          'the job to succeed',
          async () => (await readJob(lab.pool, jobId))?.status === 'succeeded',
          10_000,
          lab,
        );
        // The row is finished inside the delivery; the worker's line is written a moment later.
        await within(
          "the worker's published line",
          async () => jobLines(jobId, worker.output()).some((l) => l.phase === 'published'),
          LINE_AFTER_ROW_MS,
          lab,
        );
      }
      const row = jobId ? await rowFacts(lab.pool, jobId) : undefined;
      const artifact = row?.resultRef
        ? await readFile(join(lab.artifactsDir, row.resultRef), 'utf8').catch(() => '')
        : '';
      const inProcess = lab.inProcess.join('');
      return {
        timings: describeTimings(lab.timings),
        header,
        status: response.status,
        jobId,
        row,
        eventIds: jobId ? await eventIdsOf(lab.pool, jobId) : [],
        lines: jobId ? jobLines(jobId, inProcess, worker.output()) : [],
        leaks: scanForLeaks(
          [
            ['api and publisher (this process)', inProcess],
            ['worker process (stdout and stderr)', worker.output()],
          ],
          marker,
        ),
        artifactHoldsMarker: artifact.includes(marker),
        problems: lab.problems,
      };
    });
}

// ---------------------------------------------------------------------------------
// 2. The trace survives a recovery

export interface RecoveryEvidence {
  timings: string;
  /** The submit's trace (admitTraced under withTrace). */
  trace: TraceParent;
  jobId: string;
  /** The direct claim that was never finished (the dead worker's). */
  firstClaim: { token: string; attempts: number } | undefined;
  eventIds: string[];
  row: RowFacts | undefined;
  lines: PhaseLine[];
  problems: string[];
}

export function traceAfterRecovery(setup: TraceSetup): (signal: AbortSignal) => Promise<RecoveryEvidence> {
  return (signal) =>
    withLab(signal, setup, 'recover', async (lab) => {
      const { pool, timings } = lab;
      const worker = await lab.launchWorker();
      const trace = newTrace();
      const { jobId } = await withTrace(trace, () =>
        admitTraced(pool, [2, 3], { rules: timings, deadlineMs: timings.deadlineMs }),
      );
      // The claim of a worker that dies at once: a token, a lease, and nobody to finish. The lease
      // is long and is ended below, once the first wake-up has been turned away: with a short
      // lease, a loaded machine could deliver that wake-up after the lease, the scan and the
      // backoff had passed, and it would claim attempt 2 itself (no second wake-up to follow).
      const claimed = await claimOrWait(pool, jobId, {
        leaseMs: DEAD_WORKER_LEASE_MS,
        maxAttempts: timings.maxAttempts,
      });
      const firstClaim =
        claimed.outcome === 'claimed' ? { token: claimed.job.token, attempts: claimed.job.attempts } : undefined;
      const [firstEvent] = await eventIdsOf(pool, jobId);

      const publisher = await lab.startPublisher();
      const scannerLogger = lab.logger('scanner');
      const scanner = startScanner({
        pool,
        timings,
        onBatch: async (report) => {
          await logRecoveryReport(pool, report, scannerLogger);
          if (report.requeued.length + report.redispatched.length > 0) publisher.nudge();
        },
        report: (line) => {
          lab.inProcess.push(`error: ${line}\n`);
          lab.problems.push(`scanner: ${line}`);
        },
      });
      lab.res.add(scanner, (s) => s.close());

      const turnedAway = (l: PhaseLine) => l.message_id === firstEvent && l.phase === 'not-claimed';
      await within(
        'the first wake-up to be turned away (the row is running)',
        async () => jobLines(jobId, worker.output()).some(turnedAway),
        10_000,
        lab,
      );
      await pool.query(EXPIRE_LEASE, [jobId]); // the dead worker's lease ends; the scanner's next pass finds it
      await within(
        'the job to succeed after its recovery',
        async () => (await readJob(pool, jobId))?.status === 'succeeded',
        timings.leaseMs + 8000,
        lab,
      );
      await within(
        "the worker's published line",
        async () => jobLines(jobId, worker.output()).some((l) => l.phase === 'published'),
        LINE_AFTER_ROW_MS,
        lab,
      );
      return {
        timings: describeTimings(timings),
        trace,
        jobId,
        firstClaim,
        eventIds: await eventIdsOf(pool, jobId),
        row: await rowFacts(pool, jobId),
        lines: jobLines(jobId, lab.inProcess.join(''), worker.output()),
        problems: lab.problems,
      };
    });
}
