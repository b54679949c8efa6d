// `pnpm submit`: the course's "submit, then read the row" script. It freezes a snapshot
// and inserts the job (one short transaction), wakes a worker with the job id only, then
// reads the ROW until it is finished: the answer comes from MySQL, never from Redis.
//   pnpm submit                          the product with the smallest id
//   pnpm submit -- --products 2,1        these products, in this order
//   pnpm submit -- --key order-42        with an Idempotency-Key: run it twice, get one job
//   pnpm submit -- --wake <job id>       submit nothing: wake a worker for an existing job (the drill)
// Start `pnpm worker` first (or after: the job waits, queued, for a worker to claim it).
import { parseArgs } from 'node:util';
import type { Pool } from 'mysql2/promise';
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { idempotent, onShutdown, runMain, SECOND, formatDuration } from '@tasks-lab/lab-kit';
import { SUBMIT_OPTIONS, openQueue, type ExportJobName } from '@tasks-lab/08-broker-worker';
import { isTerminal } from '@tasks-lab/01-state-machine';
import { toExportResponse } from './app.ts';
import { LAB, openJobsDatabase } from './database.ts';
import { submitSnapshot } from './leases.ts';
import { readLeaseOptions, type LeaseOptionValues } from './options.ts';
import { SERVER_PROCESS_OPTIONS } from './options.ts';
import { exportsAddress, wakeWorker, type DeliveryOutcome, type WakeUpMessage } from './queue.ts';
import { describeUnfinished, parseProductList, smallestProductId, waitForTerminalRow } from './submit-cli.ts';

async function main(): Promise<number> {
  // `pnpm submit -- --x` passes the `--` through; drop it.
  const args = process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--'));
  const { values: flags } = parseArgs({
    args,
    options: { products: { type: 'string' }, key: { type: 'string' }, wake: { type: 'string' } },
  });
  const { database, queueName } = SERVER_PROCESS_OPTIONS.read();
  const { waitSeconds } = SUBMIT_OPTIONS.read();
  const lease = readLeaseOptions();
  await ensureInfra({ services: ['redis', 'mysql'], log: (line) => console.log(`[infra] ${line}`) });
  // Safe from every process at start-up: a named lock serialises it, applied files are skipped.
  await migrateLab(LAB, { database });
  const pool = await openJobsDatabase({ database });
  const queue = await openQueue<WakeUpMessage, DeliveryOutcome, ExportJobName>(exportsAddress(queueName)).catch(
    async (err: unknown) => {
      await pool.end();
      throw err;
    },
  );
  const close = idempotent(async () => {
    await queue.close();
    await pool.end();
  });
  onShutdown(close, { graceMs: 5 * SECOND });
  try {
    const jobId = flags.wake?.toLowerCase() ?? (await submit(pool, flags, lease));
    await wakeWorker(queue, jobId); // after the commit: the worker finds the row
    const row = await waitForTerminalRow(pool, jobId, waitSeconds * SECOND);
    if (!row) throw new Error(`job ${jobId} has no row`);
    console.log(JSON.stringify(toExportResponse(row), null, 2));
    if (!isTerminal(row.status)) console.log(describeUnfinished(row, { waitSeconds }));
    return row.status === 'succeeded' ? 0 : 1;
  } finally {
    await close();
  }
}

/** Submits the products named by --products (or the smallest id), with --key if given; returns the job id. */
async function submit(
  pool: Pool,
  flags: { products?: string; key?: string },
  lease: LeaseOptionValues,
): Promise<string> {
  const productIds = flags.products ? parseProductList(flags.products) : [await smallestProductId(pool)];
  const submitted = await submitSnapshot(pool, productIds, { idempotencyKey: flags.key, deadlineMs: lease.deadlineMs });
  console.log(
    `${submitted.created ? 'submitted' : 'found the job of this Idempotency-Key'} ${submitted.jobId} (deadline ${formatDuration(lease.deadlineMs)})`,
  );
  return submitted.jobId;
}

runMain(import.meta.url, main);
