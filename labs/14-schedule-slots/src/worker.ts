// `pnpm worker:fast` and `pnpm worker:bulk`: lesson 13's two workers, on lab 14's database
// and BullMQ prefix, one OS process per queue.
//
//   fast   src/fast-worker.ts: lesson 11's export wake-ups and lesson 14's periodic signal
//   bulk   lesson 13's route worker, unchanged. The scheduled exports land here, so a long
//          periodic export never holds the fast worker's slot.
//
// The fast worker does NOT register the schedule (`pnpm schedule` does): a worker that
// registered it at start-up would re-register it on every restart and deploy. Its ready line
// says whether a schedule exists on its queue, so a missing `pnpm schedule` is seen at once.
//
//   pnpm worker:fast                                  exports.fast: small exports and the signals
//   pnpm worker:bulk                                  exports.bulk: the big and the scheduled exports
import type { RedisOptions } from 'ioredis';
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { onShutdown, runMain } from '@tasks-lab/lab-kit';
import { EXPORT_JOB_NAME, openQueue } from '@tasks-lab/08-broker-worker';
import { exportFaults, WORKER_SHUTDOWN_GRACE_MS } from '@tasks-lab/11-mysql-leases';
import {
  BULK_QUEUE,
  exportsAddress,
  FAST_QUEUE,
  logDeliveries,
  routeNamed,
  startRouteWorker,
} from '@tasks-lab/13-admission';
import { logFastWork, startFastWorker } from './fast-worker.ts';
import {
  describeTimings,
  LAB,
  readScheduleOptions,
  WORKER_PROCESS_OPTIONS,
  type WorkerProcessOptionValues,
} from './options.ts';
import { describeScheduleState, readScheduleState } from './schedule-registration.ts';
import { SCHEDULE_TICK_JOB_NAME, type TickMessage, type TickOutcome } from './tick.ts';

/** "schedule …: registered, every 1 s, next planned run …", read once at start-up (it changes nothing). */
async function scheduleOnQueue(
  settings: WorkerProcessOptionValues,
  scheduleId: string,
  connection?: RedisOptions,
): Promise<string> {
  const queue = await openQueue<TickMessage, TickOutcome>(exportsAddress(FAST_QUEUE, settings.queuePrefix), {
    connection,
  });
  try {
    return describeScheduleState(await readScheduleState(queue, scheduleId));
  } finally {
    await queue.close();
  }
}

async function main(): Promise<void> {
  const { queueName } = routeNamed(process.argv[2]);
  const settings = WORKER_PROCESS_OPTIONS.read(); // a bad value stops the process here, before anything connects
  const timings = readScheduleOptions();
  const faults = exportFaults();
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  // Safe from every process at start-up: a named lock serialises it, applied files are skipped.
  await migrateLab(LAB, { database: settings.database });
  const where = `queue ${queueName} (prefix ${settings.queuePrefix}), database ${settings.database}, concurrency ${settings.concurrency}`;
  if (queueName === FAST_QUEUE) {
    const running = await startFastWorker({ process: settings, timings, faults });
    logFastWork(running);
    onShutdown(running.close, { graceMs: WORKER_SHUTDOWN_GRACE_MS });
    const schedule = await scheduleOnQueue(settings, timings.scheduleId);
    console.log(
      `export worker ${process.pid} ready: ${where}, jobs ${EXPORT_JOB_NAME} and ${SCHEDULE_TICK_JOB_NAME}; ${schedule}; ${describeTimings(timings)}; ${faults.describe()}`,
    );
    return;
  }
  const running = await startRouteWorker({ queueName: BULK_QUEUE, process: settings, lease: timings, faults });
  logDeliveries(running, BULK_QUEUE);
  onShutdown(running.close, { graceMs: WORKER_SHUTDOWN_GRACE_MS });
  console.log(
    `export worker ${process.pid} ready: ${where}, job ${EXPORT_JOB_NAME}; ${describeTimings(timings)}; ${faults.describe()}`,
  );
}

runMain(import.meta.url, main);
