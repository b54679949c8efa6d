// Lesson 14's fast worker: exports.fast now carries TWO kinds of job, told apart by name (lab
// 08's name dispatch): lesson 11's export wake-ups (`products.export`, the small exports, with
// lesson 13's finish that leaves the admission gate), and the periodic signal (`schedule-tick`,
// src/tick.ts), which names the slot and schedules its export through the outbox, on
// exports.bulk. src/worker.ts runs it as the `pnpm worker:fast` process.
import type { Job, Worker } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { EXPORT_JOB_NAME, startWorker, type ExportJobName, type JobHandlers } from '@tasks-lab/08-broker-worker';
import {
  deliverExport,
  exportFaults,
  readyWithPool,
  type DeliveryOutcome,
  type ExportFaults,
  type WakeUpMessage,
} from '@tasks-lab/11-mysql-leases';
import { exportsAddress, FAST_QUEUE, finishOfForm } from '@tasks-lab/13-admission';
import { openJobsDatabase } from './database.ts';
import type { ScheduleOptionValues, WorkerProcessOptionValues } from './options.ts';
import {
  describeTick,
  handleTick,
  SCHEDULE_TICK_JOB_NAME,
  tickJobHandler,
  type TickMessage,
  type TickOutcome,
} from './tick.ts';

/** The fast queue's two job names, their messages and their results. */
export type FastJobName = ExportJobName | typeof SCHEDULE_TICK_JOB_NAME;
export type FastJobData = WakeUpMessage | TickMessage;
export type FastJobResult = DeliveryOutcome | TickOutcome;
export type FastWorker = Worker<FastJobData, FastJobResult, FastJobName>;
export type FastJob = Job<FastJobData, FastJobResult, FastJobName>;

/** What a signal does: src/tick.ts's handleTick (a can-fail fixture passes a broken one). */
export type TickHandler = typeof handleTick;

export interface StartFastWorkerOptions {
  process: WorkerProcessOptionValues;
  timings: ScheduleOptionValues;
  faults?: ExportFaults;
  /** The Redis to take jobs from. @defaultValue the lab's */
  connection?: RedisOptions;
  /** Called with each signal's outcome (the process prints its line from the 'completed' event). */
  onTick?: (outcome: TickOutcome, job: FastJob) => void;
  /** @defaultValue handleTick */
  tick?: TickHandler;
}

export interface RunningFastWorker {
  worker: FastWorker;
  /** Stops taking jobs, waits for the running ones, closes the pool. Idempotent. */
  close(): Promise<void>;
}

export async function startFastWorker(options: StartFastWorkerOptions): Promise<RunningFastWorker> {
  const { process: settings, timings } = options;
  const faults = options.faults ?? exportFaults();
  const tick = options.tick ?? handleTick;
  const pool = await openJobsDatabase({ database: settings.database, settings: timings });
  // Lesson 13's delivery, exactly as its route worker does it: the finish leaves the admission gate.
  const exportContext = {
    pool,
    leaseMs: timings.leaseMs,
    maxAttempts: timings.maxAttempts,
    artifactsDir: settings.artifactsDir,
    faults,
    parts: { finish: finishOfForm(timings.finishForm) },
  };
  const handleSignal = tickJobHandler(pool, timings, tick);
  const handlers: JobHandlers<FastJobData, FastJobResult, FastJobName> = {
    [EXPORT_JOB_NAME]: (job) => deliverExport(job.data, exportContext),
    [SCHEDULE_TICK_JOB_NAME]: async (job) => {
      const outcome = await handleSignal(job);
      options.onTick?.(outcome, job);
      return outcome;
    },
  };
  const worker: FastWorker = startWorker(exportsAddress(FAST_QUEUE, settings.queuePrefix), handlers, {
    ...settings,
    connection: options.connection,
  });
  // Lesson 11's: a worker that never got ready leaves no pool open; close is the worker, then the pool.
  return { worker, close: await readyWithPool(worker, pool) };
}

const isTickOutcome = (result: FastJobResult): result is TickOutcome => 'slotKey' in result;

/**
 * One line per job, naming the queue: `exports.fast tick planned … handled …: slot … scheduled
 * job … (BullMQ id repeat:<schedule>:<ms>)` per signal, lesson 13's `exports.fast delivered job …`
 * per export. The checks read who did what from these lines.
 */
export function logFastWork(running: RunningFastWorker, log: (line: string) => void = console.log): void {
  running.worker.on('completed', (job, result) => {
    if (isTickOutcome(result)) log(`${FAST_QUEUE} ${describeTick(result)} (BullMQ id ${job.id})`);
    else
      log(
        `${FAST_QUEUE} delivered job ${result.job_id} (BullMQ id ${job.id}): claimed ${result.claimed}, published ${result.published}`,
      );
  });
  running.worker.on('failed', (job, err) => {
    if (job?.name === SCHEDULE_TICK_JOB_NAME) log(`${FAST_QUEUE} tick (BullMQ id ${job.id}) failed: ${err.message}`);
    else
      log(
        `${FAST_QUEUE} delivery of job ${(job?.data as Partial<WakeUpMessage> | undefined)?.job_id ?? '?'} (BullMQ id ${job?.id ?? '?'}) failed: ${err.message}`,
      );
  });
}
