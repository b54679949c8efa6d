// Lesson 15's worker: lessons 13 and 14's two workers in one shape, with lesson 15's delivery of
// an export (src/chunked-delivery.ts: the claim CLAIM_FORM names, the artifact in chunks with canContinue
// before each, finish). A claim that found the row still locked after one lock wait ('busy') is
// put back for CLAIM_BUSY_RETRY_MS without spending a BullMQ attempt (job.moveToDelayed +
// DelayedError). Lesson 14's tick handler runs the periodic signals on the fast queue, as there.
// Its close is lesson 15's graceful exit (src/graceful-exit.ts). src/worker.ts runs it as a process.
import type { Job, Worker } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { errorMessage, idempotent } from '@tasks-lab/lab-kit';
import { EXPORT_JOB_NAME, startWorker, type ExportJobName, type JobHandlers } from '@tasks-lab/08-broker-worker';
import type { ClaimedJob, WakeUpMessage } from '@tasks-lab/11-mysql-leases';
import { type BULK_QUEUE, exportsAddress, FAST_QUEUE, finishOfForm } from '@tasks-lab/13-admission';
import {
  describeTick,
  tickJobHandler,
  SCHEDULE_TICK_JOB_NAME,
  type TickMessage,
  type TickOutcome,
} from '@tasks-lab/14-schedule-slots';
import {
  type ChunkedContext,
  type ChunkedOutcome,
  type ChunkedParts,
  deliverInChunks,
  type RecoveryFaults,
  recoveryFaults,
} from './chunked-delivery.ts';
import { claimOfForm, putDeliveryBack } from './claim.ts';
import { closeWithGrace, WORKER_SHUTDOWN_GRACE_MS } from './graceful-exit.ts';
import { openJobsDatabase } from './database.ts';
import type { RecoveryOptionValues, WorkerProcessOptionValues } from './options.ts';

export type RecoveryJobName = ExportJobName | typeof SCHEDULE_TICK_JOB_NAME;
export type RecoveryJobData = WakeUpMessage | TickMessage;
export type RecoveryJobResult = ChunkedOutcome | TickOutcome;
export type RecoveryWorker = Worker<RecoveryJobData, RecoveryJobResult, RecoveryJobName>;
export type RecoveryJob = Job<RecoveryJobData, RecoveryJobResult, RecoveryJobName>;

/**
 * What a later lesson may watch or adjust in each delivery of an export (lesson 16's phase logs
 * and trace context). All optional; without them the worker behaves as above.
 */
export interface DeliveryHooks {
  /** The message deliverInChunks parses (`{ job_id }`). @defaultValue job.data (lesson 16 takes its trace context out first) */
  messageOf?(job: RecoveryJob): unknown;
  /** Awaited before each delivery's claim; a throw fails the delivery before any claim (lesson 16's before-claim fault). */
  received?(job: RecoveryJob): void | Promise<void>;
  /** Told about each claim that won, before anything is written. */
  claimed?(job: RecoveryJob, claimed: ClaimedJob): void;
  /** Told how each delivery ended (claimed or not, published or not, busy, stopped). */
  delivered?(job: RecoveryJob, outcome: ChunkedOutcome): void;
  /** Told about each delivery that threw (the database went away, a fault was injected). */
  failed?(job: RecoveryJob | undefined, err: Error): void;
}

export interface StartRecoveryWorkerOptions {
  queueName: typeof FAST_QUEUE | typeof BULK_QUEUE;
  process: WorkerProcessOptionValues;
  timings: RecoveryOptionValues;
  faults?: RecoveryFaults;
  parts?: Partial<ChunkedParts>;
  /** How long running deliveries may go on after close() before they are aborted. @defaultValue WORKER_SHUTDOWN_GRACE_MS */
  shutdownGraceMs?: number;
  connection?: RedisOptions;
  /** The process's lines: a failed delivery, the signals and the grace. @defaultValue console.log */
  log?: (line: string) => void;
  /** One line per claim, per delivery and per busy row put back (the drills read them). @defaultValue log */
  logEachJob?: (line: string) => void;
  /** Lesson 16's observers of each delivery. */
  hooks?: DeliveryHooks;
}

export interface RunningRecoveryWorker {
  worker: RecoveryWorker;
  /** Stops taking jobs, waits up to the grace, aborts what still runs, closes the pool. Idempotent. */
  close(): Promise<void>;
}

/** "claimed job … attempt 2 (BullMQ id …) at <ISO>, lease until <ISO>": the drills read the claims from these lines. */
export function describeClaim(queueName: string, job: ClaimedJob, bullmqId: string | undefined): string {
  return `${queueName} claimed job ${job.jobId} attempt ${job.attempts} (BullMQ id ${bullmqId ?? '?'}) at ${new Date().toISOString()}, lease until ${job.leaseUntil.toISOString()}`;
}

/** "delivered job … (BullMQ id …, stalled 1): claimed false, published false, chunks 0/0". */
export function describeDelivery(
  queueName: string,
  outcome: ChunkedOutcome,
  bullmqId: string | undefined,
  stalled: number,
): string {
  const stop = outcome.stoppedBecause ? `, stopped ${outcome.stoppedBecause}` : '';
  return (
    `${queueName} delivered job ${outcome.job_id} (BullMQ id ${bullmqId ?? '?'}, stalled ${stalled}): ` +
    `claimed ${outcome.claimed}, published ${outcome.published}, chunks ${outcome.chunksWritten}/${outcome.chunksTotal}${stop}`
  );
}

export async function startRecoveryWorker(options: StartRecoveryWorkerOptions): Promise<RunningRecoveryWorker> {
  const { process: settings, timings, queueName } = options;
  const faults = options.faults ?? recoveryFaults();
  const log = options.log ?? console.log;
  const logEachJob = options.logEachJob ?? log;
  const graceMs = options.shutdownGraceMs ?? WORKER_SHUTDOWN_GRACE_MS;
  const hooks: DeliveryHooks = options.hooks ?? {};
  const pool = await openJobsDatabase({ database: settings.database, settings: timings });
  // Ours, on top of BullMQ's per-job signal: aborted once the grace is over (closeWithGrace).
  const shutdown = new AbortController();

  const exportContext = (job: RecoveryJob, signal: AbortSignal | undefined): ChunkedContext => ({
    pool,
    leaseMs: timings.leaseMs,
    maxAttempts: timings.maxAttempts,
    artifactsDir: settings.artifactsDir,
    chunkRows: timings.chunkRows,
    faults,
    parts: { claimOrWait: claimOfForm(timings.claimForm), finish: finishOfForm(timings.finishForm), ...options.parts },
    signal: signal ? AbortSignal.any([signal, shutdown.signal]) : shutdown.signal,
    onClaim: (claimed) => {
      logEachJob(describeClaim(queueName, claimed, job.id));
      hooks.claimed?.(job, claimed);
    },
  });

  const deliver = async (job: RecoveryJob, signal?: AbortSignal, token?: string): Promise<ChunkedOutcome> => {
    await hooks.received?.(job);
    const message = hooks.messageOf ? hooks.messageOf(job) : job.data;
    const outcome = await deliverInChunks(message, exportContext(job, signal));
    hooks.delivered?.(job, outcome);
    if (!outcome.busy) return outcome;
    // The row is locked by someone who has not committed yet (a confirmation, another claim):
    // try again shortly. moveToDelayed + DelayedError does not count as a failed attempt.
    logEachJob(
      `${queueName} claim of job ${outcome.job_id} (BullMQ id ${job.id}) found its row busy: put back for ${timings.claimBusyRetryMs} ms`,
    );
    return putDeliveryBack(job, token ?? job.token, timings.claimBusyRetryMs);
  };

  const handlers = { [EXPORT_JOB_NAME]: deliver } as JobHandlers<RecoveryJobData, RecoveryJobResult, RecoveryJobName>;
  if (queueName === FAST_QUEUE) {
    // Lesson 14's signal, unchanged: it names its slot and schedules the export through the outbox.
    handlers[SCHEDULE_TICK_JOB_NAME] = tickJobHandler(pool, timings);
  }
  const worker: RecoveryWorker = startWorker(exportsAddress(queueName, settings.queuePrefix), handlers, {
    ...settings,
    connection: options.connection,
  });
  logWork(worker, queueName, log, logEachJob);
  if (hooks.failed) worker.on('failed', (job, err) => hooks.failed?.(job, err));
  try {
    await worker.waitUntilReady();
  } catch (err) {
    await worker.close().catch(() => {});
    await pool.end().catch(() => {});
    throw err;
  }

  const close = idempotent(async () => {
    await closeWithGrace(worker, shutdown, graceMs, log);
    await pool.end();
  });
  return { worker, close };
}

const isTick = (result: RecoveryJobResult): result is TickOutcome => 'slotKey' in result;

type Log = (line: string) => void;

function logWork(worker: RecoveryWorker, queueName: string, log: Log, logEachJob: Log): void {
  worker.on('completed', (job, result) => {
    if (isTick(result)) logEachJob(`${queueName} ${describeTick(result)} (BullMQ id ${job.id})`);
    else logEachJob(describeDelivery(queueName, result, job.id, job.stalledCounter));
  });
  worker.on('failed', (job, err) => {
    // A busy claim put back is not a failure (BullMQ does not emit 'failed' for a DelayedError).
    const what =
      job?.name === SCHEDULE_TICK_JOB_NAME
        ? 'tick'
        : `delivery of job ${(job?.data as Partial<WakeUpMessage> | undefined)?.job_id ?? '?'}`;
    log(`${queueName} ${what} (BullMQ id ${job?.id ?? '?'}) failed: ${errorMessage(err)}`);
  });
}
