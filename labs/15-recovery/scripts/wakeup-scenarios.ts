// The lost wake-up, reproduced for real; scripts/wakeup-checks.ts judges what it saw.
//
// One experiment, run with different claims: a fresh database, a BullMQ prefix of its own
// (scratchQueuePrefix), and in this process
//   - lesson 12's publisher (startPublisher), confirming with lesson 15's confirmation
//     (src/confirm.ts: job row locked first) and the fault point `confirm-holding-job-lock`
//     switched on (delay-500:always): the confirmation holds the job's row lock 500 ms;
//   - a BullMQ worker on the same queue whose handler claims CLAIM_DELAY_MS after it
//     received the wake-up, with the claim under test: lesson 11's (SKIP LOCKED) or
//     claimOrWait (src/claim.ts). A 'busy' claim puts the delivery back (DelayedError).
// Then it admits N jobs one by one (lesson 13's admitExport: the job and its event), nudges
// the publisher, and waits for each job's confirmation and delivery before the next one.
// Per job it records when the confirmation held the lock, when each delivery claimed and
// what it got, the row afterwards, and what BullMQ kept of each message.
//
//   lostWakeUps(course claim)        every wake-up arrives while its job row is locked: N of N lost
//   lostWakeUps(claimOrWait)         every job claimed by its first delivery, after a wait
//   lostWakeUps(…, duplicates: true) each event sent TWICE (at least once: a second wake-up with
//                                    an id of its own); both deliveries wait on the lock; exactly
//                                    one may claim, the other must re-check and find it running
//
// All times are ms since the experiment started, on this process's clock (one clock for
// the publisher and the worker, which is why both run in this process).
import { performance } from 'node:perf_hooks';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { ensureInfra } from '@tasks-lab/infra';
import {
  errorMessage,
  faultPoints,
  faultRule,
  FAULTS_ENV,
  waitFor,
  sleep,
  withResources,
  type Resources,
} from '@tasks-lab/lab-kit';
import { EXPORT_JOB_NAME, openQueue, startWorker } from '@tasks-lab/08-broker-worker';
import {
  parseWakeUp,
  wakeWorker,
  type DeliveryOutcome,
  type WakeUpJob,
  type WakeUpMessage,
  type WakeUpQueue,
  type WakeUpWorker,
} from '@tasks-lab/11-mysql-leases';
import {
  publisherFaults,
  readEvent,
  sendWakeUp,
  startPublisher,
  type ClaimedEvent,
  type PublisherParts,
} from '@tasks-lab/12-outbox';
import { admitExport, exportsAddress, FAST_QUEUE, scratchQueuePrefix } from '@tasks-lab/13-admission';
import {
  claimInOneUpdate,
  claimOrWait,
  courseClaimAttempt,
  putDeliveryBack,
  type ClaimAttempt,
  type ClaimFn,
} from '../src/claim.ts';
import {
  CONFIRM_FAULT_POINTS,
  dispatchRecordingParts,
  type ConfirmFaultHit,
  type ConfirmFaults,
} from '../src/confirm.ts';
import { freshDatabase, openJobsDatabase } from '../src/database.ts';
import { QUEUE_PREFIX, readShortRecoveryOptions, type RecoveryOptionValues } from '../src/options.ts';

/** How long the fault point holds the job row during the confirmation (`confirm-holding-job-lock:delay-500:always`): half a second, under the 1 s lock wait. */
export const FAULT_DELAY_MS = 500;

/**
 * How long the worker waits after receiving a wake-up before it claims. Why: the publisher
 * SENDS first and only then opens the confirmation, and BullMQ hands the message to a
 * waiting worker within a few ms, often before the confirmation has locked the row. In
 * production the worker is sometimes that fast and sometimes not (hence "a few per cent to
 * half"); here the worker always arrives second, inside the window the fault holds open.
 * 100 ms is far more than the confirmation needs to lock the row (a BEGIN and one SELECT)
 * and far less than the 500 ms it then holds it: both margins stay wide on a loaded
 * 2-core machine, so the race is staged the same way on every run.
 */
export const CLAIM_DELAY_MS = 100;

/** Jobs per experiment, submitted one after another (each with its own lock window). */
export const LOST_WAKEUP_JOBS = 5;
/** Jobs of the duplicate experiment (each woken twice). */
export const DUPLICATE_JOBS = 2;

/** What each export holds: one product of the migration's seed, so the route is exports.fast. */
const PRODUCTS = [1];

/** The claims a check names: lesson 11's (the course's) and lesson 15's two forms. */
export const COURSE_CLAIM: NamedClaim = { name: "lesson 11's claim (SKIP LOCKED)", claim: courseClaimAttempt };
export const FIXED_CLAIM: NamedClaim = { name: 'claimOrWait', claim: claimOrWait };
/** The lab's default claim (CLAIM_FORM=one-update): lesson 11's conditional UPDATE alone, then a read. */
export const ONE_UPDATE_CLAIM: NamedClaim = { name: 'claimInOneUpdate', claim: claimInOneUpdate };

export interface NamedClaim {
  name: string;
  claim: ClaimFn;
}

export interface WakeupSetup {
  /** The worker's claim. */
  claim: NamedClaim;
  /** How long the confirmation holds the job lock; 0 = no fault point switched on. */
  faultDelayMs: number;
  jobs: number;
  /** Each event's wake-up is sent twice (a second message with an id of its own). */
  duplicates: boolean;
  /** The database session (the lock wait above all), the lease, the publisher's timings. */
  timings: RecoveryOptionValues;
}

export const wakeupSetup = (claim: NamedClaim, changes: Partial<WakeupSetup> = {}): WakeupSetup => ({
  claim,
  faultDelayMs: FAULT_DELAY_MS,
  jobs: LOST_WAKEUP_JOBS,
  duplicates: false,
  timings: readShortRecoveryOptions(),
  ...changes,
});

// ---------------------------------------------------------------------------------
// The evidence

/** One delivery's claim, as the worker's handler saw it. */
export interface ClaimSeen {
  bullmqId: string;
  receivedAt: number;
  claimStartedAt: number;
  claimEndedAt: number;
  outcome: ClaimAttempt['outcome'] | 'error';
  error?: string;
}

/** The confirmation of a job's event: when it held the job lock (the fault point's moment) and how it ended. */
export interface ConfirmSeen {
  /** When the job row was locked (the fault point was reached); undefined: it never got there. */
  lockedAt: number | undefined;
  /** When the transaction had committed (or failed). */
  endedAt: number;
  confirmed: boolean | 'error';
}

/** What BullMQ kept of one wake-up message of the job. */
export interface MessageSeen {
  id: string;
  state: string;
  /** The delivery's return value (DeliveryOutcome.claimed), when it completed. */
  claimed: boolean | undefined;
}

export interface WakeupRun {
  jobId: string;
  eventId: string;
  confirm: ConfirmSeen | undefined;
  deliveries: ClaimSeen[];
  /** The job's row once its deliveries were handled. */
  row: { status: string; attempts: number; dispatched: boolean } | undefined;
  /** The outbox event's sent_at is set. */
  eventSent: boolean;
  messages: MessageSeen[];
  /** The confirmation and every delivery finished within the wait (false: something hung). */
  settled: boolean;
}

export interface WakeupEvidence {
  claimName: string;
  /** The LAB_FAULTS rule the confirmation ran with ('' = none). */
  faultRule: string;
  faultDelayMs: number;
  claimDelayMs: number;
  lockWaitSeconds: number;
  duplicates: boolean;
  runs: WakeupRun[];
  /** The publisher's reported errors and the worker's failures. */
  errors: string[];
}

// ---------------------------------------------------------------------------------
// Rows the experiment reads (named; each reads one job of the experiment's own database)

/** The job's state, attempts and whether a dispatch was recorded. Rows: 0 or 1. Parameters: [jobId]. */
const READ_DISPATCH_STATE = `
  SELECT status, attempts, last_dispatched_at IS NOT NULL AS dispatched
  FROM export_jobs
  WHERE id = ?`;

async function readRow(pool: Pool, jobId: string): Promise<WakeupRun['row']> {
  const [rows] = await pool.query<RowDataPacket[]>(READ_DISPATCH_STATE, [jobId]);
  const row = rows[0];
  return (
    row && { status: String(row.status), attempts: Number(row.attempts), dispatched: Boolean(Number(row.dispatched)) }
  );
}

// ---------------------------------------------------------------------------------
// The experiment

/** What the publisher and the worker record while the experiment runs, by job id. */
interface Recorder {
  clock: () => number;
  confirms: Map<string, ConfirmSeen>;
  deliveries: Map<string, ClaimSeen[]>;
  messageIds: Map<string, string[]>;
  errors: string[];
}

function recorder(): Recorder {
  const t0 = performance.now();
  return {
    clock: () => Math.round(performance.now() - t0),
    confirms: new Map(),
    deliveries: new Map(),
    messageIds: new Map(),
    errors: [],
  };
}

const push = <T>(map: Map<string, T[]>, key: string, value: T) => map.set(key, [...(map.get(key) ?? []), value]);

export function lostWakeUps(setup: WakeupSetup): (signal: AbortSignal) => Promise<WakeupEvidence> {
  return (signal) =>
    withResources(signal, async (res) => {
      await ensureInfra({ services: ['redis', 'mysql'] });
      const { timings } = setup;
      const db = res.add(await freshDatabase(setup.duplicates ? 'wakeupdup' : 'wakeup', { settings: timings }), (d) =>
        d.drop(),
      );
      // Registered after the database and before the worker and the publisher: their queue is
      // obliterated once both are closed, and before the database is dropped.
      const prefix = scratchQueuePrefix(res, QUEUE_PREFIX);
      const rec = recorder();
      const rule =
        setup.faultDelayMs > 0 ? faultRule('confirm-holding-job-lock', `delay-${setup.faultDelayMs}`, 'always') : '';
      // A pool of the worker's own, as a worker process would have: the publisher's connections never serve a claim.
      const workerPool = res.add(await openJobsDatabase({ database: db.name, settings: timings }), (p) => p.end());
      const worker = await startClaimWorker(res, setup, prefix, workerPool, rec);
      const faults = faultPoints(CONFIRM_FAULT_POINTS, { [FAULTS_ENV]: rule });
      const publisher = await startPublisher({
        pool: db.pool,
        // The course's confirmation, one transaction per event: its fault point holds the job row
        // between round trips (the round form's one statement has no moment to widen).
        timings: { ...timings, confirmForm: 'per-event' },
        prefix,
        listen: false, // this experiment nudges it directly, once per job
        faults: publisherFaults({}), // lesson 12's points: none (a LAB_FAULTS meant for something else must not reach it)
        parts: publisherParts(setup, faults, rec),
        report: (line) => rec.errors.push(`publisher: ${line}`),
      });
      res.add(publisher, (p) => p.close());
      const queue = res.add(
        await openQueue<WakeUpMessage, DeliveryOutcome, typeof EXPORT_JOB_NAME>(exportsAddress(FAST_QUEUE, prefix)),
        (q) => q.close(),
      );

      const runs: WakeupRun[] = [];
      for (let i = 0; i < setup.jobs; i++) {
        const admitted = await admitExport(db.pool, PRODUCTS, { rules: timings, deadlineMs: timings.deadlineMs });
        publisher.nudge();
        const settled = await waitUntilHandled(setup, rec, admitted.jobId, res.signal);
        await worker.idle(res.signal);
        runs.push({
          jobId: admitted.jobId,
          eventId: admitted.eventId,
          confirm: rec.confirms.get(admitted.jobId),
          deliveries: rec.deliveries.get(admitted.jobId) ?? [],
          row: await readRow(db.pool, admitted.jobId),
          eventSent: Boolean((await readEvent(db.pool, admitted.eventId))?.sentAt),
          messages: await readMessages(queue, rec.messageIds.get(admitted.jobId) ?? [], res.signal),
          settled,
        });
      }
      return {
        claimName: setup.claim.name,
        faultRule: rule,
        faultDelayMs: setup.faultDelayMs,
        claimDelayMs: CLAIM_DELAY_MS,
        lockWaitSeconds: timings.lockWaitSeconds,
        duplicates: setup.duplicates,
        runs,
        errors: rec.errors.slice(0, 5),
      };
    });
}

/**
 * The publisher's parts: lesson 15's confirmation (dispatchRecordingParts, the lab's own),
 * watched: the fault point's moment is when the job row is locked. With `duplicates`, each
 * event's wake-up is followed by a second one (lesson 11's wakeWorker: an id of its own),
 * before the confirmation, as a resend or a recovery event could arrive.
 */
function publisherParts(setup: WakeupSetup, faults: ConfirmFaults, rec: Recorder): Partial<PublisherParts> {
  return {
    sendWakeUp: async (queue: WakeUpQueue, event: ClaimedEvent): Promise<WakeUpJob> => {
      const sent = await sendWakeUp(queue, event);
      push(rec.messageIds, event.jobId, event.eventId);
      if (setup.duplicates) push(rec.messageIds, event.jobId, String((await wakeWorker(queue, event.jobId)).id));
      return sent;
    },
    confirmSent: async (pool, eventId, token, event) => {
      let lockedAt: number | undefined;
      const watched: ConfirmFaultHit = {
        hit: async (point) => {
          lockedAt = rec.clock();
          await faults.hit(point);
        },
      };
      try {
        const confirmed = await dispatchRecordingParts(watched).confirmSent(pool, eventId, token, event);
        rec.confirms.set(event.jobId, { lockedAt, endedAt: rec.clock(), confirmed });
        return confirmed;
      } catch (err) {
        rec.confirms.set(event.jobId, { lockedAt, endedAt: rec.clock(), confirmed: 'error' });
        throw err;
      }
    },
  };
}

interface ClaimWorker {
  /** Resolves once no delivery is running (the last handler returned). */
  idle(signal: AbortSignal): Promise<void>;
}

/**
 * A BullMQ worker on the experiment's queue (lab 08's startWorker; concurrency 2, as two
 * worker processes would be), whose handler waits CLAIM_DELAY_MS, then claims with the
 * claim under test. 'busy' puts the delivery back for claimBusyRetryMs without spending an
 * attempt; anything else completes the wake-up with lesson 11's DeliveryOutcome. No
 * artifact, no finish: the experiment is about the claim.
 */
async function startClaimWorker(
  res: Resources,
  setup: WakeupSetup,
  prefix: string,
  pool: Pool,
  rec: Recorder,
): Promise<ClaimWorker> {
  let running = 0;
  const handle = async (job: WakeUpJob, token: string | undefined): Promise<DeliveryOutcome> => {
    const receivedAt = rec.clock();
    const { job_id: jobId } = parseWakeUp(job.data);
    await sleep(CLAIM_DELAY_MS); // see CLAIM_DELAY_MS: the worker arrives inside the confirmation's lock
    const claimStartedAt = rec.clock();
    const seen = (outcome: ClaimSeen['outcome'], error?: string): ClaimSeen => ({
      bullmqId: String(job.id),
      receivedAt,
      claimStartedAt,
      claimEndedAt: rec.clock(),
      outcome,
      error,
    });
    let attempt: ClaimAttempt;
    try {
      attempt = await setup.claim.claim(pool, jobId, {
        leaseMs: setup.timings.leaseMs,
        maxAttempts: setup.timings.maxAttempts,
      });
    } catch (err) {
      push(rec.deliveries, jobId, seen('error', errorMessage(err)));
      throw err;
    }
    push(rec.deliveries, jobId, seen(attempt.outcome));
    if (attempt.outcome === 'busy') return putDeliveryBack(job, token, setup.timings.claimBusyRetryMs);
    return { job_id: jobId, claimed: attempt.outcome === 'claimed', published: false };
  };
  const worker: WakeUpWorker = startWorker(
    exportsAddress(FAST_QUEUE, prefix),
    {
      [EXPORT_JOB_NAME]: async (job: WakeUpJob, _signal?: AbortSignal, token?: string) => {
        running += 1;
        try {
          return await handle(job, token);
        } finally {
          running -= 1;
        }
      },
    },
    {
      concurrency: 2,
      lockDurationMs: 30_000,
      stalledIntervalMs: 30_000,
      maxStalledCount: 1,
      onError: (err) => rec.errors.push(`worker: ${err.message}`),
    },
  );
  worker.on('failed', (job, err) => {
    if (err.name !== 'DelayedError') rec.errors.push(`delivery ${job?.id ?? '?'} failed: ${err.message}`);
  });
  res.add(worker, (w) => w.close());
  await worker.waitUntilReady();
  return {
    idle: async (signal) =>
      void (await waitFor('the worker to finish its deliveries', () => running === 0, {
        timeoutMs: 5000,
        intervalMs: 10,
        signal,
      })),
  };
}

/**
 * Until the job's confirmation ended and each of its messages had a final claim (claimed,
 * not-claimable, or an error; a 'busy' one comes back later). false if that took longer
 * than a generous bound: the judge says what was missing.
 */
async function waitUntilHandled(
  setup: WakeupSetup,
  rec: Recorder,
  jobId: string,
  signal: AbortSignal,
): Promise<boolean> {
  const messages = setup.duplicates ? 2 : 1;
  const finalClaims = () => (rec.deliveries.get(jobId) ?? []).filter((d) => d.outcome !== 'busy').length;
  const timeoutMs = 5000 + setup.faultDelayMs + setup.timings.lockWaitSeconds * 1000;
  return waitFor(
    `job ${jobId}'s confirmation and deliveries`,
    () => rec.confirms.has(jobId) && finalClaims() >= messages,
    { timeoutMs, intervalMs: 10, signal },
  ).then(
    () => true,
    (err: unknown) => {
      if (signal.aborted) throw err;
      return false;
    },
  );
}

/** BullMQ's state of each message (completed = consumed) and the claimed flag its delivery returned. */
async function readMessages(queue: WakeUpQueue, ids: readonly string[], signal: AbortSignal): Promise<MessageSeen[]> {
  const final = new Set(['completed', 'failed']);
  return Promise.all(
    ids.map(async (id) => {
      // The worker marks the message completed a moment after the handler returned.
      const state = await waitFor(
        `message ${id} to be completed`,
        async () => {
          const s = await queue.getJobState(id);
          return final.has(s) ? s : false;
        },
        { timeoutMs: 3000, intervalMs: 20, signal },
      ).catch(async (err: unknown) => {
        if (signal.aborted) throw err;
        return queue.getJobState(id);
      });
      const job = await queue.getJob(id);
      return { id, state, claimed: job?.returnvalue?.claimed };
    }),
  );
}
