// `pnpm worker`: the export worker as its own OS process, like the course's
// `celery worker -Q exports --concurrency=2`. EXPORTS_QUEUE picks another queue name
// (the checks and tests use their own); SIGTERM or Ctrl-C closes it cleanly.
import { ensureInfra } from '@tasks-lab/infra';
import { pathToFileURL } from 'node:url';
import { describeBroker, EXPORTS_QUEUE } from './broker.ts';
import { exportHandlers, startExportWorker, type JobHandlers } from './export-worker.ts';

export interface WorkerProcessOptions {
  /** @defaultValue exportHandlers(): products.export writing to artifacts/ */
  handlers?: JobHandlers;
}

export async function runWorkerProcess(options: WorkerProcessOptions = {}): Promise<void> {
  await ensureInfra({ services: ['redis'], log: (line) => console.log(`[infra] ${line}`) });
  const queueName = process.env.EXPORTS_QUEUE || EXPORTS_QUEUE;
  const handlers = options.handlers ?? exportHandlers();
  const worker = startExportWorker({ queueName, handlers });

  worker.on('completed', (job, result) => {
    console.log(`completed ${job.name} ${job.id}: ${JSON.stringify(result)}`);
  });
  worker.on('failed', (job, err) => {
    console.log(`failed ${job?.name ?? '?'} ${job?.id ?? '?'}: ${err.message}`);
  });
  // Connection trouble is reported, not thrown: BullMQ keeps reconnecting.
  worker.on('error', (err) => console.error(`worker error: ${err.message}`));

  const stop = async () => {
    await worker.close(); // waits for the jobs in progress
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  await worker.waitUntilReady();
  console.log(`${describeBroker()}`);
  console.log(
    `worker ${process.pid} ready: queue ${queueName}, concurrency ${worker.opts.concurrency}, registered: ${Object.keys(handlers).join(', ')}`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runWorkerProcess().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
