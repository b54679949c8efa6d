// Entry point of a worker process for the deep dive "a lock shorter than a blocked event
// loop". PROCESSOR=inline runs the busy loop on this process's event loop;
// PROCESSOR=sandboxed hands it to a child process BullMQ forks (with the tsx loader, so
// the processor can stay a .ts file).
import { fileURLToPath } from 'node:url';
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { labPrefix, redisOptions } from '@tasks-lab/infra';
import { runBusyJob, type BusyJobData } from './busy-work.ts';
import { bullConnection } from './queue.ts';

const queueName = process.env.QUEUE_NAME ?? 'busy';
const mode = process.env.PROCESSOR === 'sandboxed' ? 'sandboxed' : 'inline';
const lockDuration = Number(process.env.LOCK_DURATION_MS ?? 30_000);
const stalledInterval = Number(process.env.STALLED_INTERVAL_MS ?? 30_000);

const log = new Redis(redisOptions());
const sandboxFile = fileURLToPath(new URL('./sandboxed-busy-processor.ts', import.meta.url));
const inline = (job: Job<BusyJobData>) => runBusyJob(log, queueName, job);

const worker = new Worker<BusyJobData>(queueName, mode === 'sandboxed' ? sandboxFile : inline, {
  connection: bullConnection(),
  prefix: labPrefix('09'),
  concurrency: 1,
  lockDuration,
  stalledInterval,
  maxStalledCount: 1,
  // The child must load TypeScript: give it the same tsx loader this process runs with.
  workerForkOptions: { execArgv: ['--import', import.meta.resolve('tsx')], env: { ...process.env, QUEUE_NAME: queueName } },
});
// Losing the lock shows up here: "Missing lock for job ..." or "Lock mismatch ...".
worker.on('error', (err) => console.log(`worker ${process.pid} error: ${err.message}`));
worker.on('failed', (job, err) => console.log(`worker ${process.pid} job ${job?.id} failed: ${err.message}`));

const stop = () => void worker.close().then(() => { log.disconnect(); process.exit(0); });
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
await worker.waitUntilReady();
console.log(`cpu worker ${process.pid} ready: ${mode} processor, lockDuration ${lockDuration} ms, stalledInterval ${stalledInterval} ms`);
