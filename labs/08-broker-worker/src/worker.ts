// `pnpm worker`: the export worker as its own OS process, like the course's
// `celery worker -Q exports --concurrency=2`. Its options come from the environment
// (src/options.ts: EXPORTS_QUEUE, WORKER_CONCURRENCY, ...); the checks and tests use
// queues of their own. SIGTERM or Ctrl-C closes it: the jobs in progress finish first,
// for at most SHUTDOWN_GRACE_MS.
import { ensureInfra } from '@tasks-lab/infra';
import { idempotent, onShutdown, runMain, SECOND } from '@tasks-lab/lab-kit';
import type { RedisOptions } from 'ioredis';
import { assertBrokerReachable, brokerConnection, describeBroker, type ExportJobName } from './broker.ts';
import { exportHandlers, startExportWorker, type ExportHandlers, type ExportsWorker } from './export-worker.ts';
import { WORKER_OPTIONS } from './options.ts';

/** How long a stopping worker may spend finishing its jobs before it exits anyway (an export takes milliseconds). */
export const SHUTDOWN_GRACE_MS = 10 * SECOND;

export interface RunWorkerOptions {
  /** @defaultValue brokerConnection(); a test fixture passes a wrong address on purpose. */
  connection?: RedisOptions;
}

/**
 * Starts the worker with `handlers` and prints one ready line:
 * `worker <pid> ready: queue <name>, concurrency <n>, registered: <job names>`.
 * The broker is asked for PONG first: at a wrong address (a Compose name such as
 * `redis:6379`, an old port) the process ends with one line saying where the broker
 * is, instead of BullMQ reconnecting for ever. The can-fail fixtures pass broken handlers.
 */
export async function runWorkerProcess<Name extends string = ExportJobName>(
  handlers: ExportHandlers<Name>,
  options: RunWorkerOptions = {},
): Promise<ExportsWorker<Name>> {
  const settings = WORKER_OPTIONS.read(); // a bad value stops the process here, before Redis is touched
  await ensureInfra({ services: ['redis'], log: (line) => console.log(`[infra] ${line}`) });
  const connection = options.connection ?? brokerConnection();
  console.log(describeBroker(connection));
  await assertBrokerReachable(connection);
  const worker = startExportWorker({ ...settings, handlers, connection });
  onShutdown(
    idempotent(() => worker.close()),
    { graceMs: SHUTDOWN_GRACE_MS },
  );

  worker.on('completed', (job, result) => {
    console.log(`completed ${job.name} ${job.id}: ${JSON.stringify(result)}`);
  });
  worker.on('failed', (job, err) => {
    console.log(`failed ${job?.name ?? '?'} ${job?.id ?? '?'}: ${err.message}`);
  });

  await worker.waitUntilReady();
  console.log(
    `worker ${process.pid} ready: queue ${settings.queueName}, concurrency ${worker.opts.concurrency}, registered: ${Object.keys(handlers).join(', ')}`,
  );
  return worker;
}

runMain(import.meta.url, async () => {
  await runWorkerProcess(exportHandlers());
});
