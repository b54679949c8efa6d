// Entry point of a worker process for the deep dive "a lock shorter than a blocked event
// loop". PROCESSOR=inline runs the busy loop on this process's event loop;
// PROCESSOR=sandboxed hands it to a child process BullMQ forks (with the tsx loader, so
// the processor can stay a .ts file). Settings: src/options.ts (CPU_WORKER_OPTIONS).
// Like every process of this lab, it makes sure the lab's Redis runs first ([infra] ...).
import { fileURLToPath } from 'node:url';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { redisOptions } from '@tasks-lab/infra';
import { idempotent, onShutdown, runMain } from '@tasks-lab/lab-kit';
import { queueConnection, startWorker, type WorkerSettings } from '@tasks-lab/08-broker-worker';
import { BUSY_JOB_NAME, runBusyJob, type BusyJobData, type BusyJobResult } from './busy-work.ts';
import { CPU_WORKER_OPTIONS } from './options.ts';
import { exportsAddress } from './queue.ts';
import { ensureServices } from './services.ts';

type BusyWorker = Worker<BusyJobData, BusyJobResult, typeof BUSY_JOB_NAME>;

const SANDBOXED_PROCESSOR = fileURLToPath(new URL('./sandboxed-busy-processor.ts', import.meta.url));

/** Losing the lock shows up here: "Missing lock for job ..." or "Lock mismatch ...". */
const reportError = (err: Error) => console.log(`worker ${process.pid} error: ${err.message}`);

/**
 * The one Worker this lab constructs itself. Lab 08's startWorker runs handlers, functions
 * in this process; the lesson here is a processor given as a FILE, which BullMQ runs in a
 * child process of its own. Same connection, prefix and timings as startWorker would use.
 */
function startSandboxedWorker(queueName: string, settings: WorkerSettings): BusyWorker {
  const address = exportsAddress(queueName);
  const worker = new Worker<BusyJobData, BusyJobResult, typeof BUSY_JOB_NAME>(address.queueName, SANDBOXED_PROCESSOR, {
    connection: queueConnection(),
    prefix: address.prefix,
    concurrency: settings.concurrency,
    lockDuration: settings.lockDurationMs,
    stalledInterval: settings.stalledIntervalMs,
    maxStalledCount: settings.maxStalledCount,
    // The child must load TypeScript: give it the same tsx loader this process runs with.
    workerForkOptions: { execArgv: ['--import', import.meta.resolve('tsx')] },
  });
  worker.on('error', reportError);
  return worker;
}

async function main(): Promise<void> {
  const { queueName, processor, ...timings } = CPU_WORKER_OPTIONS.read();
  const settings = { ...timings, concurrency: 1 };
  await ensureServices(['redis']);
  const log = new Redis(redisOptions());
  const worker: BusyWorker =
    processor === 'sandboxed'
      ? startSandboxedWorker(queueName, settings)
      : startWorker(
          exportsAddress(queueName),
          { [BUSY_JOB_NAME]: (job) => runBusyJob(log, job) },
          { ...settings, onError: reportError },
        );
  worker.on('failed', (job, err) => console.log(`worker ${process.pid} job ${job?.id} failed: ${err.message}`));
  onShutdown(
    idempotent(async () => {
      await worker.close();
      log.disconnect();
    }),
  );
  await worker.waitUntilReady();
  console.log(
    `cpu worker ${process.pid} ready: ${processor} processor, lockDuration ${settings.lockDurationMs} ms, stalledInterval ${settings.stalledIntervalMs} ms`,
  );
}

runMain(import.meta.url, main);
