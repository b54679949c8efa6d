// What `pnpm submit` does the same way from lesson 11 on (lesson 12's reuses it): which products
// it submits (--products, or the smallest id in the shop), and how it waits for its answer. The
// answer is read from the job's ROW, never from Redis, until the row is terminal; a row that is
// not terminal in time gets one line that says where the job is stuck.
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { sleep, formatDuration } from '@tasks-lab/lab-kit';
import { isTerminal } from '@tasks-lab/01-state-machine';
import { readJob, type JobRow } from './leases.ts';

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
export function parseProductList(text: string): number[] {
  return text.split(',').map((part) => Number(part.trim()));
}

/** The course picks the smallest product id rather than assuming id 1 exists. */
export async function smallestProductId(pool: Pool): Promise<number> {
  const [rows] = await pool.query<RowDataPacket[]>('SELECT MIN(id) AS id FROM products');
  const id = rows[0]?.id;
  if (id === null || id === undefined) throw new Error('the products table is empty: add a product first');
  return Number(id);
}
