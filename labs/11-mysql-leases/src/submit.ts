// `pnpm submit`: the course's "submit, then read the row" script. It freezes a snapshot
// and inserts the job (one short transaction), wakes a worker with the job id only, then
// reads the ROW until it is finished: the answer comes from MySQL, never from Redis.
//   pnpm submit                          the product with the smallest id
//   pnpm submit -- --products 2,1        these products, in this order
//   pnpm submit -- --key order-42        with an Idempotency-Key: run it twice, get one job
//   pnpm submit -- --wake <job id>       submit nothing: wake a worker for an existing job (the drill)
// Start `pnpm worker` first (or after: the job waits, queued, for a worker to claim it).
import { parseArgs } from 'node:util';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { ensureInfra, migrateLab } from '@tasks-lab/infra';
import { idempotent, onShutdown, runMain, sleep, SECOND, formatDuration } from '@tasks-lab/lab-kit';
import { SUBMIT_OPTIONS, openQueue, type ExportJobName } from '@tasks-lab/08-broker-worker';
import { isTerminal } from '@tasks-lab/01-state-machine';
import { toExportResponse } from './app.ts';
import { LAB, openJobsDatabase } from './database.ts';
import { readJob, submitSnapshot, type JobRow } from './leases.ts';
import { readLeaseOptions, type LeaseOptionValues } from './options.ts';
import { SERVER_PROCESS_OPTIONS } from './options.ts';
import { exportsAddress, wakeWorker, type DeliveryOutcome, type WakeUpMessage } from './queue.ts';

/** Reads the row until it is terminal or `waitMs` has passed; returns the last read. */
export async function waitForTerminalRow(
  pool: Pool,
  jobId: string,
  waitMs: number,
  signal?: AbortSignal,
): Promise<JobRow | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const row = await readJob(pool, jobId);
    if (!row || isTerminal(row.status) || Date.now() >= deadline) return row;
    await sleep(100, signal);
  }
}

/** What describeUnfinished asks when nobody has claimed the job: who should have. */
export const ASK_FOR_WORKER = 'is `pnpm worker` running?';

/**
 * The line `pnpm submit` prints when the row is still not terminal after its wait: what the
 * row shows, so the student looks in the right place. A running job has a holder: its attempt,
 * its token and its lease's end say whether a worker is on it now (wait) or its lease passed
 * with no finish (nothing requeues it before lesson 15). Only a job nobody claimed asks whether
 * the worker runs (`askWhenUnclaimed`: lesson 12 names its publisher too).
 */
export function describeUnfinished(
  row: JobRow,
  options: { waitSeconds: number; now?: Date; askWhenUnclaimed?: string },
): string {
  const now = (options.now ?? new Date()).getTime();
  const ask = options.askWhenUnclaimed ?? ASK_FOR_WORKER;
  const still = `still ${row.status} after ${options.waitSeconds} s`;
  if (row.status === 'running' && row.leaseUntil) {
    const until = row.leaseUntil.getTime();
    const lease = `attempt ${row.attempts} (token ${row.leaseToken ?? 'none'})`;
    if (until > now)
      return `${still}: ${lease} holds the lease until ${row.leaseUntil.toISOString()} (${formatDuration(until - now)} from now), so a worker has it; read the row again later`;
    return `${still}: the lease of ${lease} ended at ${row.leaseUntil.toISOString()} (${formatDuration(now - until)} ago) with no finish; nothing requeues it in this lesson (the fault drill does it by hand, lesson 15's scanner for good)`;
  }
  if (row.status === 'queued' && row.attempts === 0) {
    // Lesson 11 has no outbox: a wake-up lost between the commit and the send is resent by hand.
    // A later lesson that asks its own question (lesson 12: its publisher resends) gets no such hint.
    const resend =
      options.askWhenUnclaimed === undefined ? ` (a lost wake-up: \`pnpm submit -- --wake ${row.id}\`)` : '';
    return `${still} and never claimed (attempts 0): ${ask}${resend}`;
  }
  if (row.status === 'queued') {
    const next = row.nextAttemptAt.getTime();
    if (next > now)
      return `${still}: attempt ${row.attempts} ended; the next claim may start at ${row.nextAttemptAt.toISOString()} (${formatDuration(next - now)} from now)`;
    return `${still}: attempt ${row.attempts} ended, and nobody claimed it again since ${row.nextAttemptAt.toISOString()}: ${ask}`;
  }
  return `${still}: read the row (\`GET /exports/${row.id}\`)`;
}

/** "1,2,3" -> [1, 2, 3]; anything else is refused by submitSnapshot's own checks. */
function parseProductList(text: string): number[] {
  return text.split(',').map((part) => Number(part.trim()));
}

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

/** The course picks the smallest product id rather than assuming id 1 exists. */
async function smallestProductId(pool: Pool): Promise<number> {
  const [rows] = await pool.query<RowDataPacket[]>('SELECT MIN(id) AS id FROM products');
  const id = rows[0]?.id;
  if (id === null || id === undefined) throw new Error('the products table is empty: add a product first');
  return Number(id);
}

runMain(import.meta.url, main);
