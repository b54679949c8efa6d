// `pnpm submit [--timeout-s N] [--job-id UUID] [--rows N]`: the producer as a
// command-line acceptance script. It submits a snapshot (one product unless --rows
// says more) under a fresh business id, or under --job-id, and waits for the worker's
// result through QueueEvents. Waiting like this is for a terminal only; an HTTP handler
// returns 202 and lets the client poll.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { jobIdSchema } from '@tasks-lab/01-state-machine';
import { MessageContractError, type ExportMessage, type ProductSnapshot } from '@tasks-lab/07-choosing-executors';
import { ensureInfra } from '@tasks-lab/infra';
import { CodedError, errorMessage, idempotent, onShutdown, OptionsError, runMain, SECOND } from '@tasks-lab/lab-kit';
import type { QueueEvents } from 'bullmq';
import { canonicalJobId, type ArtifactResult } from './artifacts.ts';
import { exportsAddress } from './broker.ts';
import { EXPORT_SUBMIT_OPTIONS, type ExportSubmitOptionValues } from './options.ts';
import { AlreadySubmittedError, enqueueExport, type ExportsQueue } from './producer.ts';
import { openQueue, openQueueEvents, ResultTimeoutError, waitForResult } from './queue-layer.ts';

/** How long the CLI waits for a result by default, in seconds (the course waits 15 s). */
export const DEFAULT_WAIT_SECONDS = EXPORT_SUBMIT_OPTIONS.defaults().waitSeconds;

/** Bad arguments (unknown, missing or out of bounds) and, from the producer, a message that breaks the contract. */
export const EXIT_USAGE = 2;
export const EXIT_CONTRACT = 2;
/** The wait ran out; the job is still in the queue. */
export const EXIT_NO_RESULT = 3;
/** The id is taken by a job with another snapshot. */
export const EXIT_ALREADY_SUBMITTED = 4;

export const SUBMIT_USAGE = [
  'usage: pnpm submit [--timeout-s N] [--job-id UUID] [--rows N]',
  '  --timeout-s N   how long to wait for the result: whole seconds, 1 to 3600 (SUBMIT_TIMEOUT_S, default 15)',
  '  --job-id UUID   submit under this business id instead of a fresh one',
  '  --rows N        how many products the snapshot holds: 1 to 100 (SUBMIT_ROWS, default 1)',
].join('\n');

/** The command line asks for something the CLI does not do. */
export class UsageError extends CodedError {
  constructor(message: string) {
    super('usage', message);
  }
}

/** Product `n` of the CLI's snapshot; product 1 is the lesson's desk lamp. */
function snapshotProduct(n: number): ProductSnapshot {
  if (n === 1)
    return {
      id: 1,
      name: 'Desk lamp',
      description: 'one-product snapshot for lesson 08',
      is_active: true,
      price_cents: 2599,
    };
  return {
    id: n,
    name: `Desk lamp no. ${n}`,
    description: 'snapshot for lesson 08',
    is_active: true,
    price_cents: 2599 + n,
  };
}

/** A snapshot of `rows` products under `jobId`: the same arguments always give the same snapshot. */
export function productSnapshot(jobId: string = randomUUID(), rows = 1): ExportMessage {
  return { job_id: jobId, products: Array.from({ length: rows }, (_, i) => snapshotProduct(i + 1)) };
}

/** The lesson's smallest useful snapshot: one product. */
export function oneProductSnapshot(jobId: string = randomUUID()): ExportMessage {
  return productSnapshot(jobId, 1);
}

export interface SubmitArguments extends ExportSubmitOptionValues {
  /** From --job-id, canonical (lower case); a fresh UUID when absent. */
  jobId?: string;
  /** --help or -h: print the usage and stop. */
  help: boolean;
}

/**
 * The CLI's options: EXPORT_SUBMIT_OPTIONS from the environment, where `--timeout-s N` sets
 * SUBMIT_TIMEOUT_S and `--rows N` sets SUBMIT_ROWS and are checked the same way.
 * Anything else on the command line (an unknown option, a stray word, a flag without its
 * value) is refused with UsageError, and so is a --job-id that is not a UUID; a value
 * out of bounds is refused with OptionsError. Nothing is submitted in either case.
 */
export function readSubmitOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): SubmitArguments {
  // `pnpm submit -- --rows 2` passes the `--` along; it separates nothing here.
  const args = argv[0] === '--' ? argv.slice(1) : [...argv];
  let values: { 'timeout-s'?: string; 'job-id'?: string; rows?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        'timeout-s': { type: 'string' },
        'job-id': { type: 'string' },
        rows: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError(errorMessage(err).split('\n')[0] ?? 'bad arguments');
  }
  const fromFlags: NodeJS.ProcessEnv = {};
  const { specs } = EXPORT_SUBMIT_OPTIONS;
  for (const [flag, variable] of [
    ['timeout-s', specs.waitSeconds.env],
    ['rows', specs.rows.env],
  ] as const) {
    const value = values[flag];
    if (value === undefined) continue;
    if (value === '') throw new UsageError(`--${flag} needs a value`);
    fromFlags[variable] = value;
  }
  const options = EXPORT_SUBMIT_OPTIONS.read({ env: { ...env, ...fromFlags } });
  const jobId = values['job-id'];
  if (jobId !== undefined && !jobIdSchema.safeParse(jobId).success) {
    throw new UsageError(`--job-id must be a UUID, got ${JSON.stringify(jobId.slice(0, 80))}`);
  }
  return { ...options, jobId: jobId === undefined ? undefined : canonicalJobId(jobId), help: values.help === true };
}

async function main(argv: readonly string[]): Promise<number> {
  let args: SubmitArguments;
  try {
    args = readSubmitOptions(argv);
  } catch (err) {
    if (!(err instanceof UsageError || err instanceof OptionsError)) throw err;
    console.error(err.message);
    console.error(SUBMIT_USAGE);
    return EXIT_USAGE;
  }
  if (args.help) {
    console.log(SUBMIT_USAGE);
    return 0;
  }
  await ensureInfra({ services: ['redis'], log: (line) => console.log(`[infra] ${line}`) });
  const address = exportsAddress(args.queueName);
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
    const job = await enqueueExport(queue, productSnapshot(args.jobId, args.rows));
    console.log(`submitted ${job.id} to queue ${args.queueName} as ${job.name}`);
    const result = await waitForResult(job, events, args.waitSeconds * SECOND);
    console.log(`result ${JSON.stringify(result)}`);
    console.log(`state ${await job.getState()}`);
    return 0;
  } catch (err) {
    if (err instanceof MessageContractError) {
      console.error(`refused before reaching Redis: ${err.message}`);
      return EXIT_CONTRACT;
    }
    if (err instanceof AlreadySubmittedError) {
      console.error(err.message);
      return EXIT_ALREADY_SUBMITTED;
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
