// `pnpm submit [--timeout-s 15]`: the producer as a command-line acceptance script.
// It submits a one-product snapshot under a fresh business id and waits for the
// worker's result through QueueEvents. Waiting like this is for a terminal only;
// an HTTP handler returns 202 and lets the client poll.
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { MessageContractError, type ExportMessage } from '@tasks-lab/07-choosing-executors';
import { ensureInfra } from '@tasks-lab/infra';
import { EXPORTS_QUEUE } from './broker.ts';
import { openExportsEvents, openExportsQueue, ResultTimeoutError, enqueueExport, waitForExportResult } from './producer.ts';

/** How long the CLI waits for a result by default, in seconds (the course waits 15 s). */
export const DEFAULT_WAIT_SECONDS = 15;

export const EXIT_CONTRACT = 2;
export const EXIT_NO_RESULT = 3;

/** The lesson's smallest useful snapshot: one product. */
export function oneProductSnapshot(jobId: string = randomUUID()): ExportMessage {
  return {
    job_id: jobId,
    products: [{ id: 1, name: 'Desk lamp', description: 'one-product snapshot for lesson 08', is_active: true, price_cents: 2599 }],
  };
}

export function parseWaitSeconds(argv: readonly string[]): number {
  const at = argv.indexOf('--timeout-s');
  if (at === -1) return DEFAULT_WAIT_SECONDS;
  const seconds = Number(argv[at + 1]);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`--timeout-s needs a positive number of seconds, got "${argv[at + 1]}"`);
  return seconds;
}

async function main(argv: readonly string[]): Promise<number> {
  const waitSeconds = parseWaitSeconds(argv);
  await ensureInfra({ services: ['redis'], log: (line) => console.log(`[infra] ${line}`) });
  const queueName = process.env.EXPORTS_QUEUE || EXPORTS_QUEUE;
  const queue = openExportsQueue(queueName);
  const events = openExportsEvents(queueName);
  try {
    // Subscribe before adding, so a fast worker's "completed" event cannot be missed.
    await events.waitUntilReady();
    const job = await enqueueExport(queue, oneProductSnapshot());
    console.log(`submitted ${job.id} to queue ${queueName} as ${job.name}`);
    const result = await waitForExportResult(job, events, waitSeconds * 1000);
    console.log(`result ${JSON.stringify(result)}`);
    console.log(`state ${await job.getState()}`);
    return 0;
  } catch (err) {
    if (err instanceof MessageContractError) {
      console.error(`refused before reaching Redis: ${err.message}`);
      return EXIT_CONTRACT;
    }
    if (err instanceof ResultTimeoutError) {
      console.error(err.message);
      console.error('The wait ended, not the job: start a worker (pnpm worker) and it completes under the same id.');
      return EXIT_NO_RESULT;
    }
    throw err;
  } finally {
    await events.close();
    await queue.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exitCode = 1;
    },
  );
}
