// `pnpm submit [--timeout-s 15]`: the producer as a command-line acceptance script.
// It submits a one-product snapshot under a fresh business id and waits for the
// worker's result through QueueEvents. Waiting like this is for a terminal only;
// an HTTP handler returns 202 and lets the client poll.
import { randomUUID } from 'node:crypto';
import { MessageContractError, type ExportMessage } from '@tasks-lab/07-choosing-executors';
import { ensureInfra } from '@tasks-lab/infra';
import { idempotent, onShutdown, runMain, SECOND } from '@tasks-lab/lab-kit';
import type { QueueEvents } from 'bullmq';
import type { ArtifactResult } from './artifacts.ts';
import { exportsAddress } from './broker.ts';
import { SUBMIT_OPTIONS, type SubmitOptionValues } from './options.ts';
import { enqueueExport, type ExportsQueue } from './producer.ts';
import { openQueue, openQueueEvents, ResultTimeoutError, waitForResult } from './queue-layer.ts';

/** How long the CLI waits for a result by default, in seconds (the course waits 15 s). */
export const DEFAULT_WAIT_SECONDS = SUBMIT_OPTIONS.defaults().waitSeconds;

export const EXIT_CONTRACT = 2;
export const EXIT_NO_RESULT = 3;

/** The lesson's smallest useful snapshot: one product. */
export function oneProductSnapshot(jobId: string = randomUUID()): ExportMessage {
  return {
    job_id: jobId,
    products: [{ id: 1, name: 'Desk lamp', description: 'one-product snapshot for lesson 08', is_active: true, price_cents: 2599 }],
  };
}

/**
 * The CLI's options: SUBMIT_OPTIONS from the environment, where `--timeout-s N` sets
 * SUBMIT_TIMEOUT_S and is checked the same way (a whole number of seconds, 1 to 3600).
 */
export function readSubmitOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): SubmitOptionValues {
  const at = argv.indexOf('--timeout-s');
  if (at === -1) return SUBMIT_OPTIONS.read({ env });
  const value = argv[at + 1] ?? '(nothing)';
  return SUBMIT_OPTIONS.read({ env: { ...env, [SUBMIT_OPTIONS.specs.waitSeconds.env]: value } });
}

async function main(argv: readonly string[]): Promise<number> {
  const options = readSubmitOptions(argv);
  await ensureInfra({ services: ['redis'], log: (line) => console.log(`[infra] ${line}`) });
  const address = exportsAddress(options.queueName);
  let queue: ExportsQueue | undefined;
  let events: QueueEvents<ArtifactResult> | undefined;
  const close = idempotent(async () => {
    await events?.close();
    await queue?.close();
  });
  const stopListening = onShutdown(close, { graceMs: 5 * SECOND });
  try {
    queue = await openQueue(address);
    // Subscribe before adding, so a fast worker's "completed" event cannot be missed.
    events = await openQueueEvents<ArtifactResult>(address);
    const job = await enqueueExport(queue, oneProductSnapshot());
    console.log(`submitted ${job.id} to queue ${options.queueName} as ${job.name}`);
    const result = await waitForResult(job, events, options.waitSeconds * SECOND);
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
    stopListening();
    await close();
  }
}

runMain(import.meta.url, () => main(process.argv.slice(2)));
